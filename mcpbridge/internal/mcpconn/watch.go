package mcpconn

import (
	"fmt"
	"net/http"
	"sync/atomic"

	"github.com/mcpgenai/bridge/mcpbridge/internal/egress"
)

// watchTransport is the HTTP round tripper of an SSE or streamable-HTTP
// connection. It notices a server that went away while nothing is being
// asked of it: the listening stream's reconnect fails at the network level.
//
// It also passes what is sent through Spec.Outgoing (see outgoing.go),
// bounds every response (see limitBody), rewrites or refuses a message
// nested too deeply or a question too large (see guardBody) and keeps
// every credential
// (configured headers, the Authorization header, the token query
// parameter) to the configured origin: a request to another origin, after
// a redirect or to an endpoint a server handed out, goes without them.
// It is the innermost layer, so whatever the layers above added is
// stripped here.
type watchTransport struct {
	base       *http.Transport
	connected  atomic.Bool // set once Dial succeeded
	lost       func(error)
	maxMessage int
	spec       *Spec
	confine    egress.Confine
}

// maxIdlePerServer bounds the idle HTTP connections kept to one server.
const maxIdlePerServer = 32

func newWatchTransport(lost func(error), s *Spec) *watchTransport {
	base := http.DefaultTransport.(*http.Transport).Clone()
	// One connection may carry the requests of many callers at once (on
	// 2026-07-28, of every user of a Bridge): keep more than net/http's
	// two idle connections, so that each burst does not dial anew.
	base.MaxIdleConnsPerHost = maxIdlePerServer
	return &watchTransport{base: base, lost: lost, maxMessage: s.maxMessage(), spec: s, confine: s.confine()}
}

// RoundTrip forwards req; a network failure of a request nobody cancelled,
// after Dial, means the server is gone.
func (w *watchTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := w.base.RoundTrip(outgoingRequest(w.confine.Request(req), w.spec.Outgoing))
	limitBody(resp, w.maxMessage, w.lost)
	guardBody(resp, w.spec, w.lost)
	if err != nil && req.Context().Err() == nil && w.connected.Load() {
		w.lost(fmt.Errorf("%s %s: %w", req.Method, req.URL.Redacted(), err))
	}
	return resp, err
}
