package mcpconn

import (
	"context"
	"net/http"
	"sync"
	"time"
)

// On a streamable-HTTP connection before 2026-07-28, what the server sends
// outside a request (list_changed, log messages, and the questions of a
// server that asks on that stream: roots, sampling, elicitation) travels on
// the GET stream mcp-go opens after the handshake, in a goroutine of its
// own. A request sent before that stream is open may make the server ask
// before anyone listens: mcp-go's server with an event store (v1.2.1)
// starts the session's stream when the GET comes, and a question already
// queued may be recorded on it before the GET's connection is attached to
// it (streamable_http_resume.go: ensureListeningStream, then attach), so
// the question is never sent and the call that waits for its answer waits
// until its timeout. Dial therefore returns once the server has answered
// the first GET (open or refused), within listenOpenWait.

// listenOpenWait bounds how long Dial waits for the server to answer the
// first GET of the stream: a server that holds its headers until it has
// something to send costs each connect that much, and loses nothing.
const listenOpenWait = time.Second

// getOpen tells when the server answered the first GET of a streamable-HTTP
// connection's stream (a GET without Last-Event-ID), whatever the answer.
type getOpen struct {
	once     sync.Once
	answered chan struct{}
}

func newGetOpen() *getOpen { return &getOpen{answered: make(chan struct{})} }

// seen notes a GET's round trip: the first one without Last-Event-ID that
// came back (with a response or an error) closes answered.
func (g *getOpen) seen(req *http.Request) {
	if g == nil || req.Method != http.MethodGet || req.Header.Get("Last-Event-ID") != "" {
		return
	}
	g.once.Do(func() { close(g.answered) })
}

// wait waits until the first GET was answered, within ctx and
// listenOpenWait, and while the connection lives; it reports whether the
// GET was answered.
func (g *getOpen) wait(ctx, alive context.Context) bool {
	t := time.NewTimer(listenOpenWait)
	defer t.Stop()
	select {
	case <-g.answered:
		return true
	case <-ctx.Done():
	case <-alive.Done():
	case <-t.C:
	}
	return false
}
