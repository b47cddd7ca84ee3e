package mcpconn

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
)

// TestDialWaitsForStream: on a streamable-HTTP connection before
// 2026-07-28, Dial returns once the server has answered the GET of its
// event stream, so that a question the server puts on that stream right
// after (here the roots tool's roots/list) has a listener. mcp-go's server
// with an event store lost such a question when it came before the GET's
// connection was attached (see getopen.go): TestClientFeatures/http/legacy
// timed out on it now and then under -race on a loaded machine (2 of 25
// runs; 2 of 8 batches of 25).
// A server that does not answer the GET costs Dial listenOpenWait, not
// the connection.
func TestDialWaitsForStream(t *testing.T) {
	for _, tc := range []struct {
		name string
		hold time.Duration // how long the server holds the GET before serving it
	}{
		{"slow stream", 100 * time.Millisecond},
		{"stream never answered", time.Hour},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var served atomic.Bool // the GET was passed on to be answered
			gone := make(chan struct{})
			t.Cleanup(func() { close(gone) })
			mcps := server.NewStreamableHTTPServer(testserver.New(testserver.Options{Features: true}), server.WithEventStore(server.NewInMemoryEventStore()))
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodGet {
					select {
					case <-time.After(tc.hold):
					case <-r.Context().Done():
						return
					case <-gone:
						return
					}
					served.Store(true)
				}
				mcps.ServeHTTP(w, r)
			}))
			t.Cleanup(srv.Close)
			s := Spec{Name: "slow-get", Kind: StreamableHTTP, URL: srv.URL + "/mcp", Timeout: 20 * time.Second, Era: mcp.LATEST_LEGACY_PROTOCOL_VERSION,
				Roots: func(context.Context) ([]mcp.Root, error) {
					return []mcp.Root{{URI: "file:///work/project", Name: "project"}}, nil
				}}
			start := time.Now()
			c := dialT(t, s)
			took := time.Since(start)
			if got := c.ProtocolVersion(); got != mcp.LATEST_LEGACY_PROTOCOL_VERSION {
				t.Fatalf("ProtocolVersion() = %q, want %q", got, mcp.LATEST_LEGACY_PROTOCOL_VERSION)
			}
			if tc.hold < listenOpenWait {
				if !served.Load() {
					t.Fatalf("Dial returned after %v, before the server answered the GET of its stream", took)
				}
				raw, err := c.CallTool(context.Background(), "roots", nil)
				if err != nil {
					t.Fatalf("CallTool(roots) = %v", err)
				}
				var res struct {
					Content []struct{ Text string } `json:"content"`
				}
				if err := json.Unmarshal(raw, &res); err != nil || len(res.Content) == 0 || !strings.Contains(res.Content[0].Text, "file:///work/project") {
					t.Errorf("CallTool(roots) = %s, %v; want the spec's root", raw, err)
				}
				return
			}
			if took < listenOpenWait {
				t.Errorf("Dial took %v with the stream unanswered, want it to wait %v", took, listenOpenWait)
			}
			if _, err := c.CallTool(context.Background(), "echo", map[string]any{"text": "x"}); err != nil {
				t.Errorf("CallTool(echo) with the stream unanswered = %v", err)
			}
		})
	}
}
