package lexical

import (
	_ "embed"
	"fmt"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// lexiconText is the concept lexicon: the words people use for what tools
// do, grouped by meaning, in English, Japanese, Chinese and Korean. Its
// format is described at its top.
//
//go:embed lexicon.txt
var lexiconText string

// A lexicon maps words and phrases to the concepts they name. A text that
// uses any member of a concept gets the concept's term, so that "forecast"
// meets "weather", "EUR" meets "currency" and 天気 meets "weather".
type lexicon struct {
	words   map[string][]uint64 // normalized word or phrase (words joined by a space) -> concept terms
	longest int                 // most words in a phrase
	cjk     map[string][]uint64 // CJK member -> concept terms
	cjkMax  int                 // most characters in a CJK member
	size    int                 // concepts
	related map[uint64][]uint64 // concept term -> the terms of its related concepts
}

// theLexicon is the built-in lexicon, parsed on first use.
var theLexicon = sync.OnceValue(func() *lexicon {
	lx, err := parseLexicon(lexiconText)
	if err != nil {
		panic("lexical: the built-in lexicon: " + err.Error())
	}
	return lx
})

// parseLexicon reads a lexicon: one concept a line, "name: member, member,
// ...", where a member is a word or phrase in any language; blank lines and
// lines starting with # are skipped. A member of a spaced script is
// normalized as text is (split, lower-cased, stemmed, stop words dropped);
// one made of CJK characters is kept as it is and found anywhere inside a
// run of CJK text. A member may belong to several concepts. A line "name
// -> name, name, ..." relates a concept to others (see Score), each named
// by a line of its own somewhere in the text.
func parseLexicon(text string) (*lexicon, error) {
	lx := &lexicon{words: map[string][]uint64{}, cjk: map[string][]uint64{}, related: map[uint64][]uint64{}}
	names := map[string]bool{}
	type relation struct {
		line     int
		from, to string
	}
	var relations []relation
	for n, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if from, to, ok := strings.Cut(line, "->"); ok && !strings.Contains(from, ":") {
			for _, c := range strings.Split(to, ",") {
				relations = append(relations, relation{n + 1, strings.TrimSpace(from), strings.TrimSpace(c)})
			}
			continue
		}
		name, members, ok := strings.Cut(line, ":")
		name = strings.TrimSpace(name)
		if !ok || name == "" || strings.ContainsAny(name, " \t") {
			return nil, fmt.Errorf("line %d: want \"name: member, member, ...\"", n+1)
		}
		if names[name] {
			return nil, fmt.Errorf("line %d: concept %q defined twice", n+1, name)
		}
		names[name] = true
		lx.size++
		term := conceptTerm(name)
		for _, m := range strings.Split(members, ",") {
			m = strings.TrimSpace(m)
			if m == "" {
				continue
			}
			if err := lx.add(m, term); err != nil {
				return nil, fmt.Errorf("line %d: member %q: %w", n+1, m, err)
			}
		}
	}
	for _, r := range relations {
		if r.to == "" {
			continue
		}
		for _, c := range []string{r.from, r.to} {
			if !names[c] {
				return nil, fmt.Errorf("line %d: relates %q, which is no concept", r.line, c)
			}
		}
		if r.from == r.to {
			return nil, fmt.Errorf("line %d: relates %q to itself", r.line, r.from)
		}
		from := conceptTerm(r.from)
		lx.related[from] = appendNew(lx.related[from], conceptTerm(r.to))
	}
	return lx, nil
}

// add makes member name the concept term.
func (lx *lexicon) add(member string, term uint64) error {
	var words []string
	var cjk []string
	chunks(member, func(c chunk) {
		if c.cjk {
			cjk = append(cjk, c.text)
		} else if w, ok := normalize(c.text); ok {
			words = append(words, w)
		}
	})
	switch {
	case len(cjk) > 0 && len(words) > 0:
		return fmt.Errorf("mixes CJK and other text")
	case len(cjk) > 1:
		return fmt.Errorf("CJK members are one run of CJK characters")
	case len(cjk) == 1:
		key := withoutSpaces(cjk[0])
		lx.cjk[key] = appendNew(lx.cjk[key], term)
		lx.cjkMax = max(lx.cjkMax, utf8.RuneCountInString(key))
	case len(words) == 0:
		return fmt.Errorf("has no word that is not a stop word")
	default:
		key := strings.Join(words, " ")
		lx.words[key] = appendNew(lx.words[key], term)
		lx.longest = max(lx.longest, len(words))
	}
	return nil
}

func appendNew(terms []uint64, t uint64) []uint64 {
	for _, x := range terms {
		if x == t {
			return terms
		}
	}
	return append(terms, t)
}

