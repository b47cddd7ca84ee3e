package mcpbridge

import (
	"slices"
	"testing"
	"time"

	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
)

// TestXSessionIDServer discovers and calls the tools of streamable-HTTP
// servers that issue their session id only in an X-Session-Id header and
// answer 400 "Missing session ID" to requests without it, configured as
// httpUrl, as url with type "http", and as url alone (the SSE handshake is
// refused, streamable HTTP follows).
func TestXSessionIDServer(t *testing.T) {
	for _, accept := range []string{"Mcp-Session-Id", "X-Session-Id"} {
		t.Run("reads "+accept, func(t *testing.T) {
			h := testserver.ServeXSessionID(t, testserver.Options{Tools: 2}, accept)
			byHTTPURL := ServerConfig{Name: "first", HTTPURL: h.URL, Timeout: 10 * time.Second}
			byURL := ServerConfig{Name: "second", URL: h.URL, Type: "http", Timeout: 10 * time.Second}
			byBareURL := ServerConfig{Name: "third", URL: h.URL, Timeout: 10 * time.Second}
			b := newBridge(t, nil, byHTTPURL, byURL, byBareURL)
			discover(t, b)
			for _, s := range b.Status().Servers {
				if s.State != Connected || !slices.Contains(s.Tools, s.Name+"__echo") && !slices.Contains(s.Tools, "echo") {
					t.Errorf("server %s = %v with tools %q (error %q), want CONNECTED with echo", s.Name, s.State, s.Tools, s.Error)
				}
			}
			for _, server := range []string{"first", "second", "third"} {
				got, err := call(t, b, server, "tool_01", nil)
				if err != nil || got != "tool_01" {
					t.Errorf("call %s tool_01 = %q, %v; want tool_01", server, got, err)
				}
			}
		})
	}
}
