package mcpbridge

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
)

// TestProtocolStatus: each server is reached in its own era and, for a
// URL without type, over the transport it serves; Status says which.
func TestProtocolStatus(t *testing.T) {
	modern := stdioServer("modern", "-era=modern")
	silent := stdioServer("silent", "-era=legacy-silent")
	pinned := stdioServer("pinned")
	pinned.Protocol = "legacy"
	sse := ServerConfig{Name: "sse", URL: testserver.ServeHTTP(t, testserver.Options{Era: testserver.EraLegacy}, true).URL, Timeout: 10 * time.Second}
	web := ServerConfig{Name: "web", URL: testserver.ServeHTTP(t, testserver.Options{Era: testserver.EraModern}, false).URL, Timeout: 10 * time.Second}
	b := newBridge(t, nil, modern, silent, pinned, sse, web)
	start := time.Now()
	discover(t, b)
	// Loose (a loaded machine is slow), yet under the 5 s it guards against.
	if d := time.Since(start); d > 4500*time.Millisecond {
		t.Errorf("Discover took %v, want well under 4.5s (no 5 s probe or SSE wait)", d)
	}
	type row struct {
		Name, Protocol string
		Transport      Transport
		State          ServerState
	}
	var got []row
	for _, s := range b.Status().Servers {
		got = append(got, row{s.Name, s.Protocol, s.Transport, s.State})
	}
	want := []row{
		{"modern", "2026-07-28", TransportStdio, Connected},
		{"silent", "2025-11-25", TransportStdio, Connected},
		{"pinned", "2025-11-25", TransportStdio, Connected},
		{"sse", "2025-11-25", TransportSSE, Connected},
		{"web", "2026-07-28", TransportHTTP, Connected},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Status (-want +got):\n%s", diff)
	}
	if text := b.Status().String(); !strings.Contains(text, "📡 web (CONNECTED)\n  URL: ") || !strings.Contains(text, "  Protocol: MCP 2026-07-28 over http\n") {
		t.Errorf("Status text lacks the web server's protocol line:\n%s", text)
	}
}

// TestProtocolRemembered: a legacy server that ignores server/discover is
// probed once; after it dies, the reconnect goes straight to the
// handshake.
func TestProtocolRemembered(t *testing.T) {
	srv := stdioServer("silent", "-era=legacy-silent")
	srv.Trust = true
	b := newBridge(t, nil, srv)
	discover(t, b)
	stderr := func() string { return b.Status().Servers[0].Stderr }
	if !strings.Contains(stderr(), "ignored server/discover") {
		t.Fatalf("first connection's stderr = %q, want the ignored probe", stderr())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, _ = b.callTool(ctx, "silent", "crash", nil)
	deadline := time.Now().Add(20 * time.Second) // ends as soon as the death is seen
	for b.Status().Servers[0].State == Connected && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	// No wall-clock bound: the stderr check below shows that the
	// reconnect did not probe again.
	if _, err := call(t, b, "silent", "echo", map[string]any{"text": "again"}); err != nil {
		t.Fatalf("call after the crash = %v, want a reconnect", err)
	}
	st := b.Status().Servers[0]
	if st.State != Connected || st.Protocol != "2025-11-25" {
		t.Errorf("after reconnect: %v %q, want CONNECTED 2025-11-25", st.State, st.Protocol)
	}
	if strings.Contains(stderr(), "ignored server/discover") {
		t.Errorf("the reconnect probed again; stderr %q", stderr())
	}
}

// TestProtocolRetryRefusedVersion: a 2026-07-28 server that refuses the
// version of the first server/discover (-32022) while listing that same
// version as supported is asked once more, and connects in 2026-07-28,
// whether the era is detected or pinned with "modern"; it is never sent
// the initialize handshake.
func TestProtocolRetryRefusedVersion(t *testing.T) {
	for _, protocol := range []string{"auto", "modern"} {
		t.Run(protocol, func(t *testing.T) {
			srv := testserver.ServeHTTP(t, testserver.Options{Era: testserver.EraModernRefuseFirst}, false)
			b := newBridge(t, nil, ServerConfig{Name: "web", HTTPURL: srv.URL, Protocol: protocol, Timeout: 10 * time.Second})
			discover(t, b)
			st := b.Status().Servers[0]
			if st.State != Connected || st.Protocol != "2026-07-28" {
				t.Fatalf("status = %v %q (%s), want CONNECTED 2026-07-28", st.State, st.Protocol, st.Error)
			}
			if got := srv.Header("Mcp-Method"); len(got) < 2 || got[0] != "server/discover" || got[1] != "server/discover" {
				t.Errorf("Mcp-Method of the first requests = %q, want server/discover twice", got)
			}
			for _, v := range srv.Header("Mcp-Protocol-Version") {
				if v != "2026-07-28" {
					t.Errorf("a request carried MCP-Protocol-Version %q, want 2026-07-28 on every one", v)
				}
			}
		})
	}
}

// TestProtocolModernNoHandshake: with "protocol": "modern", a server that
// answers server/discover with an error is never sent the initialize
// handshake, and the status says why it did not connect.
func TestProtocolModernNoHandshake(t *testing.T) {
	srv := testserver.ServeHTTP(t, testserver.Options{Era: testserver.EraLegacy}, false)
	b := newBridge(t, nil, ServerConfig{Name: "old", HTTPURL: srv.URL, Protocol: "modern", Timeout: 10 * time.Second})
	discover(t, b)
	st := b.Status().Servers[0]
	if st.State != Disconnected || !strings.Contains(st.Error, "server/discover") {
		t.Errorf("status = %v %q, want DISCONNECTED naming server/discover", st.State, st.Error)
	}
	// One POST: the server/discover. The handshake would be a second.
	if got := srv.Header("Content-Type"); len(got) != 1 {
		t.Errorf("the server was sent %d requests, want 1 (server/discover, no initialize)", len(got))
	}
}
