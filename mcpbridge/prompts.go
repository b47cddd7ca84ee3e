package mcpbridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/mcpbridge/internal/mcpconn"
	"github.com/mcpgenai/bridge/mcpbridge/internal/result"
)

// Prompt is one prompt (a message template) a server offers.
type Prompt struct {
	// Server is the configured server name.
	Server string `json:"server"`
	// Name is the prompt's name as the server lists it, never "".
	Name string `json:"name"`
	// Title (for a person) and Description are the server's, as it sent
	// them: unverified, and not cleaned of control characters ("" when
	// it gave none).
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	// Arguments are the values the prompt takes, in the server's order.
	Arguments []PromptArgument `json:"arguments,omitempty"`
	// Icons are the prompt's icons a host may show (see [Icon]).
	Icons []Icon `json:"icons,omitempty"`
}

// PromptArgument is one argument of a [Prompt].
type PromptArgument struct {
	// Name is the key of the argument in [Bridge.GetPrompt]'s args, never
	// "".
	Name string `json:"name"`
	// Title and Description are the server's, as for [Prompt].
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	// Required arguments must be given to [Bridge.GetPrompt].
	Required bool `json:"required,omitempty"`
}

// ListPrompts lists the prompts of the named server, in the server's
// order. The list is read page by page when the server connects and again
// each time it reports that its prompts changed; calls in between are
// served from it without a request. A disconnected server is reconnected
// as for a tool call (see [Bridge]). A server that declared no prompts has
// none (no request is sent). Entries that are not objects or have no name
// are skipped. The slice and its Prompts are the caller's.
//
// With server "", it lists the prompts of every connected server, in
// configuration order: a server that fails does not hide the others, whose
// prompts are returned with the failures joined in the error.
func (b *Bridge) ListPrompts(ctx context.Context, server string) ([]Prompt, error) {
	if server == "" {
		return b.allPrompts(ctx)
	}
	return b.promptsOf(ctx, server)
}

