package result

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCleanText(t *testing.T) {
	tests := []struct {
		name, in, want string
		limit          int
	}{
		{"plain", "plain text\nsecond line\tok", "plain text\nsecond line\tok", -1},
		{"colours and a screen clear", "\x1b[31mred\x1b[0m and \x1b[2J\x1b[Hclear", "red and clear", -1},
		{"osc 8 link", "link \x1b]8;;https://evil\x07here\x1b]8;;\x1b\\", "link here", -1},
		{"window title", "\x1b]0;rm -rf ~\x07done", "done", -1},
		{"unterminated title", "ok\x1b]2;all the rest", "ok", -1},
		{"dcs string", "a\x1bPq#0;2;0;0;0\x1b\\b", "ab", -1},
		{"charset escape", "a\x1b(Bb\x1bMc", "abc", -1},
		{"c0 controls", "over\rwrite\x00 and \x08back\x7f", "overwrite and back", -1},
		{"windows line ends", "windows\r\nline", "windows\nline", -1},
		{"8-bit csi", "\u009b31mcsi", "csi", -1},
		{"8-bit osc", "\u009d0;title\u009cafter", "after", -1},
		{"bidi overrides", "pay \u202etxt.exe\u202c and \u2066x\u2069", "pay txt.exe and x", -1},
		{"zero width", "a\u200bb\u2060c\ufeffd", "abcd", -1},
		{"tag characters", "hi\U000E0041\U000E0042 there", "hi there", -1},
		{"zwj kept", "👩\u200d💻", "👩\u200d💻", -1},
		{"invalid utf-8", "bad \xff byte", "bad \uFFFD byte", -1},
		{"cut", "abcdefghij", "abcdef…", 9},
		{"cut before a rune", "ééééé", "éé…", 7},
		{"within the limit", "abc", "abc", 3},
		{"limit below the mark", "abcdef", "", 2},
		{"cut with a note", strings.Repeat("x", 300), strings.Repeat("x", 225) + "\n[… 75 more bytes not shown]", 256},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CleanText(tt.in, tt.limit)
			if got != tt.want {
				t.Errorf("CleanText(%q, %d) = %q, want %q", tt.in, tt.limit, got, tt.want)
			}
			if again := CleanText(got, tt.limit); again != got {
				t.Errorf("CleanText(CleanText(%q)) = %q, want %q", tt.in, again, got)
			}
		})
	}
}

// FuzzCleanText: for any text and limit, no panic; the result is valid
// UTF-8 within the limit, holds no escape (ESC or its 8-bit forms), no
// control other than newline and tab and nothing else CleanText removes;
// and cleaning it again changes nothing.
func FuzzCleanText(f *testing.F) {
	for _, s := range []string{"plain", "a\x1b[0mb", "\x1b]8;;u\x07t\x1b]8;;\x07", "\u202e\u2066x", "\xff\xfe", "line\r\nnext\ttab", "\u009b1m\u009dx\u009c"} {
		f.Add(s, -1)
		f.Add(s, 4)
	}
	f.Fuzz(func(t *testing.T, s string, limit int) {
		c := CleanText(s, limit)
		if !utf8.ValidString(c) {
			t.Fatalf("CleanText(%q, %d) = %q: invalid UTF-8", s, limit, c)
		}
		if limit >= 0 && len(c) > limit {
			t.Fatalf("CleanText(%q, %d) = %q: %d bytes", s, limit, c, len(c))
		}
		if i := strings.IndexFunc(c, unwanted); i >= 0 {
			t.Fatalf("CleanText(%q, %d) = %q: %q left at %d", s, limit, c, c[i:], i)
		}
		if again := CleanText(c, limit); again != c {
			t.Fatalf("CleanText not idempotent: %q -> %q -> %q", s, c, again)
		}
	})
}

func BenchmarkCleanTextClean(b *testing.B) {
	s := strings.Repeat("ordinary tool output, naïve café\n", 1000)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		if CleanText(s, -1) != s {
			b.Fatal("changed clean text")
		}
	}
}
