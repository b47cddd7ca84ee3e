package mcpbridge

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
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
	// Message says what is asked and why, in the server's words.
	Message string
	// Schema is the JSON Schema of the form: an object of flat properties.
	// Nil when URL is set.
	Schema json.RawMessage
	// URL, when not empty, is the page the server asks the user to visit,
	// and ID the server's id for this request; both are "" for a form.
	URL string
	ID  string
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
// the three defined ones counts as [ElicitCancel].
type ElicitResponse struct {
	Action ElicitAction
	// Content is the form's values when Action is ElicitAccept; it is
	// ignored for a URL and for the other actions.
	Content map[string]any
}

// callKey carries the tool call under way, for the Elicitation of a
// multi-round-trip request (whose context is the call's).
type callKey struct{}

// elicitCall is one tool call as elicitation sees it.
type elicitCall struct {
	tool     string
	mu       sync.Mutex
	declined []string // messages declined for want of ClientFeatures.Elicit
}

// withCall returns ctx carrying a new call of tool.
func withCall(ctx context.Context, tool string) (context.Context, *elicitCall) {
	c := &callContext{Context: ctx, call: elicitCall{tool: tool}}
	return c, &c.call
}

// callContext is a context carrying an elicitCall under callKey, built with
// one allocation (context.WithValue and the call would take two). Every
// other method and value is its parent's, so cancellation propagates
// exactly as through context.WithValue.
type callContext struct {
	context.Context
	call elicitCall
}

func (c *callContext) Value(key any) any {
	if key == (callKey{}) {
		return &c.call
	}
	return c.Context.Value(key)
}

// note returns what the model should read about questions that were
// declined because the host cannot ask, or "".
func (c *elicitCall) note() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.declined) == 0 {
		return ""
	}
	return fmt.Sprintf("[The server asked the user for input (%q), but this program cannot ask the user, so the request was declined.]",
		strings.Join(c.declined, "; "))
}

// elicitFor returns the connection's elicitation hook for server: it asks
// e, or declines when e is nil (noting it on the call, when known, so the
// model is told).
func elicitFor(server string, e func(context.Context, Elicitation) (ElicitResponse, error)) func(context.Context, mcp.ElicitationParams) (mcp.ElicitationResponse, error) {
	return func(ctx context.Context, p mcp.ElicitationParams) (mcp.ElicitationResponse, error) {
		cl, _ := ctx.Value(callKey{}).(*elicitCall)
		if e == nil {
			if cl != nil {
				cl.mu.Lock()
				cl.declined = append(cl.declined, p.Message)
				cl.mu.Unlock()
			}
			return mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionDecline}, nil
		}
		q := Elicitation{Server: server, Message: p.Message}
		if cl != nil {
			q.ServerTool = cl.tool
		}
		if p.Mode == mcp.ElicitationModeURL {
			if p.URL == "" {
				return mcp.ElicitationResponse{}, fmt.Errorf("url elicitation without a url")
			}
			q.URL, q.ID = p.URL, p.ElicitationID
		} else if p.RequestedSchema != nil {
			b, err := json.Marshal(p.RequestedSchema)
			if err != nil {
				return mcp.ElicitationResponse{}, fmt.Errorf("elicitation schema: %w", err)
			}
			q.Schema = b
		}
		a, err := e(ctx, q)
		if err != nil {
			return mcp.ElicitationResponse{}, fmt.Errorf("asking the user: %w", err)
		}
		switch a.Action {
		case ElicitAccept:
			r := mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept}
			if q.URL == "" {
				r.Content = a.Content
			}
			return r, nil
		case ElicitDecline:
			return mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionDecline}, nil
		}
		return mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionCancel}, nil
	}
}
