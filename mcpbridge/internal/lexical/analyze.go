package lexical

import (
	"cmp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// termHash is the key of a term: FNV-1a, 64 bits.
func termHash(w string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(w); i++ {
		h ^= uint64(w[i])
		h *= 1099511628211
	}
	return h
}

// normalize turns a lower-cased word into its term text: stop words,
// one-letter words and numbers of fewer than five digits (amounts, counts,
// years) are dropped (ok false); English words are stemmed.
func normalize(w string) (string, bool) {
	if len(w) < 2 || stopWords[w] {
		return "", false
	}
	digits := true
	for i := 0; i < len(w); i++ {
		if w[i] < '0' || w[i] > '9' {
			digits = false
			break
		}
	}
	if digits && len(w) < 5 {
		return "", false
	}
	return stem(w), true
}

// pathWeight is what a word inside a file path or URL counts, against 1
// elsewhere: "/root/markdown/report.md" says "a file" more than it says
// "markdown".
const pathWeight = 0.3

// memberWeight is what a word counts as itself when the lexicon knows it,
// against 1 for another word: it counts through its concepts too.
var memberWeight float32 = 0.4

// shapeWeight is what a path or URL counts for what it names ("file",
// "url"), against 1 for a word.
var shapeWeight float32 = 1

// analyze splits text into its terms, calling word with the term of every
// word (every pair of CJK characters) and concept with the term of every
// concept of the lexicon that the text names, each with its weight. A file
// path in the text names what the word "file" names, a URL what "url"
// names, a domain name what "domain" names; the words inside them weigh
// pathWeight. A Korean district's name (강남구: see isDistrict) names what
// districtMember names. Unless near is nil, it is called with the term of every two
// things said next to each other (see nearTerm), with its weight times
// nearWeight: two words with no other word between them but stop words,
// two concepts named by members that follow each other (in CJK text, with
// at most nearGapCJK characters between them).
func analyze(lx *lexicon, text string, word, concept, near func(term uint64, weight float32)) {
	type span struct{ start, end int }
	var paths []span
	shapes(text, func(start, end int, kind string) {
		lx.matchWords([]string{kind}, func(t uint64) { concept(t, shapeWeight) })
		paths = append(paths, span{start, end})
	})
	inPath := func(at int) bool {
		for _, p := range paths {
			if p.start <= at && at < p.end {
				return true
			}
		}
		return false
	}
	var seq []string // the current sequence of normalized words, for phrases
	var seqWeight float32 = 1
	var member []bool
	var spans []conceptSpan // the concepts found in seq or in a CJK run
	flush := func() {
		if len(seq) == 0 {
			return
		}
		w := seqWeight
		member = append(member[:0], make([]bool, len(seq))...)
		spans = spans[:0]
		lx.matchWordsAt(seq, func(from, to int, t uint64) {
			concept(t, w)
			for i := from; i < to; i++ {
				member[i] = true
			}
			spans = append(spans, conceptSpan{from, to, t})
		})
		// A word the lexicon knows counts mostly through its concepts.
		for i, s := range seq {
			if member[i] {
				word(termHash(s), w*memberWeight)
			} else {
				word(termHash(s), w)
			}
		}
		if near != nil {
			for i := 1; i < len(seq); i++ {
				if seq[i] != seq[i-1] {
					near(nearTerm(termHash(seq[i-1]), termHash(seq[i])), w*nearWeight)
				}
			}
			nearConcepts(spans, 0, func(t uint64) { near(t, w*nearWeight) })
		}
		seq = seq[:0]
	}
	chunks(text, func(c chunk) {
		w := float32(1)
		if inPath(c.at) {
			w = pathWeight
		}
		if w != seqWeight {
			flush()
			seqWeight = w
		}
		if c.cjk {
			flush()
			cjkPairs(c.text, func(p string) { word(termHash(p), w) })
			spans = spans[:0]
			joined := false
			if c.at > 0 {
				r, _ := utf8.DecodeLastRuneInString(text[:c.at])
				joined = scriptOf(foldWidth(r)) == wordScript
			}
			found := func(at, n int, t uint64) {
				concept(t, w)
				spans = append(spans, conceptSpan{at, at + n, t})
			}
			lx.matchCJK(c.text, joined, found)
			members := len(spans)
			lx.matchDistricts(c.text, spans, found)
			if len(spans) > members { // in the order of the text, for nearConcepts
				slices.SortStableFunc(spans, func(a, b conceptSpan) int { return cmp.Compare(a.from, b.from) })
			}
			if near != nil {
				nearConcepts(spans, nearGapCJK, func(t uint64) { near(t, w*nearWeight) })
			}
			return
		}
		if s, ok := normalize(c.text); ok {
			seq = append(seq, s)
		}
	})
	flush()
}

// nearWeight is what the term of two words or concepts said next to each
// other counts, against 1 for a word, in a request and in a tool's name
// and description: a tool whose name says "stock price" fits a request
// for a stock's price better than one that says "stock" in its name and
// "price" in its description. nearGapCJK is how many characters may be
// between two concepts of CJK text (particles: 株の価格). They were set on
// the dev split of the ranker's recall tests (see the rank package's
// testdata), in a fifth round.
const (
	nearWeight = 0.75
	nearGapCJK = 3
)

// A conceptSpan is a concept found in a text, and where: the words (or
// CJK characters) from and to of its member.
type conceptSpan struct {
	from, to int
	term     uint64
}

// nearConcepts calls fn with the term of every two distinct concepts of
// spans (in the order found) whose members follow each other with at most
// gap words or characters between them.
func nearConcepts(spans []conceptSpan, gap int, fn func(uint64)) {
	for i, a := range spans {
		for _, b := range spans[i+1:] {
			if b.from-a.to > gap {
				break
			}
			if b.from >= a.to && a.term != b.term {
				fn(nearTerm(a.term, b.term))
			}
		}
	}
}

// nearTerm is the term of two terms said next to each other, in either
// order: FNV-1a over a marker and the two terms, the lesser first.
func nearTerm(a, b uint64) uint64 {
	if a > b {
		a, b = b, a
	}
	h := uint64(14695981039346656037)
	mix := func(c byte) {
		h ^= uint64(c)
		h *= 1099511628211
	}
	mix('~')
	for _, t := range [2]uint64{a, b} {
		for i := 0; i < 8; i++ {
			mix(byte(t >> (8 * i)))
		}
	}
	return h
}

// shapes calls fn with the byte offsets and the shape (see shapeOf) of
// every field of text, between spaces, that has one: a path, a file name,
// a URL or a domain name.
func shapes(text string, fn func(start, end int, kind string)) {
	for start := 0; start < len(text); {
		n := strings.IndexFunc(text[start:], unicode.IsSpace)
		if n < 0 {
			n = len(text) - start
		}
		if n == 0 {
			_, size := utf8.DecodeRuneInString(text[start:])
			start += size
			continue
		}
		if kind := shapeOf(text[start : start+n]); kind != "" {
			fn(start, start+n, kind)
		}
		start += n
	}
}

// stopWords are English words that say nothing about what a tool does:
// function words, and the words of asking ("please", "help me").
var stopWords = map[string]bool{}

func init() {
	for _, w := range []string{
		"a", "about", "above", "after", "again", "all", "also", "am", "an", "and", "any", "are", "as", "at",
		"be", "been", "before", "being", "both", "but", "by", "can", "could", "did", "do", "does", "doing",
		"each", "either", "else", "etc", "for", "from", "further", "had", "has", "have", "having", "he",
		"her", "here", "hers", "him", "his", "how", "if", "in", "into", "is", "it", "its", "itself",
		"just", "let", "lets", "may", "me", "might", "mine", "more", "most", "much", "must", "my",
		"myself", "no", "nor", "not", "of", "off", "on", "once", "one", "only", "or", "other", "our",
		"ours", "out", "over", "own", "please", "same", "she", "should", "so", "some", "such", "than",
		"that", "the", "their", "theirs", "them", "then", "there", "these", "they", "this", "those",
		"through", "to", "too", "under", "until", "up", "us", "very", "via", "was", "we", "were", "what",
		"when", "where", "which", "while", "who", "whom", "whose", "why", "will", "with", "would",
		"you", "your", "yours", "yourself", "i", "im", "ive", "id", "ll", "re", "ve", "don", "doesn",
		"didn", "isn", "aren", "wasn", "won", "cannot", "hey", "hi", "hello", "thanks", "thank",
		"kindly", "help", "tell", "give", "want", "wanted", "wants", "need", "needs", "needed", "like",
		"would", "could", "possible", "something", "anything", "everything", "thing", "things",
		"e", "g", "eg", "ie", "use", "used", "using", "uses", "related",
	} {
		stopWords[w] = true
	}
}

// topLevelDomains are the endings that make "name.ending" a domain name
// rather than a file name.
var topLevelDomains = map[string]bool{
	"com": true, "org": true, "net": true, "io": true, "dev": true, "app": true, "gov": true,
	"edu": true, "info": true, "co": true, "cn": true, "jp": true, "kr": true, "uk": true,
	"de": true, "fr": true, "ru": true, "in": true, "eu": true, "me": true, "tv": true,
}

// shapeOf returns the normalized word for what a field of text looks like:
// "url" for a URL, "domain" for a domain name, "fil" (a file) for a path
// or a file name with an extension, "" for anything else.
func shapeOf(f string) string {
	f = strings.Trim(f, "\"'`()[]{}<>,;:!?\u201c\u201d\u2018\u2019")
	f = strings.TrimRight(f, ".")
	switch {
	case len(f) < 3 || len(f) > 512:
		return ""
	case strings.Contains(f, "://") || strings.HasPrefix(f, "www."):
		return "url"
	case strings.HasPrefix(f, "/") || strings.HasPrefix(f, "~/") || strings.HasPrefix(f, "./") ||
		strings.HasPrefix(f, "../") || len(f) > 3 && f[1] == ':' && (f[2] == '\\' || f[2] == '/'):
		return stem("file")
	}
	dot := strings.LastIndexByte(f, '.')
	if dot < 2 || dot == len(f)-1 || len(f)-dot-1 > 5 { // "e.g" is no file
		return ""
	}
	ext := f[dot+1:]
	for i := 0; i < len(ext); i++ {
		if c := ext[i]; !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return ""
		}
	}
	for i := 0; i < dot; i++ {
		if c := f[i]; c != '.' && c != '-' && c != '_' && !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return ""
		}
	}
	if ext[0] >= '0' && ext[0] <= '9' {
		return "" // a version or a number: 2.13.4, 9.5
	}
	if topLevelDomains[strings.ToLower(ext)] {
		return "domain"
	}
	return stem("file")
}