// conceptTerm is the term of a concept; no word hashes to it, as words
// never start with '#'.
func conceptTerm(name string) uint64 { return termHash("#" + name) }

// matchWords calls fn with the concept terms of the members found in
// words (normalized), longest phrase first: where a phrase matches, its
// words are not matched again on their own ("mind map" is a mind map, not
// a map).
func (lx *lexicon) matchWords(words []string, fn func(uint64)) {
	lx.matchWordsAt(words, func(_, _ int, t uint64) { fn(t) })
}

// matchWordsAt is matchWords, also telling fn which words (from, to) the
// member matched.
func (lx *lexicon) matchWordsAt(words []string, fn func(from, to int, t uint64)) {
	for i := 0; i < len(words); {
		n := 1
		for k := min(lx.longest, len(words)-i); k >= 1; k-- {
			key := words[i]
			if k > 1 {
				key = strings.Join(words[i:i+k], " ")
			}
			if terms, ok := lx.words[key]; ok {
				for _, t := range terms {
					fn(i, i+k, t)
				}
				n = k
				break
			}
		}
		i += n
	}
}

// matchCJK calls fn with the concept terms of the members found in a run
// of CJK text (its spaces ignored), scanning from the left and taking the longest member at
// each place (so that 股票, a stock, is not also 票, a ticket). A member
// that ends in katakana where the word in katakana goes on is found only
// if another member starts where it ends: a loanword is one word
// (プレゼント, a present, is no プレゼン, a presentation), but a compound
// of two members is both (マークダウンファイル). A Hangul member that spans
// a space of run is found only where a word starts (at run's start unless
// joined, or after a space): 여행 일정 is a trip's schedule, but 3일 정도 (about
// three days) has no 일정 in it. joined tells that run's first word goes on
// a word of another script (3일, pdf에).
//
// fn is also told where the member is: its first character and its length
// in characters, in run without its spaces.
func (lx *lexicon) matchCJK(run string, joined bool, fn func(at, n int, t uint64)) {
	if len(lx.cjk) == 0 {
		return
	}
	// Where the run's words (between spaces) start, by character; without
	// spaces no member spans one.
	var starts []bool
	if strings.IndexFunc(run, unicode.IsSpace) >= 0 {
		starts = make([]bool, 0, len(run)/3+1)
		prevSpace := !joined
		for _, r := range run {
			if unicode.IsSpace(r) {
				prevSpace = true
				continue
			}
			starts = append(starts, prevSpace)
			prevSpace = false
		}
	}
	run = withoutSpaces(run)
	// Byte offsets of the run's characters, and of its end.
	offs := make([]int, 0, len(run)/3+1)
	for i := range run {
		offs = append(offs, i)
	}
	offs = append(offs, len(run))
	chars := len(offs) - 1
	scriptAt := func(i int) script {
		r, _ := utf8.DecodeRuneInString(run[offs[i]:])
		return scriptOf(r)
	}
	kata := func(i int) bool { return scriptAt(i) == kataScript }
	// fits reports whether a member of k characters may be found at
	// character i: a Hangul member that spans a space starts a word.
	fits := func(i, k int) bool {
		if i >= len(starts) || starts[i] || scriptAt(i) != hangulScript {
			return true
		}
		for j := i + 1; j < i+k && j < len(starts); j++ {
			if starts[j] {
				return false
			}
		}
		return true
	}
	// at returns the length in characters of the longest member at
	// character i (0 for none) and its terms.
	at := func(i int) (int, []uint64) {
		for k := min(lx.cjkMax, chars-i); k >= 1; k-- {
			if terms, ok := lx.cjk[run[offs[i]:offs[i+k]]]; ok && fits(i, k) {
				return k, terms
			}
		}
		return 0, nil
	}
	for i := 0; i < chars; {
		n, terms := at(i)
		// A shorter member where the longest cuts a loanword.
		for n > 0 && i+n < chars && kata(i+n-1) && kata(i+n) {
			if next, _ := at(i + n); next > 0 {
				break
			}
			n, terms = shorter(lx, run, offs, i, n)
		}
		for _, t := range terms {
			fn(i, n, t)
		}
		i += max(n, 1)
	}
}

// shorter returns the longest member at character i of run shorter than
// n characters (0 for none) and its terms.
func shorter(lx *lexicon, run string, offs []int, i, n int) (int, []uint64) {
	for k := n - 1; k >= 1; k-- {
		if terms, ok := lx.cjk[run[offs[i]:offs[i+k]]]; ok {
			return k, terms
		}
	}
	return 0, nil
}
