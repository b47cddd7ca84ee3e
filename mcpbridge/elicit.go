package mcpbridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpgenai/bridge/mcpbridge/internal/elicitation"
	"github.com/mcpgenai/bridge/mcpbridge/internal/mcpconn"
	"github.com/mcpgenai/bridge/mcpbridge/internal/result"
)

// Elicitation is a server's request for input from the user while one of
// its tools runs. It comes in two forms: a form to fill in, described by
// Schema, or, when URL is set, a page for the user to visit (to log in or
// consent, for example) with nothing typed back.
type Elicitation struct {
	// Server is the configured name of the asking server.
	Server string
	// ServerTool is the server's own name of the tool being called, when known:
	// a server older than protocol 2026-07-28 asks outside the call, and
	// then ServerTool is "".
	ServerTool string
	// Message says what is asked and why, in the server's words, cleaned
	// for a person (no escape sequences, no control characters but
	// newline and tab, no bidirectional formatting characters); at most 8
	// KiB.
	Message string
	// Schema is the JSON Schema of the form, in the specification's
	// restricted shape: an object whose properties are strings (with
	// minLength, maxLength and the formats email, uri, date, date-time),
	// numbers, integers (with minimum, maximum), booleans, single choices
	// (enum, with enumNames, or oneOf of const and title) and multiple
	// choices (an array whose items hold enum or anyOf), each with a
	// title, a description and a default that fits it, and required. Its
	// titles, descriptions and string defaults are cleaned like Message;
	// keywords outside that shape are left out. A form in another shape,
	// with more than 32 fields or 100 choices in a field, a title over
	// 256 bytes, a description over 2 KiB, or 64 KiB of JSON in all is
	// refused to the server and never reaches the host. Nil when URL is
	// set.
	Schema json.RawMessage
	// URL, when not empty, is the page the server asks the user to visit,
	// and ID the server's id for this request; both are "" for a form.
	// Only an https URL, or http to a loopback address, with an ASCII
	// host and nothing before it, reaches the host (see [ClientFeatures]);
	// ID is cleaned like Message.
	URL string
	ID  string
	// Completed, for a URL with an ID, is closed when the server says the
	// interaction at the page is complete
	// (notifications/elicitation/complete): a host waiting for the user to
	// come back may stop waiting then. It stays open when the server
	// never says so; nil for a form.
	Completed <-chan struct{}
}

// ElicitAction is the user's choice.
type ElicitAction int

const (
	// ElicitDecline: the user said no. The zero value.
	ElicitDecline ElicitAction = iota
	// ElicitAccept: the user answered (form) or agreed to visit (URL).
	ElicitAccept
	// ElicitCancel: the user dismissed the question without choosing.
	ElicitCancel
)

// ElicitResponse is the answer to an [Elicitation]. An Action other than
// the three defined ones counts as [ElicitCancel]. For a URL, ElicitAccept
// means the user has been to the page (or agreed to go): the Bridge goes
// on, and when the server had refused the tool call until the visit
// (URLElicitationRequired), it calls the tool once more.
type ElicitResponse struct {
	Action ElicitAction
	// Content is the form's values when Action is ElicitAccept; it is
	// ignored for a URL and for the other actions. A field of the form
	// left out of it takes the default the form's schema gives it, if
	// any. The Bridge does not modify it.
	Content map[string]any
}

// callKey carries the tool call under way, for the Elicitation of a
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
func elicitFor(server string, e func(context.Context, Elicitation) (ElicitResponse, error)) func(context.Context, mcp.ElicitationParams) (mcp.ElicitationResponse, error) {
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

// question is the Elicitation of p from server, as the host sees it: the
// message and id cleaned for a person, the URL checked, the form held to
// the specification's restricted schema and cleaned (see
// [elicitation.CheckForm]). A question the host must not see (an unsafe
// URL, a form in another shape, text past its bound) is an error, which
// the server gets instead of an answer.
func question(server string, p mcp.ElicitationParams) (Elicitation, error) {
	if len(p.Message) > elicitation.MaxMessageBytes {
		return Elicitation{}, fmt.Errorf("elicitation message of %d bytes, at most %d", len(p.Message), elicitation.MaxMessageBytes)
	}
	q := Elicitation{Server: server, Message: result.CleanText(p.Message, -1)}
	if p.Mode == mcp.ElicitationModeURL {
		if p.URL == "" {
			return Elicitation{}, fmt.Errorf("url elicitation without a url")
		}
		if len(p.ElicitationID) > elicitation.MaxIDBytes {
			return Elicitation{}, fmt.Errorf("url elicitation id of %d bytes, at most %d", len(p.ElicitationID), elicitation.MaxIDBytes)
		}
		u, err := elicitation.CheckURL(p.URL)
		if err != nil {
			return Elicitation{}, fmt.Errorf("url elicitation not offered to the user: %w", err)
		}
		q.URL, q.ID = u, result.CleanText(p.ElicitationID, -1)
		return q, nil
	}
	if p.RequestedSchema == nil {
		return Elicitation{}, errors.New("form elicitation without a requested schema")
	}
	b, err := json.Marshal(p.RequestedSchema)
	if err != nil {
		return Elicitation{}, fmt.Errorf("elicitation schema: %w", err)
	}
	if q.Schema, err = elicitation.CheckForm(b); err != nil {
		return Elicitation{}, fmt.Errorf("form not offered to the user: %w", err)
	}
	return q, nil
}

// elicitAnswer is the response to the server of the host's answer a to q: for
// an accepted form, the content with the schema's defaults for the fields
// the user left out.
func elicitAnswer(q Elicitation, a ElicitResponse) mcp.ElicitationResponse {
	switch a.Action {
	case ElicitAccept:
		r := mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept}
		if q.URL == "" {
			r.Content = elicitation.ApplyDefaults(q.Schema, a.Content)
			if r.Content == nil {
				r.Content = map[string]any{}
			}
		}
		return r
	case ElicitDecline:
		return mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionDecline}
	}
	return mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionCancel}
}
