package mcpconn

import (
	"strings"
	"testing"
)

func TestTailOfText(t *testing.T) {
	tests := []struct {
		name, in   string
		lines, max int
		want       string
	}{
		{"short", "a\nb\n", 0, 10, "a\nb\n"},
		{"cut at a line", "first line\nsecond\nthird\n", 0, 12, "third\n"},
		{"one long line", strings.Repeat("x", 20), 0, 5, "xxxxx"},
		{"empty", "", 3, 5, ""},
		{"last lines", "1\n2\n3\n4", 2, 0, "3\n4"},
		{"last lines, trailing break kept", "1\n2\n3\n", 2, 0, "2\n3\n"},
		{"fewer lines than asked", "1\n2", 5, 0, "1\n2"},
		{"lines then bytes", "aaaa\nbb\ncc\ndd", 3, 6, "cc\ndd"},
		{"no limits", "x\ny", 0, 0, "x\ny"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Tail(tc.in, tc.lines, tc.max); got != tc.want {
				t.Errorf("Tail(%q, %d, %d) = %q, want %q", tc.in, tc.lines, tc.max, got, tc.want)
			}
		})
	}
}
