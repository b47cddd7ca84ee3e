package result

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"
)

func cutNote(cut, total, bytes int) string {
	return fmt.Sprintf("[... %d of %d characters (%d bytes) cut from the middle ...]", cut, total, bytes)
}

func TestTextLimit(t *testing.T) {
	for _, tt := range []struct{ in, want int }{{0, DefaultTextLimit}, {-1, -1}, {-500, -1}, {1, 1}, {7, 7}} {
		if got := TextLimit(tt.in); got != tt.want {
			t.Errorf("TextLimit(%d) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func TestTruncateText(t *testing.T) {
	const limit = 10
	tests := []struct {
		name  string
		in    string
		limit int
		want  string
	}{
		{"limit-1", "abcdefghi", limit, "abcdefghi"},
		{"limit", "abcdefghij", limit, "abcdefghij"},
		{"limit+1", "abcdefghijk", limit, "abcde\n" + cutNote(1, 11, 1) + "\nghijk"},
		{"far over", strings.Repeat("x", 1000), limit, "xxxxx\n" + cutNote(990, 1000, 990) + "\nxxxxx"},
		{"odd limit gives head the extra", "abcdefghijk", 9, "abcde\n" + cutNote(2, 11, 2) + "\nhijk"},
		{"two-byte at limit", strings.Repeat("α", limit), limit, strings.Repeat("α", limit)},
		{"two-byte limit+1", strings.Repeat("α", limit+1), limit, "ααααα\n" + cutNote(1, 11, 2) + "\nααααα"},
		{"four-byte mix", "a😀b😀c😀d", 4, "a😀\n" + cutNote(3, 7, 6) + "\n😀d"},
		{"three-byte", "日本語のテキストです", 4, "日本\n" + cutNote(6, 10, 18) + "\nです"},
		{"invalid UTF-8 bytes count as characters", "\xff\xfe\xfdabc", 2, "\xff\n" + cutNote(4, 6, 4) + "\nc"},
		{"limit 1", "abc", 1, "a\n" + cutNote(2, 3, 2)},
		{"limit 0 leaves only the note", "0", 0, cutNote(1, 1, 1)},
		{"no limit", strings.Repeat("y", 50), -1, strings.Repeat("y", 50)},
		{"empty", "", limit, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Truncate(tt.in, tt.limit); got != tt.want {
				t.Errorf("Truncate(%q, %d) = %q, want %q", tt.in, tt.limit, got, tt.want)
			}
		})
	}
}

// TestTruncateTextKeepsLimit checks, for every limit up to the length of a
// mixed-width string, that exactly limit characters of it are kept, that
// the cut falls on character boundaries, and that the kept head and tail
// are the string's own.
func TestTruncateTextKeepsLimit(t *testing.T) {
	s := "aé日😀bç本🎉cdë語x"
	n := utf8.RuneCountInString(s)
	for limit := 1; limit <= n+1; limit++ {
		got := Truncate(s, limit)
		if !utf8.ValidString(got) {
			t.Errorf("Truncate(%q, %d) = %q, not valid UTF-8", s, limit, got)
		}
		if limit >= n {
			if got != s {
				t.Errorf("Truncate(%q, %d) = %q, want it unchanged", s, limit, got)
			}
			continue
		}
		head, rest, _ := strings.Cut(got, "\n")
		_, tail, _ := strings.Cut(rest, "\n")
		if k := utf8.RuneCountInString(head) + utf8.RuneCountInString(tail); k != limit {
			t.Errorf("Truncate(%q, %d) kept %d characters (%q + %q), want %d", s, limit, k, head, tail, limit)
		}
		if !strings.HasPrefix(s, head) || !strings.HasSuffix(s, tail) {
			t.Errorf("Truncate(%q, %d) = %q, head/tail not taken from the input", s, limit, got)
		}
	}
}

func TestTruncateParts(t *testing.T) {
	img := blob("image/png", 1)
	tests := []struct {
		name  string
		in    []*genai.Part
		limit int
		want  []*genai.Part
	}{{
		name:  "fits with separators",
		in:    []*genai.Part{text("abcd"), img, text("efgh")},
		limit: 9,
		want:  []*genai.Part{text("abcd"), img, text("efgh")},
	}, {
		name:  "one over with separator",
		in:    []*genai.Part{text("abcd"), text("efgh")},
		limit: 8,
		want:  []*genai.Part{text("abcd"), text(cutNote(1, 9, 1)), text("efgh")},
	}, {
		name:  "middle parts dropped, data kept",
		in:    []*genai.Part{text("0123"), text("drop me"), img, text("me too"), text("wxyz")},
		limit: 8,
		want:  []*genai.Part{text("0123"), text(cutNote(16, 24, 16)), img, text("wxyz")},
	}, {
		name:  "cut inside parts",
		in:    []*genai.Part{text("0123456789"), text("abcdefghij")},
		limit: 6,
		want:  []*genai.Part{text("012"), text(cutNote(15, 21, 15)), text("hij")},
	}, {
		name:  "cut starts at a part boundary",
		in:    []*genai.Part{text("abc"), text("defghij"), text("klm")},
		limit: 7,
		want:  []*genai.Part{text("abc"), text(cutNote(8, 15, 8)), text("klm")},
	}, {
		name:  "empty parts",
		in:    []*genai.Part{text(""), text("abcdefgh"), text("")},
		limit: 4,
		want:  []*genai.Part{text(""), text("a"), text(cutNote(6, 10, 6)), text("h"), text("")},
	}, {
		name:  "multi-byte across parts",
		in:    []*genai.Part{text("ééé"), text("ööö")},
		limit: 4,
		want:  []*genai.Part{text("éé"), text(cutNote(3, 7, 5)), text("öö")},
	}, {
		name:  "only data",
		in:    []*genai.Part{img, img},
		limit: 1,
		want:  []*genai.Part{img, img},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := cloneParts(tt.in)
			got := TruncateParts(tt.in, tt.limit)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("TruncateParts(%d) (-want +got):\n%s", tt.limit, diff)
			}
			if diff := cmp.Diff(before, tt.in); diff != "" {
				t.Errorf("truncateParts modified its input (-before +after):\n%s", diff)
			}
		})
	}
}

