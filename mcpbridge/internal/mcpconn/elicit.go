package mcpconn

import (
	"context"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
)

// A server asks the user something during a tool call in one of two ways:
// before 2026-07-28 it sends elicitation/create while the call runs; from
// 2026-07-28 the tools/call result says input_required, and the client
// calls again with the answers (multi round-trip). mcp-go drives both and
// calls the client's elicitation handler; elicitor is that handler, and
// passes each request to Spec.Elicit. The context of a multi round-trip
// request is the tool call's; that of elicitation/create is the
// connection's.

// elicitor answers elicitations through Spec.Elicit, or declines them when
// there is none.
type elicitor struct{ c *Conn }

// Elicit implements mcp-go's client.ElicitationHandler.
func (e elicitor) Elicit(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	s := &e.c.spec
	if s.Elicit == nil {
		e.c.log.Warn("mcp server asked the user for input, but the host has no handler; declined", "message", req.Params.Message)
		return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionDecline}}, nil
	}
	// A server's elicitation/create comes with the transport's context:
	// bound the question by the request timeout and the connection's life.
	ctx, cancel := context.WithTimeout(ctx, s.timeout())
	defer cancel()
	stop := context.AfterFunc(e.c.alive, cancel)
	defer stop()
	resp, err := s.Elicit(ctx, req.Params)
	if err != nil {
		return nil, err
	}
	switch resp.Action {
	case mcp.ElicitationResponseActionAccept, mcp.ElicitationResponseActionDecline, mcp.ElicitationResponseActionCancel:
	default:
		return nil, fmt.Errorf("elicitation answered with unknown action %q", resp.Action)
	}
	if resp.Action != mcp.ElicitationResponseActionAccept {
		resp.Content = nil
	}
	return &mcp.ElicitationResult{ElicitationResponse: resp}, nil
}
