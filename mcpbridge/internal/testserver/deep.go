package testserver

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// ServeDeep starts a hand-written loopback MCP server over HTTP, for answers
// mcp-go's server cannot produce: tools/list holds a tool whose schema
// nests 5,000 deep between two ordinary tools, and tools/call answers with
// a result nested 20,000 deep. framing is "json" or "sse" (streamable HTTP
// answers) or "legacy" (the SSE transport: answers go on the GET stream).
// It returns the endpoint's URL (".../mcp", or ".../sse" for "legacy");
// the server stops at the test's end.
func ServeDeep(t testing.TB, framing string) string {
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
	if framing == "legacy" {
		return srv.URL + "/sse"
	}
	return srv.URL + "/mcp"
}