// promptsOf lists the prompts of the named server for ctx's user.
func (b *Bridge) promptsOf(ctx context.Context, name string) ([]Prompt, error) {
	var out []Prompt
	err := b.onServerAt(ctx, name, func(ctx context.Context, s *server, conn *mcpconn.Conn) (err error) {
		out, err = b.promptsOver(ctx, s, conn)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// promptsOver returns the prompts of s over conn, from the kept list when
// there is one.
func (b *Bridge) promptsOver(ctx context.Context, s *server, conn *mcpconn.Conn) ([]Prompt, error) {
	if !conn.Offers().Prompts {
		return []Prompt{}, nil
	}
	return s.prompts.get(ctx, conn, func(ctx context.Context) ([]Prompt, error) {
		return b.readPrompts(ctx, s.cfg.Name, conn)
	})
}

// readPrompts reads the prompt list of the named server over conn.
func (b *Bridge) readPrompts(ctx context.Context, server string, conn *mcpconn.Conn) ([]Prompt, error) {
	raws, err := conn.ListPrompts(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Prompt, 0, len(raws))
	for _, raw := range raws {
		var w struct {
			Prompt
			Icons json.RawMessage `json:"icons"` // read apart: bad icons drop only themselves
		}
		if json.Unmarshal(raw, &w) != nil || w.Name == "" {
			b.log.Warn("mcp server listed a prompt in a bad shape; skipped", "server", server)
			continue
		}
		p := w.Prompt
		p.Icons = redactIcons(b.redact, iconsOf(w.Icons))
		p.Server = server
		p.Arguments = slices.DeleteFunc(p.Arguments, func(a PromptArgument) bool { return a.Name == "" })
		out = append(out, p)
	}
	return out, nil
}

// promptsChanged handles notifications/prompts/list_changed (on the
// connection's event goroutine; mcpconn coalesces them): the kept list of
// s is dropped and, when l is the current connection, read again at once.
// A failed read leaves no list, so the next use reads it.
func (b *Bridge) promptsChanged(s *server, l *link) {
	s.prompts.changed()
	b.mu.Lock()
	installed := s.link == l && !b.closed
	b.mu.Unlock()
	if !installed || !l.conn.Offers().Prompts {
		return
	}
	ctx, cancel := context.WithTimeout(b.life, s.cfg.effectiveTimeout())
	defer cancel()
	ps, err := b.promptsOver(ctx, s, l.conn)
	if err != nil {
		b.log.Warn("mcp server prompts changed, but listing them failed; listing again on use",
			"server", s.cfg.Name, "err", s.redac.Text(err.Error()))
		return
	}
	b.log.Info("mcp server prompts changed", "server", s.cfg.Name, "prompts", len(ps))
}

// allPrompts lists the prompts of every connected server (see
// [Bridge.ListPrompts]).
func (b *Bridge) allPrompts(ctx context.Context) ([]Prompt, error) {
	b.mu.Lock()
	u, err := b.enterLocked(ctx)
	if err != nil {
		b.mu.Unlock()
		return nil, err
	}
	defer b.leave(u)
	names := b.connectedLocked(u)
	b.mu.Unlock()
	var out []Prompt
	var errs []error
	for _, n := range names {
		ps, err := b.ListPrompts(ctx, n)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, ps...)
	}
	return out, errors.Join(errs...)
}

// GetPrompt fills the prompt name of the named server with args and returns
// its messages as contents ready to append to a history: a user message
// becomes a [genai.RoleUser] content, an assistant message a
// [genai.RoleModel] one, each with one part converted like a tool result's
// content (text, inline data for images, audio and blobs, a note for a
// resource link or an unknown type). Prompt text is not cut to
// [Options.TextLimit], which bounds what calls return: the person chose the
// prompt; [Options.MaxMessageBytes] bounds its size.
//
// The prompt is looked up in the server's kept list first (see
// [Bridge.ListPrompts]), without a request of its own: an unknown
// name wraps [ErrUnknownPrompt]; a missing required argument, or an
// argument the prompt does not take, wraps [ErrInvalidArguments] and names
// them. args is not modified.
func (b *Bridge) GetPrompt(ctx context.Context, server, name string, args map[string]string) ([]*genai.Content, error) {
	prompts, err := b.ListPrompts(ctx, server)
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(prompts, func(p Prompt) bool { return p.Name == name })
	if i < 0 {
		return nil, fmt.Errorf("mcp server %q: %w %q", server, ErrUnknownPrompt, name)
	}
	if err := checkPromptArgs(prompts[i], args); err != nil {
		return nil, fmt.Errorf("mcp server %q: prompt %q: %w", server, name, err)
	}
	var raw json.RawMessage
	err = b.onServer(ctx, server, func(ctx context.Context, conn *mcpconn.Conn) (err error) {
		raw, err = conn.GetPrompt(ctx, name, args)
		return err
	})
	if err != nil {
		return nil, err
	}
	contents, err := result.PromptContents(raw)
	if err != nil {
		return nil, b.redact.redactErr(fmt.Errorf("mcp server %q: prompts/get %q: %w", server, name, err))
	}
	for _, c := range contents {
		if c != nil {
			c.Parts = b.redact.redactParts(c.Parts)
		}
	}
	return contents, nil
}

// checkPromptArgs reports the required arguments of p missing from args and
// the keys of args p does not take, each in sorted order.
func checkPromptArgs(p Prompt, args map[string]string) error {
	known := make(map[string]bool, len(p.Arguments))
	var missing, unknown []string
	for _, a := range p.Arguments {
		known[a.Name] = true
		if _, ok := args[a.Name]; a.Required && !ok {
			missing = append(missing, a.Name)
		}
	}
	for k := range args {
		if !known[k] {
			unknown = append(unknown, k)
		}
	}
	if len(missing) == 0 && len(unknown) == 0 {
		return nil
	}
	sort.Strings(missing)
	sort.Strings(unknown)
	var why []string
	if len(missing) > 0 {
		why = append(why, "missing required "+strings.Join(missing, ", "))
	}
	if len(unknown) > 0 {
		why = append(why, "unknown "+strings.Join(unknown, ", "))
	}
	return fmt.Errorf("%w: %s", ErrInvalidArguments, strings.Join(why, "; "))
}
