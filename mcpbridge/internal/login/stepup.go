package login

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/mcpgenai/bridge/mcpbridge/auth"
)

// ErrInsufficientScope is wrapped by the error of a server that refuses
// the token for want of scope (403 insufficient_scope) although it was
// asked for the scopes the server names, or after MaxStepUps step-ups.
var ErrInsufficientScope = auth.ErrInsufficientScope

// MaxStepUps bounds the step-up logins in a row that a server's 403
// insufficient_scope may ask for without accepting a token in between.
const MaxStepUps = 2

// Forbidden handles a 403 to a request sent with authorization value sent.
// A Bearer challenge with error insufficient_scope starts a step-up: the
// scopes it names are recorded, and the state becomes
// [auth.StateLoginNeeded] (Scopes says which) so that the next login asks
// for them too. A server that names scopes the token was already asked
// for, or that still refuses after MaxStepUps step-ups, ends in
// [auth.StateFailed] with an error wrapping ErrInsufficientScope. Nothing
// is refreshed and nothing is sent again.
func (c *Client) Forbidden(ctx context.Context, resp *http.Response, sent string) {
	if sent == "" || challengeParam(resp.Header, "error") != "insufficient_scope" {
		return
	}
	need := challengeScopes(resp.Header)
	c.noteChallenge(resp.Header)
	var held []string
	if t, _ := c.store.load(ctx); t != nil {
		held = t.Scopes
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.cfg.Grant != nil && len(need) == 0:
		c.state, c.lastErr = auth.StateFailed, fmt.Errorf("mcp server %q: %w", c.cfg.Server, ErrInsufficientScope)
	case len(need) > 0 && subset(need, held):
		c.state, c.lastErr = auth.StateFailed, fmt.Errorf("mcp server %q: %w, though the token was asked for %s", c.cfg.Server, ErrInsufficientScope, strings.Join(need, " "))
	case c.stepUps >= MaxStepUps:
		c.state, c.lastErr = auth.StateFailed, fmt.Errorf("mcp server %q: %w after %d step-up logins (it asks for %s)", c.cfg.Server, ErrInsufficientScope, c.stepUps, strings.Join(need, " "))
	default:
		c.stepUp = need
		if c.stepUp == nil {
			c.stepUp = []string{}
		}
		c.state, c.lastErr = auth.StateLoginNeeded, fmt.Errorf("mcp server %q asks for a login with scopes %q (%w)", c.cfg.Server, strings.Join(need, " "), auth.ErrLoginRequired)
	}
}

// Scopes returns the scopes a step-up login is wanted for (those a 403
// insufficient_scope named), nil when none is.
func (c *Client) Scopes() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stepUp == nil {
		return nil
	}
	return slices.Clone(c.stepUp)
}

func subset(a, b []string) bool {
	for _, s := range a {
		if !slices.Contains(b, s) {
			return false
		}
	}
	return true
}
