package testserver

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// The x-mcp-header tools (Options.Headers). mcp-go's server refuses to
// register a tool whose annotation breaks SEP-2243's rules, so the bad one
// is registered under a stand-in key of the same length that the HTTP
// handler renames in tools/list answers (headerGate): the server stays
// mcp-go's, and the client sees what a careless server would send.

// badHeaderKey stands for "x-mcp-header" in header_bad's schema until
// headerGate renames it; same length, so no Content-Length changes (and not the same key in
// another case: encoding/json would match it).
const badHeaderKey = "x-mcp-h3ader"

// addHeaderTools adds:
//   - header_ok: "region" (required, x-mcp-header "Region") and "verbose"
//     (optional boolean, x-mcp-header "Verbose"); returns, as JSON text,
//     the arguments it got and the Mcp-Param headers of the request;
//   - header_bad: "value", annotated with an empty x-mcp-header once
//     headerGate renamed it; returns "called".
func addHeaderTools(s *server.MCPServer) {
	ok := json.RawMessage(`{"type":"object","properties":{` +
		`"region":{"type":"string","x-mcp-header":"Region"},` +
		`"verbose":{"type":"boolean","x-mcp-header":"Verbose"}},"required":["region"]}`)
	s.AddTool(mcp.NewToolWithRawSchema("header_ok", "mirrors region and verbose into headers", ok),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			headers := map[string]string{}
			for k, v := range req.Header {
				if len(v) > 0 && len(k) > len(mcp.HeaderParamPrefix) && http.CanonicalHeaderKey(k[:len(mcp.HeaderParamPrefix)]) == http.CanonicalHeaderKey(mcp.HeaderParamPrefix) {
					headers[http.CanonicalHeaderKey(k)] = v[0]
				}
			}
			b, _ := json.Marshal(map[string]any{"arguments": req.GetRawArguments(), "headers": headers})
			return mcp.NewToolResultText(string(b)), nil
		})
	bad := json.RawMessage(`{"type":"object","properties":{"value":{"type":"string","` + badHeaderKey + `":""}},"required":["value"]}`)
	s.AddTool(mcp.NewToolWithRawSchema("header_bad", "its annotation is empty", bad),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("called"), nil
		})
}

// headerGate renames badHeaderKey to x-mcp-header in every response body.
func headerGate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(renameWriter{w}, r)
	})
}

type renameWriter struct{ http.ResponseWriter }

func (w renameWriter) Write(p []byte) (int, error) {
	return w.ResponseWriter.Write(bytes.ReplaceAll(p, []byte(badHeaderKey), []byte("x-mcp-header")))
}

// Flush passes a flush on, for streamed answers.
func (w renameWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}
