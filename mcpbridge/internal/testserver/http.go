package testserver

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// HTTP is a test server running in-process behind SSE or streamable HTTP on
// a loopback httptest.Server, recording the request headers it received.
type HTTP struct {
	// URL is the MCP endpoint: ".../sse" for SSE, ".../mcp" for streamable
	// HTTP.
	URL string
	// MCP is the server itself, for adding tools while it runs.
	MCP *server.MCPServer
	// Server is the HTTP server, for closing client connections.
	Server *httptest.Server

	mu   sync.Mutex
	seen []http.Header
	hold *hold
}

// hold is a method whose requests wait until released (see [HTTP.Hold]).
type hold struct {
	method  string
	arrived chan struct{} // closed when the first such request arrived
	once    sync.Once
	release chan struct{}
}

// ServeHTTP starts a server with o behind SSE (sse true) or streamable
// HTTP. Everything stops at the end of t.
func ServeHTTP(t testing.TB, o Options, sse bool) *HTTP {
	t.Helper()
	h := &HTTP{MCP: New(o)}
	gate := func(sse bool, next http.Handler) http.Handler {
		next = gateHTTP(o.Era, sse, next)
		if o.Tasks.ZeroTTL {
			next = zeroTTL(next)
		}
		if o.Headers {
			next = headerGate(next)
		}
		if o.Skills != nil {
			next = skillsGate(o.Skills, next)
		}
		if o.DiscoverDelay > 0 {
			next = delayDiscover(o.DiscoverDelay, next)
		}
		return h.record(next)
	}
	if sse {
		s := server.NewSSEServer(h.MCP)
		h.Server = httptest.NewServer(gate(true, s))
		server.WithBaseURL(h.Server.URL)(s)
		h.URL = h.Server.URL + "/sse"
		t.Cleanup(func() { _ = s.Shutdown(context.Background()) })
	} else {
		var opts []server.StreamableHTTPOption
		if o.Features {
			// Resumable streams: without an event store mcp-go's server may
			// drop a notification sent just before a request's response.
			opts = append(opts, server.WithEventStore(server.NewInMemoryEventStore()))
		}
		s := server.NewStreamableHTTPServer(h.MCP, opts...)
		h.Server = httptest.NewServer(gate(false, s))
		h.URL = h.Server.URL + "/mcp"
		t.Cleanup(func() { _ = s.Shutdown(context.Background()) })
	}
	t.Cleanup(func() {
		h.Server.CloseClientConnections()
		h.Server.Close()
	})
	return h
}

func (h *HTTP) record(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		h.seen = append(h.seen, r.Header.Clone())
		hd := h.hold
		h.mu.Unlock()
		if hd != nil && r.Header.Get(mcp.HeaderMethod) == hd.method {
			hd.once.Do(func() { close(hd.arrived) })
			select {
			case <-hd.release:
			case <-r.Context().Done():
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// Hold makes the server hold every request of the JSON-RPC method (by the
// Mcp-Method header of 2026-07-28) that arrives from now on, before
// serving it, until release is called or its client goes away; arrived is
// closed when the first one comes. It lets a test put something else
// first, such as a change made before a subscriptions/listen is served.
// Calling release again does nothing.
func (h *HTTP) Hold(method string) (arrived <-chan struct{}, release func()) {
	hd := &hold{method: method, arrived: make(chan struct{}), release: make(chan struct{})}
	h.mu.Lock()
	h.hold = hd
	h.mu.Unlock()
	var once sync.Once
	return hd.arrived, func() { once.Do(func() { close(hd.release) }) }
}

// Header returns every value of the named request header the server has
// received so far, in arrival order.
func (h *HTTP) Header(name string) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, hd := range h.seen {
		out = append(out, hd.Values(name)...)
	}
	return out
}
