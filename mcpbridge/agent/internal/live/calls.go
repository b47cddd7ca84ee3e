// Package live keeps track of the function calls that run apart from the
// turn that made them (a Live API session's calls, the background calls of
// a conversation), so that a cancellation reaches them by ID and an end
// leaves nothing running. The causes of cancellation are the caller's.
//
//	var calls live.Calls
//	calls.Go(func() {
//		ctx, end := calls.Start(ctx, call.ID)
//		r := run(ctx, call)
//		if !end() { send(r) } // a cancelled call's result is not sent
//	})
//	...
//	calls.Cancel(msg.ToolCallCancellation.IDs, errCancelledByAPI)
//	...
//	calls.Close(errSessionClosed) // cancels what runs and waits for it
package live

import (
	"context"
	"sync"
)

// Calls tracks running calls by ID. The zero value is ready to use; it is
// safe for concurrent use. After Close, Go runs nothing and Start's
// contexts are already cancelled.
type Calls struct {
	mu      sync.Mutex
	running map[string][]*entry
	closed  error // Close's cause; nil while open
	wg      sync.WaitGroup
}

type entry struct {
	cancel    context.CancelCauseFunc
	cancelled bool // by Cancel or Close, not by the parent
}

// Go runs f on a new goroutine that Close waits for. It reports false, and
// does not run f, once Close was called.
func (c *Calls) Go(f func()) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed != nil {
		return false
	}
	c.wg.Go(f)
	return true
}

// Start registers a call with id ("" cannot be cancelled by ID) and
// returns its context, derived from parent, and end, which forgets the
// call and reports whether Cancel or Close cancelled it (its result is
// then not wanted). end must be called once the call has ended.
func (c *Calls) Start(parent context.Context, id string) (ctx context.Context, end func() (cancelled bool)) {
	ctx, cancel := context.WithCancelCause(parent)
	e := &entry{cancel: cancel}
	c.mu.Lock()
	if c.closed != nil {
		cause := c.closed
		c.mu.Unlock()
		cancel(cause)
		return ctx, func() bool { return true }
	}
	if c.running == nil {
		c.running = map[string][]*entry{}
	}
	c.running[id] = append(c.running[id], e)
	c.mu.Unlock()
	return ctx, func() bool {
		c.mu.Lock()
		list := c.running[id]
		for i, x := range list {
			if x == e {
				list = append(list[:i:i], list[i+1:]...)
				break
			}
		}
		if len(list) == 0 {
			delete(c.running, id)
		} else {
			c.running[id] = list
		}
		cancelled := e.cancelled
		c.mu.Unlock()
		cancel(nil)
		return cancelled
	}
}

// Cancel cancels the running calls with the given IDs (the empty ID
// excepted), cause being the cause of their contexts, and returns how many
// it cancelled; unknown IDs (calls that already ended) are ignored.
func (c *Calls) Cancel(ids []string, cause error) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, id := range ids {
		if id == "" {
			continue
		}
		for _, e := range c.running[id] {
			if !e.cancelled {
				e.cancelled = true
				e.cancel(cause)
				n++
			}
		}
	}
	return n
}

// Running reports how many calls are running.
func (c *Calls) Running() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, list := range c.running {
		n += len(list)
	}
	return n
}

// Close cancels every running call, cause being the cause of their
// contexts (and of the contexts Start gives afterwards), and waits for the
// functions Go started. cause must not be nil. It may be called more than
// once; the first cause stays.
func (c *Calls) Close(cause error) {
	c.mu.Lock()
	if c.closed == nil {
		c.closed = cause
	}
	for _, list := range c.running {
		for _, e := range list {
			e.cancelled = true
			e.cancel(c.closed)
		}
	}
	c.mu.Unlock()
	c.wg.Wait()
}
