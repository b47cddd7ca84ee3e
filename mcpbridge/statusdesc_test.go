package mcpbridge

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestShortDescription(t *testing.T) {
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
			got := shortDescription(tt.in, tt.limit)
			if got != tt.want {
				t.Errorf("shortDescription(%q, %d) = %q, want %q", tt.in, tt.limit, got, tt.want)
			}
			if tt.limit >= 0 && utf8.RuneCountInString(got) > tt.limit {
				t.Errorf("shortDescription(%q, %d) = %d characters, want at most %d", tt.in, tt.limit, utf8.RuneCountInString(got), tt.limit)
			}
		})
	}
}

// TestStatusToolDescriptions checks that the status of a real server
// carries its tools' descriptions, whole, under their registered names.
func TestStatusToolDescriptions(t *testing.T) {
	b := newBridge(t, nil, stdioServer("first", "-tools=1"), stdioServer("second", "-tools=1"))
	discover(t, b)
	st := b.Status()
	for i, prefix := range []string{"", "second__"} {
		want := map[string]string{
			prefix + "tool_00": "numbered tool tool_00",
			prefix + "echo":    "echoes its arguments",
			prefix + "raw":     "tool with a raw schema",
		}
		got := st.Servers[i].ToolDescriptions
		for name := range got {
			if _, ok := want[name]; !ok {
				delete(got, name) // tools the test does not look at
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("server %s ToolDescriptions (-want +got):\n%s", st.Servers[i].Name, diff)
		}
		for name := range st.Servers[i].ToolDescriptions {
			if !strings.HasPrefix(name, prefix) {
				t.Errorf("server %s: description under %q, not a registered name", st.Servers[i].Name, name)
			}
		}
	}
	text := new(strings.Builder)
	if err := st.WriteText(text, &TextOptions{Descriptions: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "    - second__echo: echoes its arguments\n") {
		t.Errorf("WriteText(Descriptions) lacks second__echo's line:\n%s", text)
	}
}

// FuzzShortDescription checks that a description in the text status is
// always one line of printable text within the limit, and that shortening
// it again changes nothing.
func FuzzShortDescription(f *testing.F) {
	f.Add("Adds two numbers.", uint16(100))
	f.Add("line one\r\n\tline two \x1b[31m red\u202e", uint16(12))
	f.Add("日本語のテキストです", uint16(5))
	f.Add("ok\xff\xfe done  ", uint16(0))
	f.Fuzz(func(t *testing.T, d string, l uint16) {
		limit := int(l%300) - 1 // -1 (no limit) to 298
		got := shortDescription(d, limit)
		if limit >= 0 && utf8.RuneCountInString(got) > limit {
			t.Fatalf("shortDescription(%q, %d) = %q: %d characters", d, limit, got, utf8.RuneCountInString(got))
		}
		if !utf8.ValidString(got) || strings.Contains(got, "  ") || strings.TrimSpace(got) != got {
			t.Fatalf("shortDescription(%q, %d) = %q: not one clean line", d, limit, got)
		}
		for _, r := range got {
			if r != ' ' && (unicode.IsSpace(r) || unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r)) {
				t.Fatalf("shortDescription(%q, %d) = %q holds %U", d, limit, got, r)
			}
		}
		if again := shortDescription(got, limit); again != got {
			t.Fatalf("shortDescription twice = %q, once = %q", again, got)
		}
	})
}
