package mcpbridge

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
)

// lists counts the tools/list requests h has received.
func lists(h *testserver.HTTP) int {
	return len(slices.DeleteFunc(h.Header(mcp.HeaderMethod), func(m string) bool { return m != string(mcp.MethodToolsList) }))
}

// TestToolsTTL: a 2026-07-28 server's public tools list with a ttlMs is
// taken from the protocol cache by a later run while it is fresh, without
// a tools/list; a list_changed replaces it; a private list is not kept
// across runs.
func TestToolsTTL(t *testing.T) {
	for _, public := range []bool{true, false} {
		name := map[bool]string{true: "public", false: "private"}[public]
		t.Run(name, func(t *testing.T) {
			srv, h := httpServer(t, "ttl", TransportHTTP, testserver.Options{Era: testserver.EraModern, ToolsTTL: time.Hour, ToolsPublic: public})
			srv.Trust = true
			path := filepath.Join(t.TempDir(), "protocols.json")
			run := func() *Bridge {
				t.Helper()
				b := newBridge(t, &Options{ProtocolCache: path}, srv)
				discover(t, b)
				if _, ok := b.Tool("echo"); !ok {
					t.Fatalf("Tools() = %v, want echo among them", toolNamesOf(b.Tools()))
				}
				return b
			}
			first := run()
			_ = first.Close()
			n := lists(h)
			if n == 0 {
				t.Fatal("the first run sent no tools/list")
			}

			second := run()
			if got := lists(h); public && got != n {
				t.Errorf("the second run sent %d tools/list, want none (the list is fresh for an hour)", got-n)
			} else if !public && got == n {
				t.Error("the second run sent no tools/list for a private list, want one")
			}
			if r := execOne(t, second, "echo", map[string]any{"text": "kept"}); r.Err != nil {
				t.Errorf("echo from the kept list = %v", r.Err)
			}
			if !public {
				return
			}
			// A change replaces the kept list, in memory and on disk.
			if r := execOne(t, second, "add_tool", map[string]any{"name": "late"}); r.Err != nil {
				t.Fatalf("add_tool = %v", r.Err)
			}
			waitTool(t, second, "late")
			_ = second.Close()
			n = lists(h)
			third := run()
			if _, ok := third.Tool("late"); !ok || lists(h) != n {
				t.Errorf("third run: tools %v after %d tools/list, want late among them from the kept list", toolNamesOf(third.Tools()), lists(h)-n)
			}
		})
	}
}

// TestToolsKeptUntilSubscribed: a kept tools list stands for a tools/list
// only once the server has acknowledged the connection's subscription to
// its changes; before that, a change (here a tool added right after
// Discover, while the server holds the subscriptions/listen request)
// would reach neither the kept list nor the connection. Unacknowledged,
// the Bridge lists the tools instead, reads them again when the
// acknowledgement comes, and so finds the tool. Taking the kept list at
// once lost it (TestToolsTTL failed one run in ten: the tools/call reached
// the server before the subscriptions/listen).
func TestToolsKeptUntilSubscribed(t *testing.T) {
	srv, h := httpServer(t, "ttl", TransportHTTP, testserver.Options{Era: testserver.EraModern, ToolsTTL: time.Hour, ToolsPublic: true})
	srv.Trust = true
	path := filepath.Join(t.TempDir(), "protocols.json")
	first := newBridge(t, &Options{ProtocolCache: path}, srv)
	discover(t, first)
	_ = first.Close()

	arrived, release := h.Hold(string(mcp.MethodSubscriptionsListen))
	defer release()
	n := lists(h)
	second := newBridge(t, &Options{ProtocolCache: path}, srv)
	discover(t, second)
	select {
	case <-arrived:
	case <-time.After(10 * time.Second):
		t.Fatal("no subscriptions/listen reached the server")
	}
	if got := lists(h); got != n+1 {
		t.Errorf("the run sent %d tools/list before the acknowledgement, want 1 in place of the kept list", got-n)
	}
	if r := execOne(t, second, "add_tool", map[string]any{"name": "late"}); r.Err != nil {
		t.Fatalf("add_tool = %v", r.Err)
	}
	release()
	waitTool(t, second, "late")
}

// waitTool waits until b has the tool name.
func waitTool(t *testing.T, b *Bridge, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for {
		if _, ok := b.Tool(name); ok {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("tool %s never appeared; tools %v", name, toolNamesOf(b.Tools()))
		case <-time.After(20 * time.Millisecond):
		}
	}
}
