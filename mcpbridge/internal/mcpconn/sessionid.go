package mcpconn

import (
	"net/http"
	"sync/atomic"
)

// The session id headers of streamable HTTP: the specification's, which
// mcp-go reads and sends, and the one some servers use instead.
const (
	mcpSessionHeader = "Mcp-Session-Id"
	xSessionHeader   = "X-Session-Id"
)

// sessionIDTransport lets mcp-go talk to a streamable-HTTP server that
// issues its session id in an X-Session-Id response header rather than
// Mcp-Session-Id. mcp-go reads only Mcp-Session-Id, so without this it sends
// no session id after initialize and such a server answers every later
// request with 400 "Missing session ID".
//
// A response with X-Session-Id and without Mcp-Session-Id gets an
// Mcp-Session-Id header of the same value, which mcp-go keeps and sends back
// with every later request. From then on, requests that carry
// Mcp-Session-Id also carry X-Session-Id with the same value, for servers
// that read only the header they issued. Nothing changes for a server that
// uses Mcp-Session-Id. The id only ever goes back to the server of the
// connection: it rides on requests that already carry it.
type sessionIDTransport struct {
	base http.RoundTripper
	// echo is set once the server issued its id in X-Session-Id.
	echo atomic.Bool
}

// RoundTrip forwards req and adjusts the session id headers (see
// sessionIDTransport). req itself is not modified.
func (t *sessionIDTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if t.echo.Load() {
		if id := req.Header.Get(mcpSessionHeader); id != "" && req.Header.Get(xSessionHeader) == "" {
			req = req.Clone(req.Context())
			req.Header.Set(xSessionHeader, id)
		}
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	if resp.Header.Get(mcpSessionHeader) == "" {
		if id := resp.Header.Get(xSessionHeader); id != "" {
			resp.Header.Set(mcpSessionHeader, id)
			t.echo.Store(true)
		}
	}
	return resp, nil
}
