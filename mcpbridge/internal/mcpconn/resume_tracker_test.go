package mcpconn

import (
	"strings"
	"testing"
	"time"
)

func TestSSETracker(t *testing.T) {
	tests := []struct {
		name   string
		chunks []string
		id     string
		retry  time.Duration
		ok     bool
	}{
		{"priming event", []string{"id: e1\nretry: 500\ndata: \n\n"}, "e1", 500 * time.Millisecond, true},
		{"split anywhere", []string{"i", "d: e", "1\r", "\nret", "ry: 5", "00\r\n\r", "\n"}, "e1", 500 * time.Millisecond, true},
		{"the last whole event counts", []string{"id: a\nretry: 10\n\nid: b\ndata: x\n\nid: c\ndata: partial"}, "b", 10 * time.Millisecond, false},
		{"ended mid-event", []string{"id: a\nretry: 10\ndata: x\n"}, "", 10 * time.Millisecond, false},
		{"no retry", []string{"id: a\ndata: x\n\n"}, "a", 0, false},
		{"no id", []string{"retry: 10\ndata: x\n\n"}, "", 10 * time.Millisecond, false},
		{"bad retry ignored", []string{"retry: soon\nid: a\n\n"}, "a", 0, false},
		{"retry past 32 bits ignored", []string{"retry: 99999999999\nid: a\n\n"}, "a", 0, false},
		{"retry capped", []string{"retry: 3600000\nid: a\n\n"}, "a", maxRetry, true},
		{"id with NUL ignored", []string{"retry: 10\nid: a\x00b\n\n"}, "", 10 * time.Millisecond, false},
		{"long line is no field", []string{"retry: 10\nid: " + strings.Repeat("x", maxFieldLine) + "\n\n"}, "", 10 * time.Millisecond, false},
		{"nothing", nil, "", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s sseTracker
			for _, c := range tt.chunks {
				s.feed([]byte(c))
			}
			id, retry, ok := s.resumable()
			if ok != tt.ok || (ok && (id != tt.id || retry != tt.retry)) || s.retry != tt.retry {
				t.Errorf("resumable() = %q, %v, %v (retry %v); want %q, %v, %v", id, retry, ok, s.retry, tt.id, tt.retry, tt.ok)
			}
		})
	}
}

// FuzzSSETracker: any bytes, fed in any two pieces, give the same verdict
// as fed at once, never an id with a line end or NUL, never a retry past
// maxRetry.
func FuzzSSETracker(f *testing.F) {
	f.Add([]byte("id: e1\nretry: 500\ndata: \n\n"), 3)
	f.Add([]byte("id: a\r\nretry: 10\r\n\r\nid: b\ndata: x"), 12)
	f.Fuzz(func(t *testing.T, b []byte, cut int) {
		var whole, split sseTracker
		whole.feed(b)
		if cut < 0 {
			cut = -cut
		}
		cut %= len(b) + 1
		split.feed(b[:cut])
		split.feed(b[cut:])
		id, retry, ok := whole.resumable()
		id2, retry2, ok2 := split.resumable()
		if id != id2 || retry != retry2 || ok != ok2 {
			t.Fatalf("whole: %q %v %v; split at %d: %q %v %v", id, retry, ok, cut, id2, retry2, ok2)
		}
		if strings.ContainsAny(id, "\r\n\x00") || retry < 0 || retry > maxRetry {
			t.Fatalf("resumable() = %q, %v", id, retry)
		}
	})
}
