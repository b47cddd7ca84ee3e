package testauth

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mark3labs/mcp-go/server"
)

// ServeMCP serves mcp behind SSE (sse true) or streamable HTTP, protected
// by a. authServer is the authorization server its metadata names; ""
// means a.Issuer. Everything stops at the end of t.
func (a *Server) ServeMCP(t testing.TB, mcp *server.MCPServer, sse bool, authServer string) *Protected {
	t.Helper()
	return a.serveMCP(t, mcp, sse, authServer, "")
}

// ServeMCPParam is ServeMCP for a server that takes the access token from
// the query parameter param (as with tokenParamName) instead of the
// Authorization header.
func (a *Server) ServeMCPParam(t testing.TB, mcp *server.MCPServer, sse bool, authServer, param string) *Protected {
	t.Helper()
	return a.serveMCP(t, mcp, sse, authServer, param)
}

func (a *Server) serveMCP(t testing.TB, mcp *server.MCPServer, sse bool, authServer, param string) *Protected {
	if authServer == "" {
		authServer = a.Issuer
	}
	p := &Protected{as: a, authAS: authServer, param: param, seen: map[string]checked{}, offered: map[string]bool{}, expired: map[string]bool{}}
	p.HTTP = httptest.NewServer(p)
	if sse {
		s := server.NewSSEServer(mcp, server.WithBaseURL(p.HTTP.URL))
		p.next, p.path = s, "/sse"
		t.Cleanup(func() { _ = s.Shutdown(context.Background()) })
	} else {
		s := server.NewStreamableHTTPServer(mcp)
		p.next, p.path = s, "/mcp"
		t.Cleanup(func() { _ = s.Shutdown(context.Background()) })
	}
	p.URL = p.HTTP.URL + p.path
	t.Cleanup(func() {
		p.HTTP.CloseClientConnections()
		p.HTTP.Close()
	})
	return p
}

var _ http.Handler = (*Protected)(nil)

// MoveTo makes the server protected by b from now on: its protected
// resource metadata names b, and only b's tokens are accepted (a's, even
// those not yet expired, are refused with 401), as when a resource moves
// to another authorization server.
func (p *Protected) MoveTo(b *Server) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.as, p.authAS = b, b.Issuer
}

// server returns the authorization server whose tokens are accepted.
func (p *Protected) server() *Server {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.as
}

// authServer returns the authorization server the metadata names.
func (p *Protected) authServer() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.authAS
}
