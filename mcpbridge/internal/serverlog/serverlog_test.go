package serverlog

import (
	"log/slog"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestLevel(t *testing.T) {
	tests := []struct {
		name string
		want slog.Level
	}{
		{"debug", slog.LevelDebug}, {"info", slog.LevelInfo}, {"notice", slog.LevelInfo + 2},
		{"warning", slog.LevelWarn}, {"error", slog.LevelError}, {"critical", slog.LevelError + 1},
		{"alert", slog.LevelError + 2}, {"emergency", slog.LevelError + 3}, {"loud", slog.LevelInfo}, {"", slog.LevelInfo},
	}
	for _, tc := range tests {
		if got := Level(tc.name); got != tc.want {
			t.Errorf("Level(%q) = %v, want %v", tc.name, got, tc.want)
		}
		if Valid(tc.name) != (tc.name != "loud" && tc.name != "") {
			t.Errorf("Valid(%q) = %v", tc.name, Valid(tc.name))
		}
	}
}

func TestText(t *testing.T) {
	tests := []struct {
		data any
		want string
	}{
		{"disk full", "disk full"},
		{"two\nlines\x1b[31m \u202eevil", "two lines [31m evil"},
		{map[string]any{"code": 7.0, "msg": "x"}, `{"code":7,"msg":"x"}`},
		{nil, "null"},
		{strings.Repeat("é", MaxText), strings.Repeat("é", (MaxText-len("…"))/2) + "…"},
	}
	for _, tc := range tests {
		if got := Text(tc.data); got != tc.want {
			t.Errorf("Text(%v) = %q, want %q", tc.data, got, tc.want)
		}
	}
}

// FuzzText: one valid line within MaxText, free of control and
// bidirectional characters, for any string.
func FuzzText(f *testing.F) {
	for _, s := range []string{"plain", "a\nb", "\u202e\xff", strings.Repeat("ü", 3000)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Text(s)
		if len(got) > MaxText || !utf8.ValidString(got) || strings.IndexFunc(got, func(r rune) bool {
			return r == '\n' || unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r)
		}) >= 0 {
			t.Fatalf("Text(%q) = %q", s, got)
		}
		if again := Text(got); again != got {
			t.Fatalf("Text not idempotent: %q -> %q", got, again)
		}
	})
}
