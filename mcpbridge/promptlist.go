package mcpbridge

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/mcpgenai/bridge/mcpbridge/internal/mcpconn"
)

// promptList keeps the prompt list of one server's connection: read when
// the connection is made and again after each
// notifications/prompts/list_changed, so that listing prompts and checking
// a prompt's arguments need no request of their own. It is safe for
// concurrent use; its zero value holds no list.
type promptList struct {
	mu sync.Mutex
	// conn is the connection list was read over; nil when there is none.
	// A list of another connection is never served.
	conn *mcpconn.Conn
	list []Prompt // never modified once stored; callers get copies
	// gen counts the notifications: a read that began before the latest
	// one may be out of date and is not kept.
	gen uint64
	// reading is closed when the read under way ends; nil when none is.
	reading chan struct{}
}

// get returns the list read over conn, reading it with read when there is
// none (first use, after a notification, or on a new connection). One read
// runs at a time: a get that finds one under way waits for it (or for ctx)
// instead of sending a request of its own. A failed read leaves nothing
// behind, so the next get reads again. The Prompts returned are the
// caller's.
func (p *promptList) get(ctx context.Context, conn *mcpconn.Conn, read func(context.Context) ([]Prompt, error)) ([]Prompt, error) {
	for {
		p.mu.Lock()
		if p.conn == conn && conn != nil {
			list := p.list
			p.mu.Unlock()
			return clonePrompts(list), nil
		}
		if wait := p.reading; wait != nil {
			p.mu.Unlock()
			select {
			case <-wait:
				continue
			case <-ctx.Done():
				return nil, fmt.Errorf("waiting for the prompt list: %w", context.Cause(ctx))
			}
		}
		gen, done := p.gen, make(chan struct{})
		p.reading = done
		p.mu.Unlock()

		list, err := read(ctx)
		p.mu.Lock()
		p.reading = nil
		close(done)
		if err == nil && p.gen == gen {
			p.conn, p.list = conn, list
		}
		p.mu.Unlock()
		if err != nil {
			return nil, err
		}
		return clonePrompts(list), nil
	}
}

// changed forgets the list: the server said it changed. A read under way
// is not kept either.
func (p *promptList) changed() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.gen++
	p.conn, p.list = nil, nil
}

// clonePrompts returns a copy of ps that shares nothing with it.
func clonePrompts(ps []Prompt) []Prompt {
	if ps == nil {
		return nil
	}
	out := slices.Clone(ps)
	for i := range out {
		out[i].Arguments = slices.Clone(out[i].Arguments)
		out[i].Icons = cloneIcons(out[i].Icons)
	}
	return out
}
