package mcpbridge

import (
	"context"
	"strings"
	"testing"

	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
	"github.com/mcpgenai/bridge/mcpbridge/store"
)

// TestSharedProtocolCache: with Options.Store, a second Bridge (another
// replica) reaches a legacy server that ignores server/discover without
// probing it, and a url without type straight over the transport the
// first found: the protocols are kept in the store, not in a file.
func TestSharedProtocolCache(t *testing.T) {
	shared := store.NewMemory()
	silent := stdioServer("silent", "-era=legacy-silent")
	sse := ServerConfig{Name: "sse", URL: testserver.ServeHTTP(t, testserver.Options{}, true).URL}
	run := func() *Bridge {
		t.Helper()
		b := newBridge(t, &Options{Store: shared}, silent, sse)
		discover(t, b)
		for _, s := range b.Status().Servers {
			if s.State != Connected {
				t.Fatalf("%s = %v (%s), want CONNECTED", s.Name, s.State, s.Error)
			}
		}
		return b
	}
	first := run()
	if st := first.Status().Servers[0]; !strings.Contains(st.Stderr, "ignored server/discover") {
		t.Fatalf("first replica: stderr %q, want the probe ignored", st.Stderr)
	}
	_ = first.Close()
	if p, _ := shared.LoadProtocol(context.Background(), sse.protoKey()); p.Version == "" || p.Transport != "sse" {
		t.Fatalf("store holds %+v for the sse server; want its protocol over sse", p)
	}
	if p, _ := shared.LoadProtocol(context.Background(), silent.protoKey()); p.Version != "2025-11-25" {
		t.Fatalf("store holds %+v for the legacy server; want 2025-11-25", p)
	}

	second := run()
	st := second.Status().Servers
	if strings.Contains(st[0].Stderr, "ignored") {
		t.Errorf("second replica probed the legacy server again; stderr %q", st[0].Stderr)
	}
	if st[1].Transport != TransportSSE {
		t.Errorf("second replica: sse over %v, want sse", st[1].Transport)
	}
}
