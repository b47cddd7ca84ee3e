package testserver

import (
	"context"
	"fmt"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// addGather adds the tool "gather": a call waits until "n" calls of it
// (default 2) are in flight at once, then all of them return "gathered n".
// A call whose request is cancelled first returns its context's error and
// no longer counts. A test of concurrency thus waits for an event, not for
// a time: calls made one after the other never gather.
func addGather(s *server.MCPServer) {
	var g gathering
	s.AddTool(mcp.NewTool("gather", mcp.WithDescription("returns once n calls of it are in flight"), mcp.WithNumber("n")),
		func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			n := int(r.GetFloat("n", 2))
			if err := g.wait(ctx, n); err != nil {
				return nil, err
			}
			return mcp.NewToolResultText(fmt.Sprintf("gathered %d", n)), nil
		})
}

// gathering counts the calls waiting in the current round.
type gathering struct {
	mu      sync.Mutex
	waiting int
	full    chan struct{} // closed when the round is full; nil before the first call
}

// wait joins the current round and returns when n calls joined it, or with
// ctx's error.
func (g *gathering) wait(ctx context.Context, n int) error {
	g.mu.Lock()
	if g.full == nil {
		g.full = make(chan struct{})
	}
	full := g.full
	g.waiting++
	if g.waiting >= n {
		close(full)
		g.waiting, g.full = 0, nil
	}
	g.mu.Unlock()
	select {
	case <-full:
		return nil
	case <-ctx.Done():
		g.mu.Lock()
		if g.full == full {
			g.waiting--
		}
		g.mu.Unlock()
		return ctx.Err()
	}
}
