package result

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestOneLine(t *testing.T) {
	tests := []struct {
		name, in string
		limit    int
		want     string
	}{
		{"short", "Adds two numbers.", 100, "Adds two numbers."},
		{"empty", "", 100, ""},
		{"only white space", " \n\t ", 100, ""},
		{"lines joined", "First line.\n\n  Second line.", 100, "First line. Second line."},
		{"exactly the limit", "abcde", 5, "abcde"},
		{"cut at a word", "one two three four", 12, "one two…"},
		{"cut inside a long word", "abcdefghijklmnop", 6, "abcde…"},
		{"word boundary too early", "a bcdefghijklmnop", 8, "a bcdef…"},
		{"runes, not bytes", "日本語のテキストです", 5, "日本語の…"},
		{"limit one", "abc", 1, "…"},
		{"limit zero", "abc", 0, ""},
		{"no limit", strings.Repeat("word ", 100), -1, strings.TrimSpace(strings.Repeat("word ", 100))},
		{"escape sequences", "red \x1b[31mtext\x1b[0m", 100, "red [31mtext [0m"},
		{"bidi override", "safe\u202eexe.txt", 100, "safe exe.txt"},
		{"invalid UTF-8", "ok\xff\xfedone", 100, "ok done"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := OneLine(tt.in, tt.limit)
			if got != tt.want {
				t.Errorf("OneLine(%q, %d) = %q, want %q", tt.in, tt.limit, got, tt.want)
			}
			if tt.limit >= 0 && utf8.RuneCountInString(got) > tt.limit {
				t.Errorf("OneLine(%q, %d) = %d characters, want at most %d", tt.in, tt.limit, utf8.RuneCountInString(got), tt.limit)
			}
		})
	}
}

// FuzzOneLine checks that the text is always one line of printable text
// within the limit, and that shortening it again changes nothing.
func FuzzOneLine(f *testing.F) {
	f.Add("Adds two numbers.", uint16(100))
	f.Add("line one\r\n\tline two \x1b[31m red\u202e", uint16(12))
	f.Add("日本語のテキストです", uint16(5))
	f.Add("ok\xff\xfe done  ", uint16(0))
	f.Fuzz(func(t *testing.T, d string, l uint16) {
		limit := int(l%300) - 1 // -1 (no limit) to 298
		got := OneLine(d, limit)
		if limit >= 0 && utf8.RuneCountInString(got) > limit {
			t.Fatalf("OneLine(%q, %d) = %q: %d characters", d, limit, got, utf8.RuneCountInString(got))
		}
		if !utf8.ValidString(got) || strings.Contains(got, "  ") || strings.TrimSpace(got) != got {
			t.Fatalf("OneLine(%q, %d) = %q: not one clean line", d, limit, got)
		}
		for _, r := range got {
			if r != ' ' && (unicode.IsSpace(r) || unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r)) {
				t.Fatalf("OneLine(%q, %d) = %q holds %U", d, limit, got, r)
			}
		}
		if again := OneLine(got, limit); again != got {
			t.Fatalf("OneLine twice = %q, once = %q", again, got)
		}
	})
}
