package mcpconn

import (
	"context"
	"crypto/rand"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
)

// ProgressFunc receives one notifications/progress of a request: the
// progress so far (it grows with each call), the total to reach (0 when
// the server does not know it) and the server's note ("" when none).
type ProgressFunc func(progress, total float64, message string)

type progressKey struct{}

// WithProgress returns a context whose tools/call requests carry a progress
// token; fn receives the server's notifications for that request (the
// progress so far, the total to reach or 0 when unknown, and the server's
// note, if any) in the order they arrive, on the goroutine reading the connection, until the
// request returns; a notification whose progress does not exceed the last
// one's is dropped. A task's status messages (see [Conn.CallTask]) arrive
// with the last progress and total, on the caller's goroutine. fn must
// return quickly.
func WithProgress(ctx context.Context, fn ProgressFunc) context.Context {
	return context.WithValue(ctx, progressKey{}, fn)
}

// progressWaiter is one request that asked for progress.
type progressWaiter struct {
	conn *Conn // a notification counts only from this connection
	fn   ProgressFunc
	mu   sync.Mutex // one notification at a time, none after done
	done bool
	last float64 // the last progress handed on
	any  bool    // whether one was handed on
	// total is the last total handed on.
	total float64
	// beat, when not nil, hears of each notification handed on.
	beat *keepAlive
}

// progressWaiters maps a progress token to its request. Tokens are random,
// so one server cannot guess the token of a request sent to another.
var progressWaiters sync.Map // string -> *progressWaiter

// AsksProgress reports whether ctx comes from [WithProgress]: a call made
// with it may outlive Timeout while progress keeps coming.
func AsksProgress(ctx context.Context) bool {
	fn, _ := ctx.Value(progressKey{}).(ProgressFunc)
	return fn != nil
}

// noProgress is askProgress's done when ctx asks for no progress.
func noProgress() {}

// askProgress returns the waiter and progress token for a request sent
// with ctx (nil and "" when ctx asks for none) and a function to call when
// the request has returned.
func (c *Conn) askProgress(ctx context.Context) (*progressWaiter, string, func()) {
	fn, _ := ctx.Value(progressKey{}).(ProgressFunc)
	if fn == nil {
		return nil, "", noProgress
	}
	// A local, not the result: a result the closure captured would be
	// moved to the heap on every call, even those without progress.
	t := "mcpbridge-" + rand.Text()
	pw := &progressWaiter{conn: c, fn: fn} // a local too: see t
	progressWaiters.Store(t, pw)
	return pw, t, func() {
		progressWaiters.Delete(t)
		pw.mu.Lock()
		pw.done = true
		pw.mu.Unlock()
	}
}

// onProgress hands a notifications/progress to the request it names. A
// notification with an unknown token, from another connection, in a bad
// shape, or whose progress does not exceed the last one handed on (progress
// must grow; a notification overtaken by a later one is stale) is dropped.
func (c *Conn) onProgress(n mcp.JSONRPCNotification) {
	f := n.Params.AdditionalFields
	token, ok := f["progressToken"].(string)
	if !ok {
		return
	}
	v, ok := progressWaiters.Load(token)
	if !ok {
		return
	}
	w := v.(*progressWaiter)
	if w.conn != c {
		return
	}
	p, ok := f["progress"].(float64)
	if !ok {
		return
	}
	total, _ := f["total"].(float64)
	msg, _ := f["message"].(string)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done || (w.any && p <= w.last) {
		return
	}
	w.last, w.any, w.total = p, true, total
	if w.beat != nil {
		w.beat.beat()
	}
	w.fn(p, total, msg)
}

// status hands on a task's status message as a report whose progress and
// total are those of the last report (0 before any).
func (w *progressWaiter) status(msg string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return
	}
	w.fn(w.last, w.total, msg)
}

// setBeat sets what hears of each notification handed on (nil: nothing).
func (w *progressWaiter) setBeat(beat *keepAlive) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.beat = beat
}
