package mcpconn

import (
	"context"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
)

// TestAutoTransport: a URL without a transport reaches an SSE-only server
// over SSE and a streamable-HTTP server (of either era) over streamable
// HTTP, each without waiting for an SSE endpoint that never comes.
func TestAutoTransport(t *testing.T) {
	for _, tc := range []struct {
		name         string
		sse          bool
		era          testserver.Era
		want         Kind
		wantProtocol string
	}{
		{"sse only", true, testserver.EraBoth, SSE, ""},
		{"http, both eras", false, testserver.EraBoth, StreamableHTTP, mcp.LATEST_PROTOCOL_VERSION},
		{"http, 2026 only", false, testserver.EraModern, StreamableHTTP, mcp.LATEST_PROTOCOL_VERSION},
		{"http, legacy only", false, testserver.EraLegacy, StreamableHTTP, mcp.LATEST_LEGACY_PROTOCOL_VERSION},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := testserver.ServeHTTP(t, testserver.Options{Era: tc.era}, tc.sse)
			s := Spec{Name: "auto", Kind: Auto, URL: h.URL, Timeout: 10 * time.Second}
			start := time.Now()
			c := dialT(t, s)
			// Loose (a loaded machine is slow), yet under the 5 s the old
			// SSE-first order waited for an endpoint.
			if d := time.Since(start); d > 4*time.Second {
				t.Errorf("Dial(auto) took %v, want well under 4s", d)
			}
			if c.Kind() != tc.want {
				t.Errorf("Kind() = %v, want %v", c.Kind(), tc.want)
			}
			if tc.wantProtocol != "" && c.ProtocolVersion() != tc.wantProtocol {
				t.Errorf("ProtocolVersion() = %q, want %q", c.ProtocolVersion(), tc.wantProtocol)
			}
			if _, err := c.CallTool(context.Background(), "echo", map[string]any{"text": "x"}); err != nil {
				t.Errorf("CallTool(echo) = %v", err)
			}
		})
	}
	t.Run("sse forced on an http-only server", func(t *testing.T) {
		h := testserver.ServeHTTP(t, testserver.Options{}, false)
		s := Spec{Name: "sse", Kind: SSE, URL: h.URL, Timeout: 5 * time.Second, EndpointWait: 300 * time.Millisecond}
		c, err := Dial(context.Background(), s)
		if err == nil {
			_ = c.Close()
			t.Fatalf("Dial(sse on an http-only URL) = nil error, want one: an explicit transport is tried alone")
		}
	})
}
