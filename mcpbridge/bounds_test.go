package mcpbridge

import (
	"strings"
	"testing"
	"time"
)

// TestBadToolSkipped: a server listing a tool whose schema nests 5,000
// deep keeps its other tools, at once; the bad one is reported in the log.
func TestBadToolSkipped(t *testing.T) {
	var e exits
	cfg := stdioServer("s", "-handwritten=deep")
	cfg.Timeout = 30 * time.Second
	b := newBridge(t, &Options{Logger: e.logger()}, cfg)
	start := time.Now()
	discover(t, b)
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Discover() took %v, want no wait for the timeout", d)
	}
	if got := strings.Join(toolNamesOf(b.Tools()), ","); got != "after,before" {
		t.Errorf("Tools() = %s, want after,before", got)
	}
	if !strings.Contains(e.logs.String(), "nests too deeply; skipped") || !strings.Contains(e.logs.String(), "tool=deep") {
		t.Errorf("the log does not report the skipped tool:\n%s", e.logs.String())
	}
}

// TestMessageBound: a server whose tools/list line never ends is
// disconnected with an error naming the limit.
func TestMessageBound(t *testing.T) {
	b := newBridge(t, &Options{MaxMessageBytes: 2 << 20}, stdioServer("s", "-handwritten=endless"))
	start := time.Now()
	discover(t, b)
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Discover() took %v", d)
	}
	st := b.Status().Servers[0]
	if st.State != Disconnected || !strings.Contains(st.Error, "over 2097152 bytes") {
		t.Errorf("server = %v %q, want DISCONNECTED naming the limit", st.State, st.Error)
	}
}
