package lexical

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxWordBytes is the longest word kept: longer runs of letters and digits
// are hashes, base64 data or identifiers that say nothing about a tool.
const maxWordBytes = 32

// script is the writing system of a rune, as far as segmenting cares.
type script uint8

const (
	sepScript  script = iota // separates words
	wordScript               // letters and digits of scripts that put spaces between words
	hanScript                // Chinese characters (kanji, hanja)
	hiraScript               // hiragana
	kataScript               // katakana, with the prolonged sound mark
	hangulScript
)

func scriptOf(r rune) script {
	switch {
	case r < utf8.RuneSelf:
		if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' {
			return wordScript
		}
		return sepScript
	case unicode.Is(unicode.Han, r):
		return hanScript
	case unicode.Is(unicode.Hiragana, r):
		return hiraScript
	case unicode.Is(unicode.Katakana, r) || r == 'ー' || r == 'ｰ':
		return kataScript
	case unicode.Is(unicode.Hangul, r):
		return hangulScript
	case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
		return wordScript
	}
	return sepScript
}

// cjk reports whether s is a script written without spaces between words
// (or, for Hangul, with particles glued to words): text in it is split
// into overlapping character pairs.
func (s script) cjk() bool { return s >= hanScript }

// foldWidth maps full-width ASCII (Ａ, １, ＿) to ASCII, as CJK text often
// writes Latin letters and digits.
func foldWidth(r rune) rune {
	if 0xFF01 <= r && r <= 0xFF5E {
		return r - 0xFEE0
	}
	if r == 0x3000 { // ideographic space
		return ' '
	}
	return r
}

// maxFieldBytes is the longest run of text without spaces and without CJK
// characters that is read: a longer one is data (base64, a hash, a long
// URL's query), not words.
const maxFieldBytes = 128

// A chunk is a maximal run of one kind of text: a word of a spaced script
// (already split at case changes, lower-cased, not yet stemmed) or a run of
// CJK characters of any of the CJK scripts. A CJK run goes on over spaces
// between CJK characters (Korean puts spaces between words): such a chunk's
// text has the spaces.
type chunk struct {
	text string
	cjk  bool
	at   int // byte offset in the text of the word or run the chunk is from
}

// chunks splits s into words and CJK runs, in order, calling fn for each.
// Words are split at every character that is not a letter, digit or mark,
// and where the case changes ("getHTTPResponse" -> get, http, response;
// "iPhone" stays one word); they are lower-cased and full-width Latin is
// folded to ASCII. Words longer than maxWordBytes are dropped, and so is
// every field (text between spaces) of more than maxFieldBytes that has no
// CJK character.
func chunks(s string, fn func(chunk)) {
	var word []rune
	wordStart := 0
	cjkStart, cjkEnd := -1, -1 // the open CJK run; where its last CJK character ends
	flushWord := func() {
		if len(word) > 0 {
			splitCase(word, wordStart, fn)
			word = word[:0]
		}
	}
	flushCJK := func() {
		if cjkStart >= 0 {
			fn(chunk{text: s[cjkStart:cjkEnd], cjk: true, at: cjkStart})
			cjkStart = -1
		}
	}
	fieldEnd := 0 // the end of the field being read
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if i >= fieldEnd && !unicode.IsSpace(r) {
			n := strings.IndexFunc(s[i:], unicode.IsSpace)
			if n < 0 {
				n = len(s) - i
			}
			fieldEnd = i + n
			if n > maxFieldBytes && !hasCJK(s[i:fieldEnd]) {
				flushWord()
				flushCJK()
				i = fieldEnd
				continue
			}
		}
		switch sc := scriptOf(foldWidth(r)); {
		case sc == wordScript:
			flushCJK()
			if len(word) == 0 {
				wordStart = i
			}
			word = append(word, foldWidth(r))
		case sc.cjk():
			flushWord()
			if cjkStart < 0 {
				cjkStart = i
			}
			cjkEnd = i + size
		case unicode.IsSpace(r):
			flushWord() // a CJK run stays open across spaces
		default:
			flushWord()
			flushCJK()
		}
		i += size
	}
	flushWord()
	flushCJK()
}

// hasCJK reports whether s has a CJK character.
func hasCJK(s string) bool {
	for _, r := range s {
		if scriptOf(r).cjk() {
			return true
		}
	}
	return false
}

// splitCase splits a run of letters and digits at case changes and emits
// each piece lower-cased; at is the run's offset in its text.
func splitCase(w []rune, at int, fn func(chunk)) {
	var cuts []int
	start := 0
	for i := 1; i < len(w); i++ {
		prev, cur := w[i-1], w[i]
		switch {
		case unicode.IsLower(prev) && unicode.IsUpper(cur):
			// "getWeather", but not "iPhone" or "eBay": a single lower-case
			// letter before an upper-case one is a prefix of the word.
			if i-start > 1 {
				cuts = append(cuts, i)
				start = i
			}
		case unicode.IsUpper(prev) && unicode.IsUpper(cur) && i+1 < len(w) && unicode.IsLower(w[i+1]):
			// "HTTPResponse": the last capital starts the next word.
			cuts = append(cuts, i)
			start = i
		}
	}
	emit := func(from, to int) {
		if s := strings.ToLower(string(w[from:to])); len(s) <= maxWordBytes {
			fn(chunk{text: s, at: at})
		}
	}
	if len(cuts) == 1 && unicode.IsUpper(w[0]) {
		// A name of two capitalized parts is often one word ("GitHub",
		// "YouTube", "PowerPoint"): it is kept whole too.
		emit(0, len(w))
	}
	start = 0
	for _, c := range cuts {
		emit(start, c)
		start = c
	}
	emit(start, len(w))
}

// cjkPairs calls fn with the overlapping pairs of characters of each run
// of one script in run ("東京都の天気" -> 東京, 京都, 天気), or the single
// character of a run of one. Hiragana runs are skipped: in Japanese they
// are mostly particles and verb endings. Characters that are not CJK
// (spaces) end a run.
func cjkPairs(run string, fn func(string)) {
	prevAt, prevSize, n := 0, 0, 0 // the previous character; characters in the current run, up to 2
	var prevSc script
	flush := func() {
		if n == 1 && prevSc != hiraScript {
			fn(run[prevAt : prevAt+prevSize])
		}
		n = 0
	}
	for i, r := range run {
		sc := scriptOf(r)
		if !sc.cjk() {
			flush()
			continue
		}
		if n > 0 && sc != prevSc {
			flush()
		}
		size := utf8.RuneLen(r)
		if n > 0 && sc != hiraScript {
			fn(run[prevAt : i+size])
		}
		n = min(n+1, 2)
		prevAt, prevSize, prevSc = i, size, sc
	}
	flush()
}

// withoutSpaces returns s without its spaces: how the lexicon matches CJK
// text, so that a member written with spaces (Korean) or without matches
// both.
func withoutSpaces(s string) string {
	if strings.IndexFunc(s, unicode.IsSpace) < 0 {
		return s
	}
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}
