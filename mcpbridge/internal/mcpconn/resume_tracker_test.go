package mcpconn

import (
	"strings"
	"testing"
	"time"
)

// TestSSETracker: the id to resume from, the delay and whether the stream
// ended between events, as the SSE specification reads the fields.
func TestSSETracker(t *testing.T) {
	tests := []struct {
		name     string
		chunks   []string
		id       string
		delay    time.Duration
		boundary bool
		events   int
	}{
		{"priming event", []string{"id: e1\nretry: 500\ndata: \n\n"}, "e1", 500 * time.Millisecond, true, 1},
		{"split anywhere", []string{"i", "d: e", "1\r", "\nret", "ry: 5", "00\r\n\r", "\n"}, "e1", 500 * time.Millisecond, true, 1},
		{"bare CR line ends", []string{"id: e1\rretry: 500\r\r"}, "e1", 500 * time.Millisecond, false, 1},
		{"the last dispatched id counts", []string{"id: a\nretry: 10\n\nid: b\ndata: x\n\nid: c\ndata: partial"}, "b", minResumeDelay, false, 2},
		{"an event without id keeps the id", []string{"id: a\ndata: x\n\ndata: y\n\n"}, "a", defaultResumeDelay, true, 2},
		{"an empty id clears it", []string{"id: a\ndata: x\n\nid:\ndata: y\n\n"}, "", defaultResumeDelay, true, 2},
		{"ended mid-event", []string{"id: a\nretry: 10\ndata: x\n"}, "", minResumeDelay, false, 0},
		{"no retry", []string{"id: a\ndata: x\n\n"}, "a", defaultResumeDelay, true, 1},
		{"retry alone is no event", []string{"retry: 200\n\n"}, "", 200 * time.Millisecond, true, 0},
		{"comment", []string{"id: a\n\n: keepalive\n"}, "a", defaultResumeDelay, true, 1},
		{"bad retry ignored", []string{"retry: soon\nid: a\n\n"}, "a", defaultResumeDelay, true, 1},
		{"signed retry ignored", []string{"retry: +5\nid: a\n\n"}, "a", defaultResumeDelay, true, 1},
		{"huge retry capped", []string{"retry: 99999999999999999999999\nid: a\n\n"}, "a", maxResumeDelay, true, 1},
		{"retry capped", []string{"retry: 3600000\nid: a\n\n"}, "a", maxResumeDelay, true, 1},
		{"id with NUL ignored", []string{"retry: 10\nid: a\x00b\n\n"}, "", minResumeDelay, true, 1},
		{"field without colon", []string{"data\nid: a\n\n"}, "a", defaultResumeDelay, true, 1},
		{"long id line is no id", []string{"id: " + strings.Repeat("x", maxFieldLine) + "\n\n"}, "", defaultResumeDelay, true, 0},
		{"long data line is an event", []string{"id: a\ndata: " + strings.Repeat("x", 3*maxFieldLine) + "\n\n"}, "a", defaultResumeDelay, true, 1},
		{"nothing", nil, "", defaultResumeDelay, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s sseTracker
			for _, c := range tt.chunks {
				s.feed([]byte(c))
			}
			id, ok := s.lastID()
			if id != tt.id || ok != (tt.id != "") || s.delay() != tt.delay || s.atBoundary() != tt.boundary || s.dispatched != tt.events {
				t.Errorf("lastID() = %q, %v; delay() = %v; atBoundary() = %v; dispatched = %d; want %q, %v, %v, %d",
					id, ok, s.delay(), s.atBoundary(), s.dispatched, tt.id, tt.delay, tt.boundary, tt.events)
			}
			if cap(s.line) > maxFieldLine {
				t.Errorf("line buffer grew to %d bytes, want at most %d", cap(s.line), maxFieldLine)
			}
		})
	}
}

// FuzzSSETracker: any bytes, fed in any two pieces, give the same verdict
// as fed at once; the id never holds a line end or NUL, the delay stays
// within its bounds and the line buffer within maxFieldLine.
func FuzzSSETracker(f *testing.F) {
	f.Add([]byte("id: e1\nretry: 500\ndata: \n\n"), 3)
	f.Add([]byte("id: a\r\nretry: 10\r\n\r\nid: b\ndata: x"), 12)
	f.Add([]byte("id:00\r\n0"), 42)
	f.Fuzz(func(t *testing.T, b []byte, cut int) {
		var whole, split sseTracker
		whole.feed(b)
		if cut < 0 {
			cut = -cut
		}
		if cut < 0 { // the smallest int
			cut = 0
		}
		cut %= len(b) + 1
		split.feed(b[:cut])
		split.feed(b[cut:])
		id, ok := whole.lastID()
		id2, ok2 := split.lastID()
		if id != id2 || ok != ok2 || whole.delay() != split.delay() || whole.atBoundary() != split.atBoundary() || whole.dispatched != split.dispatched {
			t.Fatalf("whole: %q %v %v %v %d; split at %d: %q %v %v %v %d", id, ok, whole.delay(), whole.atBoundary(), whole.dispatched,
				cut, id2, ok2, split.delay(), split.atBoundary(), split.dispatched)
		}
		if strings.ContainsAny(id, "\r\n\x00") {
			t.Fatalf("lastID() = %q", id)
		}
		if d := whole.delay(); d < minResumeDelay || d > maxResumeDelay {
			t.Fatalf("delay() = %v", d)
		}
		if cap(whole.line) > maxFieldLine || cap(split.line) > maxFieldLine {
			t.Fatalf("line buffer %d/%d bytes", cap(whole.line), cap(split.line))
		}
	})
}
