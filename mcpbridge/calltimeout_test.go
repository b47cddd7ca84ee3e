package mcpbridge

import (
	"testing"
	"time"
)

// shortenCallTimeout sets the per-call timeout of the registered tools of
// server to d, after the server connected with its configured (generous)
// timeout. A test of a short call timeout thus does not also need the
// server to start and list its tools within d, which a loaded machine
// cannot promise. Connecting, listing and reconnecting keep the configured
// timeout; a re-list of the server's tools restores it. Call it before the
// calls it should bound.
func shortenCallTimeout(t *testing.T, b *Bridge, server string, d time.Duration) {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	n := 0
	for i, tool := range b.sorted {
		if tool.Server != server {
			continue
		}
		short := *tool
		short.Timeout = d
		b.sorted[i], b.tools[tool.Name] = &short, &short
		n++
	}
	if n == 0 {
		t.Fatalf("shortenCallTimeout(%q): the server has no registered tools", server)
	}
}
