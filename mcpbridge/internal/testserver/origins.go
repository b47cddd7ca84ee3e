package testserver

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/server"
)

// Request is what a [Recorder] saw of one request.
type Request struct {
	Method string
	URL    string // path and query as sent
	Header http.Header
	Body   []byte // the first 64 KiB
}

// Recorder is an HTTP server on loopback that records every request it
// receives before handing it on.
type Recorder struct {
	// URL is the server's base URL, http://host:port.
	URL    string
	Server *httptest.Server

	mu   sync.Mutex
	reqs []Request
}

// Requests returns the requests received so far, in arrival order.
func (r *Recorder) Requests() []Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Request(nil), r.reqs...)
}

// startRecorder serves next on addr (host:port; port 0 picks one), recording
// every request, until the end of t.
func startRecorder(t testing.TB, addr string, next http.Handler) *Recorder {
	t.Helper()
	rec := &Recorder{}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<10))
		r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), r.Body))
		rec.mu.Lock()
		rec.reqs = append(rec.reqs, Request{Method: r.Method, URL: r.URL.RequestURI(), Header: r.Header.Clone(), Body: body})
		rec.mu.Unlock()
		next.ServeHTTP(w, r)
	}))
	ln, err := net.Listen("tcp", addr)
	if err != nil && runtime.GOOS != "linux" {
		// Only Linux answers on all of 127.0.0.0/8 out of the box.
		t.Skipf("listen on %s: %v", addr, err)
	}
	if err != nil {
		t.Fatalf("listen on %s: %v", addr, err)
	}
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	rec.Server, rec.URL = srv, srv.URL
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
	})
	return rec
}

// Redirected is an MCP test server reached through a redirect: Here, on
// 127.0.0.1, answers every request with a 307 to the same path and query
// at There, which serves the MCP server from its own origin.
type Redirected struct {
	// URL is the MCP endpoint at Here: ".../sse" or ".../mcp".
	URL         string
	Here, There *Recorder
}

// ServeRedirected starts a server with o behind SSE (sse true) or
// streamable HTTP at There, listening on thereAddr (such as "127.0.0.1:0"
// for a second port, or "127.0.0.2:0" for another loopback address), and
// Here in front of it. An SSE server names its message endpoint by path
// alone, so a client resolves it against Here and is redirected again.
// Everything stops at the end of t.
func ServeRedirected(t testing.TB, o Options, sse bool, thereAddr string) *Redirected {
	t.Helper()
	mcp := New(o)
	var h http.Handler
	path := "/mcp"
	if sse {
		s := server.NewSSEServer(mcp)
		h, path = gateHTTP(o.Era, true, s), "/sse"
		t.Cleanup(func() { _ = s.Shutdown(context.Background()) })
	} else {
		s := server.NewStreamableHTTPServer(mcp)
		h = gateHTTP(o.Era, false, s)
		t.Cleanup(func() { _ = s.Shutdown(context.Background()) })
	}
	there := startRecorder(t, thereAddr, h)
	here := startRecorder(t, "127.0.0.1:0", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, there.URL+r.URL.RequestURI(), http.StatusTemporaryRedirect)
	}))
	return &Redirected{URL: here.URL + path, Here: here, There: there}
}

// ServeForeignEndpoint starts an SSE server with o at Here (127.0.0.1)
// whose endpoint event names a message endpoint at There, another origin
// listening on thereAddr that serves the same server's messages. URL is
// the SSE endpoint at Here. Everything stops at the end of t.
func ServeForeignEndpoint(t testing.TB, o Options, thereAddr string) *Redirected {
	t.Helper()
	s := server.NewSSEServer(New(o))
	t.Cleanup(func() { _ = s.Shutdown(context.Background()) })
	h := gateHTTP(o.Era, true, s)
	there := startRecorder(t, thereAddr, h)
	server.WithBaseURL(there.URL)(s)
	here := startRecorder(t, "127.0.0.1:0", h)
	return &Redirected{URL: here.URL + "/sse", Here: here, There: there}
}
