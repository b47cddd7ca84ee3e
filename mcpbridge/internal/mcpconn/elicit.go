package mcpconn

import (
	"context"
	"fmt"

	"github.com/mark3labs/mcp-go/client"
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
//
// Without Spec.Elicit the connection declares no elicitation capability
// and installs no handler: a server that asks anyway gets an error (and
// so does the tool call on 2026-07-28), never a "decline" nobody gave.

// elicitor answers elicitations through Spec.Elicit.
type elicitor struct{ c *Conn }

// Elicit implements mcp-go's client.ElicitationHandler.
func (e elicitor) Elicit(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	kind := AskForm
	if req.Params.Mode == mcp.ElicitationModeURL {
		kind = AskURL
	}
	if err := e.c.admit(ctx, kind); err != nil {
		return nil, err
	}
	return e.answer(ctx, req)
}

// answer puts an admitted request to Spec.Elicit.
func (e elicitor) answer(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	s := &e.c.spec
	// A server's elicitation/create comes with the transport's context:
	// bound the question by the connection's life and the longest a call
	// may run, since a person may be answering it; meanwhile the calls'
	// silence limit is held (see clock).
	ctx, cancel := context.WithTimeout(ctx, s.questionTime())
	defer cancel()
	defer e.c.clock.hold()()
	stop := context.AfterFunc(e.c.alive, cancel)
	defer stop()
	if req.Params.Mode == mcp.ElicitationModeURL && req.Params.ElicitationID != "" {
		done, release := e.c.AwaitElicitation(req.Params.ElicitationID)
		defer release()
		ctx = context.WithValue(ctx, completedKey{}, done)
	}
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

// featureOptions are the mcp-go client options of the client features the
// spec offers: the handlers, and the one set of capabilities that names
// them (form and URL elicitation; roots with listChanged; sampling, see
// samplingOptions; the tasks extension, see tasks26.go).
func (s *Spec) featureOptions(c *Conn) []client.ClientOption {
	opts := s.samplingOptions(c)
	caps := mcp.ClientCapabilities{Extensions: extensionCapabilities()}
	s.taskCapabilities(&caps)
	if s.Elicit != nil {
		opts = append(opts, client.WithElicitationHandler(elicitor{c}))
		caps.Elicitation = &mcp.ElicitationCapability{Form: &struct{}{}, URL: &struct{}{}}
	}
	if s.Roots != nil {
		opts = append(opts, client.WithRootsHandler(rootsHandler{c}))
	}
	return append(opts, client.WithClientCapabilities(caps))
}
