package mcpconn

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// deepServer is a hand-written loopback MCP server over HTTP, for answers
// mcp-go's server cannot produce: tools/list holds a tool whose schema
// nests 5,000 deep between two ordinary tools, and tools/call answers with
// a result nested 20,000 deep. framing is "json" or "sse" (streamable HTTP
// answers) or "legacy" (the SSE transport: answers go on the GET stream).
func deepServer(t *testing.T, framing string) Spec {
	t.Helper()
	deep := strings.Repeat(`{"type":"object","properties":{"a":`, 5000) + `{"type":"string"}` + strings.Repeat(`}}`, 5000)
	tools := `{"tools":[{"name":"before","inputSchema":{"type":"object"}},` +
		`{"name":"deep_tool","inputSchema":` + deep + `},{"name":"after","inputSchema":{"type":"object"}}]}`
	callResult := `{"content":[],"structuredContent":` + strings.Repeat(`{"a":`, 20000) + "1" + strings.Repeat("}", 20000) + `}`
	answer := func(body []byte) (string, bool) {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(body, &msg) != nil || len(msg.ID) == 0 {
			return "", false
		}
		var result string
		switch msg.Method {
		case "initialize":
			result = `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"deep","version":"0"}}`
		case "tools/list":
			result = tools
		case "tools/call":
			result = callResult
		default:
			return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no such method"}}`, msg.ID), true
		}
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, msg.ID, result), true
	}
	stream := make(chan string, 16)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			if framing != "legacy" {
				w.WriteHeader(http.StatusMethodNotAllowed)
				return
			}
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "event: endpoint\ndata: /msg\n\n")
			w.(http.Flusher).Flush()
			for {
				select {
				case msg := <-stream:
					fmt.Fprintf(w, "event: message\ndata: %s\n\n", msg)
					w.(http.Flusher).Flush()
				case <-r.Context().Done():
					return
				}
			}
		}
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		body, _ := io.ReadAll(r.Body)
		msg, ok := answer(body)
		switch {
		case !ok:
			w.WriteHeader(http.StatusAccepted)
		case framing == "legacy":
			w.WriteHeader(http.StatusAccepted)
			stream <- msg
		case framing == "sse":
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "event: message\ndata: %s\n\n", msg)
		default:
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, msg)
		}
	}))
	t.Cleanup(srv.Close)
	kind, path := StreamableHTTP, "/mcp"
	if framing == "legacy" {
		kind, path = SSE, "/sse"
	}
	return Spec{Name: "deep-" + framing, Kind: kind, URL: srv.URL + path, Timeout: time.Minute, DiscoverProbe: 3 * time.Second}
}

// TestDeepOverHTTP: on streamable HTTP (JSON and SSE-framed answers) and on
// the SSE transport, a tool nested 5,000 deep is skipped while its siblings
// are listed at once, and a call result nested 20,000 deep (which mcp-go
// would drop, leaving the call to wait for its timeout) fails at once with
// an error saying why; the connection stays usable.
func TestDeepOverHTTP(t *testing.T) {
	for _, framing := range []string{"json", "sse", "legacy"} {
		t.Run(framing, func(t *testing.T) {
			c := dialT(t, deepServer(t, framing))
			start := time.Now()
			tools, err := c.ListTools(context.Background())
			if err != nil {
				t.Fatalf("ListTools() = %v", err)
			}
			if got := strings.Join(toolNames(tools), ","); got != "after,before" {
				t.Errorf("ListTools() = %s, want after,before", got)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("ListTools() took %v, want no wait for the 1 min timeout", d)
			}
			skipped := c.Skipped()
			if len(skipped) != 1 || skipped[0].Name != "deep_tool" || !strings.Contains(skipped[0].Reason, "deeper than 2000 levels") {
				t.Errorf("Skipped() = %+v, want deep_tool nesting too deep", skipped)
			}
			start = time.Now()
			raw, err := c.CallTool(context.Background(), "after", nil)
			if err == nil || !strings.Contains(err.Error(), "nested more than 2000 levels deep") {
				t.Errorf("CallTool() = %.40s, %v; want an error naming the depth", raw, err)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("CallTool() took %v, want no wait for the 1 min timeout", d)
			}
			if c.Err() != nil {
				t.Errorf("connection error %v, want the connection alive", c.Err())
			}
			if _, err := c.ListTools(context.Background()); err != nil {
				t.Errorf("ListTools() after the deep call = %v", err)
			}
		})
	}
}

func TestGuardDepth(t *testing.T) {
	deep := strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1)
	obj := strings.Repeat(`{"a":`, MaxDepth+1) + "1" + strings.Repeat("}", MaxDepth+1)
	tests := []struct {
		name, in, want string
		err            bool
	}{
		{"shallow", `{"id":1,"result":{}}`, `{"id":1,"result":{}}`, false},
		{"response", `{"jsonrpc":"2.0","result":` + obj + `,"id":7}`,
			`{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"the server's response nested more than 2000 levels deep; mcpbridge dropped it"}}`, false},
		{"string id", `{"id": "a\"b","result":` + obj + `}`,
			`{"jsonrpc":"2.0","id":"a\"b","error":{"code":-32603,"message":"the server's response nested more than 2000 levels deep; mcpbridge dropped it"}}`, false},
		{"list entry", `{"id":1,"result":{"tools":[{"name":"x","s":` + deep + `}]}}`,
			`{"id":1,"result":{"tools":[{"name":"x","_mcpbridgeTooDeep":true}]}}`, false},
		{"request refused", `{"id":1,"method":"sampling/createMessage","params":` + obj + `}`, "", true},
		{"notification refused", `{"method":"notifications/message","params":` + obj + `}`, "", true},
		{"nested id does not count", `{"result":{"id":1,"x":` + obj + `}}`, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := guardDepth([]byte(tt.in))
			if (err != nil) != tt.err || !tt.err && string(got) != tt.want {
				t.Errorf("guardDepth() = %.200s, %v; want %.200s (error %v)", got, err, tt.want, tt.err)
			}
		})
	}
}
