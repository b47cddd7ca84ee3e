package result

import (
	"regexp"
	"strings"
	"unicode"
)

// ansiPattern matches terminal escape sequences: CSI (ESC [ ... final byte),
// OSC (ESC ] ... BEL or ESC \) and two-byte escapes.
var ansiPattern = regexp.MustCompile("\x1b\\[[0-?]*[ -/]*[@-~]|\x1b\\][^\x07\x1b]*(?:\x07|\x1b\\\\)?|\x1b[@-Z\\\\-_]|\u009b[0-?]*[ -/]*[@-~]")

// CleanText returns s without terminal escape sequences and control
// characters other than newline and tab, so that a server's text (a tool's
// description) can neither drive a terminal nor hide words from a person
// reading it. "\r\n" becomes "\n". It is idempotent.
func CleanText(s string) string {
	if strings.IndexFunc(s, func(r rune) bool { return unicode.IsControl(r) && r != '\n' && r != '\t' }) < 0 {
		return s
	}
	s = ansiPattern.ReplaceAllString(s, "")
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) && r != '\n' && r != '\t' {
			return -1
		}
		return r
	}, s)
}
