package mcpbridge

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/genai"
)

// TestNPMKarakeep: @karakeep/mcp, a published server built on the
// TypeScript SDK v2, which answers server/discover with 2026-07-28 and also
// takes the older handshake. Its 29 tools list without the network; a call
// reaches the server, whose API is unreachable here, and comes back as the
// tool's error. The API key given in env reaches the server and no exit of
// the Bridge.
func TestNPMKarakeep(t *testing.T) {
	bin := npmBin(t, "karakeep-mcp")
	const key = "kk-test-9f8e7d6c5b4a39281706"
	for _, tc := range []struct {
		protocol string
		want     string // "" when either era is right
	}{
		{"modern", "2026-07-28"},
		{"legacy", "2025-11-25"},
		// The first server/discover is bounded at 300 ms, which a Node
		// server may miss while it starts: then the handshake is right
		// too (and the next run speaks 2026-07-28, see below).
		{"", ""},
	} {
		t.Run("protocol="+tc.protocol, func(t *testing.T) {
			e := &exits{}
			srv := ServerConfig{Name: "karakeep", Command: bin, Protocol: tc.protocol, Timeout: nodeTimeout, Trust: true,
				Env: map[string]string{"KARAKEEP_API_ADDR": "http://127.0.0.1:1", "KARAKEEP_API_KEY": key}}
			cache := filepath.Join(t.TempDir(), "protocols.json")
			b := newBridge(t, &Options{Logger: e.logger(), ProtocolCache: cache}, srv)
			stop := e.watch(b)
			discover(t, b)

			st := b.Status().Servers[0]
			if st.State != Connected || st.Transport != TransportStdio || tc.want != "" && st.Protocol != tc.want {
				t.Fatalf("Status = %v, protocol %q over %v (%s), want CONNECTED, %q over stdio; stderr:\n%s",
					st.State, st.Protocol, st.Transport, st.Error, tc.want, st.Stderr)
			}
			if !slices.Contains([]string{"2026-07-28", "2025-11-25"}, st.Protocol) {
				t.Fatalf("Status protocol = %q, want one of the two eras", st.Protocol)
			}
			t.Logf("protocol %s", st.Protocol)
			names := toolNamesOf(b.Tools())
			if len(names) != 29 || !slices.Contains(names, "search-bookmarks") || !slices.Contains(names, "get-asset") {
				t.Fatalf("tools = %d %v, want karakeep's 29 with search-bookmarks and get-asset", len(names), names)
			}
			// The schema as served keeps $schema, which mcp-go drops; the
			// declaration has none.
			asset, _ := b.Tool("get-asset")
			if !strings.Contains(string(asset.InputSchema()), `"$schema"`) {
				t.Errorf("get-asset InputSchema() = %s, want the served $schema", asset.InputSchema())
			}
			if p := asset.Declaration.Parameters; p == nil || p.Properties["assetId"] == nil || !slices.Equal(p.Required, []string{"assetId"}) {
				t.Errorf("get-asset declaration = %+v, want assetId required", p)
			}

			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			// Wrong arguments stop before the server.
			r := execute(e, b, "get-asset", map[string]any{})
			if !errors.Is(r.Err, ErrInvalidArguments) {
				t.Errorf("get-asset without assetId: Err = %v, want ErrInvalidArguments", r.Err)
			}
			// The server runs the tool; its API is not reachable.
			r = b.Execute(ctx, &genai.FunctionCall{Name: "search-bookmarks", Args: map[string]any{"query": "go"}})
			e.result(r)
			if !errors.Is(r.Err, ErrToolError) {
				t.Errorf("search-bookmarks: Err = %v, want ErrToolError (the API is unreachable)", r.Err)
			}
			stop()
			e.status(b)
			if leaks := e.leaks(key); len(leaks) > 0 {
				t.Errorf("the API key left the Bridge:\n%s", strings.Join(leaks, "\n"))
			}
			if tc.protocol != "" {
				return
			}
			// Whichever revision the first run spoke, the server answered
			// server/discover, in time or late: the next run asks it so.
			next := newBridge(t, &Options{ProtocolCache: cache}, srv)
			discover(t, next)
			if st := next.Status().Servers[0]; st.State != Connected || st.Protocol != "2026-07-28" {
				t.Errorf("second run: Status = %v, protocol %q (%s), want CONNECTED in 2026-07-28", st.State, st.Protocol, st.Error)
			}
		})
	}
}
