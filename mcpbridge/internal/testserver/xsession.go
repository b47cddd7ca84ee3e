package testserver

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mark3labs/mcp-go/server"
)

// ServeXSessionID starts a server with o behind streamable HTTP that issues
// its session id in an "X-Session-Id" response header and never in
// "Mcp-Session-Id", as some servers do. Every request but initialize must
// carry the id in the header named accept ("Mcp-Session-Id" or
// "X-Session-Id"); a request without it gets 400 "Missing session ID", and
// the id in the other header is ignored. Everything stops at the end of t.
func ServeXSessionID(t testing.TB, o Options, accept string) *HTTP {
	t.Helper()
	h := &HTTP{MCP: New(o)}
	s := server.NewStreamableHTTPServer(h.MCP)
	h.Server = httptest.NewServer(h.record(xSessionID(s, accept)))
	h.URL = h.Server.URL + "/mcp"
	t.Cleanup(func() { _ = s.Shutdown(context.Background()) })
	t.Cleanup(func() {
		h.Server.CloseClientConnections()
		h.Server.Close()
	})
	return h
}

// xSessionID wraps mcp-go's streamable-HTTP handler next: the id is read
// from the header accept and handed to next as Mcp-Session-Id, and next's
// Mcp-Session-Id response header goes out as X-Session-Id.
func xSessionID(next http.Handler, accept string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r = r.Clone(r.Context())
		id := r.Header.Get(accept)
		r.Header.Del("Mcp-Session-Id")
		r.Header.Del("X-Session-Id")
		if id != "" {
			r.Header.Set("Mcp-Session-Id", id)
		} else if !isInitialize(r) {
			http.Error(w, "Bad Request: Missing session ID", http.StatusBadRequest)
			return
		}
		next.ServeHTTP(&xSessionWriter{ResponseWriter: w}, r)
	})
}

// isInitialize reports whether r is a POST of an initialize request; it
// leaves r's body readable.
func isInitialize(r *http.Request) bool {
	if r.Method != http.MethodPost {
		return false
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	r.Body = io.NopCloser(bytes.NewReader(body))
	var msg struct {
		Method string `json:"method"`
	}
	return err == nil && json.Unmarshal(body, &msg) == nil && msg.Method == "initialize"
}

// xSessionWriter renames the Mcp-Session-Id response header to
// X-Session-Id before the header is written.
type xSessionWriter struct {
	http.ResponseWriter
	wrote bool
}

func (w *xSessionWriter) rename() {
	if w.wrote {
		return
	}
	w.wrote = true
	h := w.Header()
	if id := h.Get("Mcp-Session-Id"); id != "" {
		h.Del("Mcp-Session-Id")
		h.Set("X-Session-Id", id)
	}
}

func (w *xSessionWriter) WriteHeader(code int) {
	w.rename()
	w.ResponseWriter.WriteHeader(code)
}

func (w *xSessionWriter) Write(b []byte) (int, error) {
	w.rename()
	return w.ResponseWriter.Write(b)
}

// Flush sends what was written so far, for streamed responses.
func (w *xSessionWriter) Flush() {
	w.rename()
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap returns the underlying writer, for http.ResponseController.
func (w *xSessionWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
