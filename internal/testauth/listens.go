package testauth

import (
	"context"
	"net/http"
	"sync"
)

// listens records the subscriptions/listen requests (the 2026-07-28
// notification stream) a Protected server got, and ends the open ones on
// demand, as a server or a proxy in front of it ends long streams.
type listens struct {
	mu      sync.Mutex
	seen    []string // the subject of each request's token; Refused when none was valid
	open    map[*http.Request]context.CancelFunc
	arrived chan struct{} // closed and replaced at each request
}

// Refused is what [Protected.Listens] reports for a listen request sent
// without a valid token.
const Refused = "(refused)"

// isListen reports whether r is a subscriptions/listen request.
func isListen(r *http.Request) bool {
	return r.Method == http.MethodPost && r.Header.Get("Mcp-Method") == "subscriptions/listen"
}

// listened records a listen request whose token names sub (ok false:
// refused) and returns the request to serve, which [Protected.EndListens]
// can end.
func (p *Protected) listened(r *http.Request, sub string, ok bool) *http.Request {
	l := &p.listens
	l.mu.Lock()
	defer l.mu.Unlock()
	if !ok {
		sub = Refused
	}
	l.seen = append(l.seen, sub)
	if l.arrived != nil {
		close(l.arrived)
		l.arrived = nil
	}
	if !ok {
		return r
	}
	ctx, cancel := context.WithCancel(r.Context())
	r = r.WithContext(ctx)
	if l.open == nil {
		l.open = map[*http.Request]context.CancelFunc{}
	}
	l.open[r] = cancel
	return r
}

// listenDone forgets r, a listen request served.
func (p *Protected) listenDone(r *http.Request) {
	l := &p.listens
	l.mu.Lock()
	defer l.mu.Unlock()
	if cancel := l.open[r]; cancel != nil {
		cancel()
		delete(l.open, r)
	}
}

// EndListens ends every subscriptions/listen stream open now (the server
// answers them as if they had run their course) and returns how many it
// ended; the client is expected to send the request again.
func (p *Protected) EndListens() int {
	l := &p.listens
	l.mu.Lock()
	defer l.mu.Unlock()
	n := len(l.open)
	for r, cancel := range l.open {
		cancel()
		delete(l.open, r)
	}
	return n
}

// Listens waits, within ctx, until the server has got at least n
// subscriptions/listen requests, and returns the subject of each one's
// token in order ([Refused] for one without a valid token): the user
// whose credentials a client's own stream carries.
func (p *Protected) Listens(ctx context.Context, n int) ([]string, error) {
	l := &p.listens
	for {
		l.mu.Lock()
		if len(l.seen) >= n {
			out := append([]string(nil), l.seen...)
			l.mu.Unlock()
			return out, nil
		}
		if l.arrived == nil {
			l.arrived = make(chan struct{})
		}
		ch := l.arrived
		l.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			l.mu.Lock()
			out := append([]string(nil), l.seen...)
			l.mu.Unlock()
			return out, context.Cause(ctx)
		}
	}
}
