package mcpconn

import (
	"context"
	"sync"
)

// A URL elicitation happens outside the connection: the user visits a
// page. A server may say when that interaction is over with
// notifications/elicitation/complete naming the elicitation's id;
// completions are how the connection hands that on.

// completions maps the ids of URL elicitations in progress to channels
// closed when the server reports them complete. The zero value is ready.
type completions struct {
	mu      sync.Mutex
	waiting map[string]*completion
}

// completion is one awaited id: done closes at most once, and the entry
// lives while anyone awaits it.
type completion struct {
	done  chan struct{}
	users int
}

// await returns a channel closed when the server reports id complete, and
// a function to call when it is no longer awaited. Several may await the
// same id.
func (cs *completions) await(id string) (<-chan struct{}, func()) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.waiting == nil {
		cs.waiting = map[string]*completion{}
	}
	w := cs.waiting[id]
	if w == nil {
		w = &completion{done: make(chan struct{})}
		cs.waiting[id] = w
	}
	w.users++
	var once sync.Once
	return w.done, func() {
		once.Do(func() {
			cs.mu.Lock()
			defer cs.mu.Unlock()
			if w.users--; w.users == 0 && cs.waiting[id] == w {
				delete(cs.waiting, id)
			}
		})
	}
}

// complete closes the channel of id, if it is awaited; an id nobody awaits
// (unknown, or already complete) is ignored.
func (cs *completions) complete(id string) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	w := cs.waiting[id]
	if w == nil {
		return
	}
	delete(cs.waiting, id)
	close(w.done)
}

// AwaitElicitation returns a channel that is closed when the server
// reports the URL elicitation id complete (notifications/elicitation/
// complete), and a function to call once it is no longer awaited, which
// frees it. The channel stays open if the server never says so.
func (c *Conn) AwaitElicitation(id string) (<-chan struct{}, func()) {
	return c.elicitations.await(id)
}

type completedKey struct{}

// ElicitationCompleted returns, within [Spec.Elicit] for a URL
// elicitation with an id, the channel closed when the server reports it
// complete; nil otherwise.
func ElicitationCompleted(ctx context.Context) <-chan struct{} {
	ch, _ := ctx.Value(completedKey{}).(<-chan struct{})
	return ch
}
