package lexical

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Korean writes a space between words (eojeol), each a word and the
// particles or endings glued to it (파일을, 하이뎬구에). The lexicon's Hangul
// members are found inside a run of Hangul with its spaces ignored (see
// matchCJK), so that a member meets its word whatever follows it and however
// the writer spaced a compound (워드 클라우드, 워드클라우드); a member that
// spans a space must start where a word does (see matchCJK). This file holds
// what Korean needs besides: a district's name.

// nounParticles are what follows a Korean noun in its word: particles,
// copulas and 쪽 (the side of), the longer before the shorter that ends
// them.
var nounParticles = []string{
	"이에요", "입니다", "에서", "으로", "까지", "부터", "에게", "한테", "처럼", "보다", "이나", "이랑", "예요",
	"에", "의", "은", "는", "이", "가", "을", "를", "로", "와", "과", "도", "만", "나", "랑", "쪽",
}

// districtMember is the lexicon member whose concepts a district's name
// names: an area.
const districtMember = "지역"

// isDistrict reports whether a Korean word (between spaces, a particle
// glued to it) is the name of a district: a noun of three syllables or
// more ending in 구 (강남구, 하이뎬구에), as Korean writes the districts of
// a city. Two syllables are common words (연구, 도구, 친구), never a name.
func isDistrict(w string) bool {
	for _, p := range nounParticles {
		if s, ok := strings.CutSuffix(w, p); ok && s != "" {
			w = s
			break
		}
	}
	n := 0
	for _, r := range w {
		if r < 0xAC00 || r > 0xD7A3 { // not a Hangul syllable
			return false
		}
		n++
	}
	last, _ := utf8.DecodeLastRuneInString(w)
	return n >= 3 && last == '구'
}

// matchDistricts calls fn with the concepts of districtMember for every
// word of run (a run of CJK text, as matchCJK takes it) that names a
// district and in which no member was found (spans, the members found),
// telling fn where the word is, in characters of run without its spaces.
func (lx *lexicon) matchDistricts(run string, spans []conceptSpan, fn func(at, n int, t uint64)) {
	terms := lx.cjk[districtMember]
	if len(terms) == 0 {
		return
	}
	at := 0 // characters of run before w, its spaces left out
	for rest := run; rest != ""; {
		rest = strings.TrimLeftFunc(rest, unicode.IsSpace)
		end := strings.IndexFunc(rest, unicode.IsSpace)
		if end < 0 {
			end = len(rest)
		}
		w := rest[:end]
		rest = rest[end:]
		from, n := at, utf8.RuneCountInString(w)
		at += n
		if n == 0 || !isDistrict(w) || covered(spans, from, from+n) {
			continue
		}
		for _, t := range terms {
			fn(from, n, t)
		}
	}
}

// covered reports whether a span of spans overlaps characters from to to.
func covered(spans []conceptSpan, from, to int) bool {
	for _, s := range spans {
		if s.from < to && s.to > from {
			return true
		}
	}
	return false
}
