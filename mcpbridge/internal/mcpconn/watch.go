package mcpconn

import (
	"fmt"
	"net/http"
	"sync/atomic"
)

// watchTransport is the HTTP round tripper of an SSE or streamable-HTTP
// connection. It notices a server that went away while nothing is being
// asked of it: the listening stream's reconnect fails at the network level.
//
// It also bounds every response (see limitBody), rewrites or refuses a
// message nested too deeply (see guardBody) and keeps the configured
// headers to the configured origin (see originHeaders).
type watchTransport struct {
	base       *http.Transport
	connected  atomic.Bool // set once Dial succeeded
	lost       func(error)
	maxMessage int
	headers    originHeaders
}

func newWatchTransport(lost func(error), s *Spec) *watchTransport {
	base := http.DefaultTransport.(*http.Transport).Clone()
	return &watchTransport{base: base, lost: lost, maxMessage: s.maxMessage(), headers: newOriginHeaders(s.URL, s.Headers)}
}

// RoundTrip forwards req; a network failure of a request nobody cancelled,
// after Dial, means the server is gone.
func (w *watchTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := w.base.RoundTrip(w.headers.strip(req))
	limitBody(resp, w.maxMessage, w.lost)
	guardBody(resp, w.lost)
	if err != nil && req.Context().Err() == nil && w.connected.Load() {
		w.lost(fmt.Errorf("%s %s: %w", req.Method, req.URL.Redacted(), err))
	}
	return resp, err
}
