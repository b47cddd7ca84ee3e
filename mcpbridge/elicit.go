package mcpbridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpgenai/bridge/mcpbridge/elicit"
	"github.com/mcpgenai/bridge/mcpbridge/internal/elicitation"
	"github.com/mcpgenai/bridge/mcpbridge/internal/mcpconn"
	"github.com/mcpgenai/bridge/mcpbridge/internal/result"
)

// callKey carries the tool call under way, for the elicit.Request of a
// multi-round-trip request (whose context is the call's).
type callKey struct{}

// elicitCall is one tool call as elicitation sees it.
type elicitCall struct {
	tool string
}

// callContext is a context carrying an elicitCall under callKey, built with
// one allocation (context.WithValue and the call would take two). Every
// other method and value is its parent's, so cancellation propagates
// exactly as through context.WithValue.
//
// With outer, it is also the call's mcpconn.TaskWaiter: on 2026-07-28 a
// server may answer any tools/call with a task, while ctx carries the
// tool's Timeout, meant for the tools/call alone. The task is then waited
// out in a context made from outer, within the Bridge's life only (the
// connection bounds it by MaxCallTime), carrying the same call; tasked
// records that it happened.
type callContext struct {
	context.Context
	call   elicitCall
	b      *Bridge
	outer  context.Context
	tasked atomic.Bool
	// record keeps the call's task in the shared store; nil: not kept.
	record *taskRecord
}

func (c *callContext) Value(key any) any {
	switch key {
	case callKey{}:
		return &c.call
	case mcpconn.TaskWaitKey{}:
		if c.outer != nil {
			return c
		}
	case mcpconn.TaskRecordKey{}:
		if c.record != nil {
			return c.record
		}
	}
	return c.Context.Value(key)
}

// TaskContext implements mcpconn.TaskWaiter.
func (c *callContext) TaskContext() (context.Context, func(), bool) {
	c.tasked.Store(true)
	ctx, cancel, key := c.b.within(c.outer, 0)
	return &callContext{Context: ctx, call: c.call}, func() {
		cancel()
		c.b.inLife.Remove(key)
	}, true
}

// elicitFor returns the connection's elicitation hook for server, which
// asks e (not nil).
func elicitFor(server string, e func(context.Context, elicit.Request) (elicit.Response, error)) func(context.Context, mcp.ElicitationParams) (mcp.ElicitationResponse, error) {
	return func(ctx context.Context, p mcp.ElicitationParams) (mcp.ElicitationResponse, error) {
		q, err := question(server, p)
		if err != nil {
			return mcp.ElicitationResponse{}, err
		}
		if cl, _ := ctx.Value(callKey{}).(*elicitCall); cl != nil {
			q.ServerTool = cl.tool
		}
		if q.URL != "" {
			q.Completed = mcpconn.ElicitationCompleted(ctx)
		}
		a, err := e(ctx, q)
		if err != nil {
			return mcp.ElicitationResponse{}, fmt.Errorf("asking the user: %w", err)
		}
		return elicitAnswer(q, a), nil
	}
}

// question is the elicit.Request of p from server, as the host sees it: the
// message and id cleaned for a person, the URL checked, the form held to
// the specification's restricted schema and cleaned (see
// [elicitation.CheckForm]). A question the host must not see (an unsafe
// URL, a form in another shape, text past its bound) is an error, which
// the server gets instead of an answer.
func question(server string, p mcp.ElicitationParams) (elicit.Request, error) {
	if len(p.Message) > elicitation.MaxMessageBytes {
		return elicit.Request{}, fmt.Errorf("elicitation message of %d bytes, at most %d", len(p.Message), elicitation.MaxMessageBytes)
	}
	q := elicit.Request{Server: server, Message: result.CleanText(p.Message, -1)}
	if p.Mode == mcp.ElicitationModeURL {
		if p.URL == "" {
			return elicit.Request{}, fmt.Errorf("url elicitation without a url")
		}
		if len(p.ElicitationID) > elicitation.MaxIDBytes {
			return elicit.Request{}, fmt.Errorf("url elicitation id of %d bytes, at most %d", len(p.ElicitationID), elicitation.MaxIDBytes)
		}
		u, err := elicitation.CheckURL(p.URL)
		if err != nil {
			return elicit.Request{}, fmt.Errorf("url elicitation not offered to the user: %w", err)
		}
		q.URL, q.ID = u, result.CleanText(p.ElicitationID, -1)
		return q, nil
	}
	if p.RequestedSchema == nil {
		return elicit.Request{}, errors.New("form elicitation without a requested schema")
	}
	b, err := json.Marshal(p.RequestedSchema)
	if err != nil {
		return elicit.Request{}, fmt.Errorf("elicitation schema: %w", err)
	}
	if q.Schema, err = elicitation.CheckForm(b); err != nil {
		return elicit.Request{}, fmt.Errorf("form not offered to the user: %w", err)
	}
	return q, nil
}

// elicitAnswer is the response to the server of the host's answer a to q: for
// an accepted form, the content with the schema's defaults for the fields
// the user left out.
func elicitAnswer(q elicit.Request, a elicit.Response) mcp.ElicitationResponse {
	switch a.Action {
	case elicit.Accept:
		r := mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept}
		if q.URL == "" {
			r.Content = elicitation.ApplyDefaults(q.Schema, a.Content)
			if r.Content == nil {
				r.Content = map[string]any{}
			}
		}
		return r
	case elicit.Decline:
		return mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionDecline}
	}
	return mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionCancel}
}
