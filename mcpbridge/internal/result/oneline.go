package result

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// OneLine returns s, a server's text (a tool's description), on one line
// for a person, cut to at most limit characters (code points); a negative
// limit means no limit. Runs of white space, control and bidirectional
// formatting characters and invalid UTF-8 become one space, and the ends
// are trimmed, so the text can neither break a layout nor send escape
// sequences to a terminal. A cut falls at the last space of the kept text
// when that keeps at least half of it, and "…" (counted in limit) marks
// it. OneLine is idempotent for a given limit.
func OneLine(s string, limit int) string {
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) || r == utf8.RuneError
	}), " ")
	if limit < 0 || utf8.RuneCountInString(s) <= limit {
		return s
	}
	if limit == 0 {
		return ""
	}
	cut := string([]rune(s)[:limit-1]) // s is valid UTF-8: FieldsFunc split at every RuneError
	if i := strings.LastIndexByte(cut, ' '); i > 0 && utf8.RuneCountInString(cut[:i]) >= (limit-1)/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ") + "…"
}