func cloneParts(ps []*genai.Part) []*genai.Part {
	out := make([]*genai.Part, len(ps))
	for i, p := range ps {
		c := *p
		out[i] = &c
	}
	return out
}

func TestJoinText(t *testing.T) {
	got := JoinText([]*genai.Part{nil, text("a"), blob("x/y"), text(""), {FunctionCall: &genai.FunctionCall{}}, text("b")})
	if want := "a\n\nb"; got != want {
		t.Errorf("joinText = %q, want %q", got, want)
	}
}

func BenchmarkTruncateText(b *testing.B) {
	s := strings.Repeat("línea de registro número 12345\n", 20_000) // ~640k characters
	for b.Loop() {
		Truncate(s, DefaultTextLimit)
	}
}

// FuzzTruncateText checks that a cut keeps exactly limit characters of the
// input, head and tail taken from it, and valid UTF-8 stays valid.
func FuzzTruncateText(f *testing.F) {
	f.Add("aé日😀bç本🎉cdë語x", 5)
	f.Add("\xff\xfeabc", 2)
	f.Fuzz(func(t *testing.T, s string, limit int) {
		limit %= 64
		got := Truncate(s, limit)
		n := utf8.RuneCountInString(s)
		if limit < 0 || n <= limit {
			if got != s {
				t.Fatalf("Truncate(%q, %d) = %q, want it unchanged", s, limit, got)
			}
			return
		}
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Fatalf("Truncate(%q, %d) = %q, not valid UTF-8", s, limit, got)
		}
		note := fmt.Sprintf("[... %d of %d characters", n-limit, n)
		i := strings.Index(got, note)
		if i < 0 || (i > 0 && got[i-1] != '\n') {
			t.Fatalf("Truncate(%q, %d) = %q, no note %q on a line of its own", s, limit, got, note)
		}
		head := strings.TrimSuffix(got[:i], "\n") // no head (and no line break) when limit is 0
		tail := ""
		if j := strings.Index(got[i:], "\n"); j >= 0 {
			tail = got[i+j+1:]
		}
		if !strings.HasPrefix(s, head) || !strings.HasSuffix(s, tail) ||
			utf8.RuneCountInString(head)+utf8.RuneCountInString(tail) != limit {
			t.Fatalf("Truncate(%q, %d) = %q: head %q + tail %q, want %d characters of the input", s, limit, got, head, tail, limit)
		}
	})
}
