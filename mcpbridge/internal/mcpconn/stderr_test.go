package mcpconn

import (
	"bytes"
	"io"
	"log/slog"
	"strings"
	"testing"
)

func TestTail(t *testing.T) {
	for _, tc := range []struct {
		name   string
		limit  int
		writes []string
		want   string
	}{
		{"empty", 10, nil, ""},
		{"under limit", 10, []string{"ab\n", "cd\n"}, "ab\ncd\n"},
		{"over limit drops the partial first line", 8, []string{"line1\n", "line2\n", "line3\n"}, "line3\n"},
		{"one huge write", 6, []string{strings.Repeat("x", 100) + "\nabc\n"}, "abc\n"},
		{"cut exactly at a line boundary", 7, []string{"abc\n", "def\n", "gh\n"}, "def\ngh\n"},
		{"one long line is cut, nothing left", 4, []string{"abcdefgh"}, "efgh"},
		{"many writes stay bounded", 12, []string{"a\n", "b\n", "c\n", "d\n", "e\n", "f\n", "g\n", "h\n", "i\n"}, "d\ne\nf\ng\nh\ni\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tl := newTail(tc.limit)
			for _, w := range tc.writes {
				if n, err := tl.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write(%q) = %d, %v, want %d, nil", w, n, err, len(w))
				}
				if len(tl.buf) > 2*(tc.limit+1) {
					t.Fatalf("buffer grew to %d, want <= %d", len(tl.buf), 2*(tc.limit+1))
				}
			}
			if got := tl.String(); got != tc.want {
				t.Errorf("String() = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestDrainStderr(t *testing.T) {
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	long := strings.Repeat("y", 100000)
	in := "first\r\n" + long + "\nlast without newline"
	tl := newTail(1 << 20)
	drainStderr(io.NopCloser(strings.NewReader(in)), tl, log)
	if got := tl.String(); got != in {
		t.Errorf("tail = %d bytes, want all %d", len(got), len(in))
	}
	out := logs.String()
	for _, want := range []string{"line=first\n", "line=" + strings.Repeat("y", maxLogLine) + "\n", `line="last without newline"`} {
		if !strings.Contains(out, want) {
			t.Errorf("logs = %.300q..., want them to contain %.80q", out, want)
		}
	}
	if strings.Contains(out, strings.Repeat("y", maxLogLine+1)) {
		t.Errorf("a log line exceeds %d bytes", maxLogLine)
	}
}
