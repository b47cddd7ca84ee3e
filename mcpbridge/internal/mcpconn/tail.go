package mcpconn

import "strings"

// Tail returns the end of s, a server's stderr or any text of lines: its
// last lines lines (all of them when lines <= 0), then, when that is longer
// than max bytes (max > 0), its last max bytes without the partial line
// they start with, if any (a single line longer than max is cut). Tail is
// the one place that decides how much of a server's stderr is shown.
func Tail(s string, lines, max int) string {
	if lines > 0 {
		// Walk back over lines+1 line breaks at most, never past a
		// trailing one: "a\nb\n" has two lines.
		end := len(strings.TrimSuffix(s, "\n"))
		i := end
		for n := 0; n < lines && i >= 0; n++ {
			i = strings.LastIndexByte(s[:i], '\n')
		}
		if i >= 0 {
			s = s[i+1:]
		}
	}
	if max > 0 && len(s) > max {
		cutAtLine := s[len(s)-max-1] == '\n'
		s = s[len(s)-max:]
		if i := strings.IndexByte(s, '\n'); !cutAtLine && i >= 0 {
			s = s[i+1:]
		}
	}
	return s
}
