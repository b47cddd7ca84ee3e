package lexical

import (
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
// pathWeight.
func analyze(lx *lexicon, text string, word, concept func(term uint64, weight float32)) {
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
	flush := func() {
		if len(seq) == 0 {
			return
		}
		w := seqWeight
		member = append(member[:0], make([]bool, len(seq))...)
		lx.matchWordsAt(seq, func(from, to int, t uint64) {
			concept(t, w)
			for i := from; i < to; i++ {
				member[i] = true
			}
		})
		// A word the lexicon knows counts mostly through its concepts.
		for i, s := range seq {
			if member[i] {
				word(termHash(s), w*memberWeight)
			} else {
				word(termHash(s), w)
			}
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
			lx.matchCJK(c.text, func(t uint64) { concept(t, w) })
			return
		}
		if s, ok := normalize(c.text); ok {
			seq = append(seq, s)
		}
	})
	flush()
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
