package result

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// escapePattern matches terminal escape sequences, so that their payload
// (a window title, a link target) goes with them: CSI (ESC [ ... final
// byte), OSC (ESC ] ... BEL or ST), DCS, SOS, PM and APC strings (ESC P,
// X, ^, _ ... ST), other two-byte escapes, and the 8-bit C1 forms of CSI,
// OSC and the strings. An unterminated string runs to the end of the text.
var escapePattern = regexp.MustCompile(
	"\x1b\\[[0-?]*[ -/]*[@-~]" +
		"|\x1b[\\]PX^_][^\x07\x1b\u009c]*(?:\x07|\x1b\\\\|\u009c)?" +
		"|\x1b[ -/]*[0-~]" +
		"|\u009b[0-?]*[ -/]*[@-~]" +
		"|[\u009d\u0090\u0098\u009e\u009f][^\x07\x1b\u009c]*(?:\x07|\x1b\\\\|\u009c)?")

// cutMark ends a text CleanText cut to a limit below noteFrom; from
// noteFrom on, a note says how much was cut.
const (
	cutMark  = "…"
	noteFrom = 256
)

// CleanText returns s, a text from a server or a model, as a person may
// safely see it on a terminal or a page: terminal escape sequences are
// removed with their payload, then every control character other than
// newline and tab, every bidirectional formatting character (which can
// make text read in another order than it is written), the zero-width
// characters that hide word boundaries (U+200B, U+2060, U+FEFF) and the
// invisible tag characters (U+E0000 to U+E007F); "\r\n" becomes "\n" and
// invalid UTF-8 becomes U+FFFD. Text longer than limit bytes is cut at a
// character boundary and ends, within limit, with "…" or, for a limit of
// 256 bytes or more, with a line saying how many bytes were cut ("[… 1200
// more bytes not shown]"); a negative limit means no limit. Clean text
// within the limit comes back unchanged, and cleaning twice changes
// nothing.
func CleanText(s string, limit int) string {
	if !clean(s) {
		s = strings.ReplaceAll(s, "\r\n", "\n")
		s = escapePattern.ReplaceAllString(strings.ToValidUTF8(s, "\uFFFD"), "")
		s = strings.Map(func(r rune) rune {
			if unwanted(r) {
				return -1
			}
			return r
		}, s)
	}
	if limit < 0 || len(s) <= limit {
		return s
	}
	mark := cutMark
	if limit >= noteFrom {
		// The note's length depends on the count, which depends on
		// where the cut falls: the longest count it can hold is assumed.
		mark = fmt.Sprintf("\n[… %d more bytes not shown]", len(s))
	} else if limit < len(cutMark) {
		return ""
	}
	cut := limit - len(mark)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	if limit >= noteFrom {
		mark = fmt.Sprintf("\n[… %d more bytes not shown]", len(s)-cut)
	}
	return s[:cut] + mark
}

// clean reports whether s is valid UTF-8 holding nothing CleanText
// removes, looking at ASCII bytes without decoding them.
func clean(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if (c < ' ' && c != '\n' && c != '\t') || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || unwanted(r) {
			return false
		}
		i += n
	}
	return true
}

// unwanted reports whether CleanText removes r.
func unwanted(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case unicode.IsControl(r), unicode.Is(unicode.Bidi_Control, r):
		return true
	}
	return r == '\u200b' || r == '\u2060' || r == '\ufeff' || r >= 0xE0000 && r <= 0xE007F
}
