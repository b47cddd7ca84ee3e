package mcpbridge

import (
	"context"
	"fmt"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/mcpbridge/internal/result"
	"github.com/mcpgenai/bridge/registry"
)

// HostFunction is one of the host program's own functions, declared
// beside the Bridge's tools ([DeclareOptions.Functions]) and run by
// [Declarations.Execute] as the Bridge's tools are, concurrently with them
// in [Declarations.ExecuteAll], its result in call order.
type HostFunction struct {
	// Declaration is the function's declaration. Its Name must be a valid
	// Gemini function name ([registry.ValidName]) and unique among the
	// host's functions; it is never renamed, and a Bridge tool registered
	// under the same name is declared as "server__tool" instead for the
	// request. A request carries a copy; Declaration is never modified.
	Declaration *genai.FunctionDeclaration
	// Handler runs one call with the model's arguments (an empty map when
	// the model sent none). A string result reaches the model as text; any
	// other value is encoded as JSON and sent as structured output. A
	// non-nil error reaches the model as the call's error (see
	// [NewResult]). A panic becomes an error result. nil sends the call
	// to [DeclareOptions.Fallback].
	Handler func(ctx context.Context, args map[string]any) (any, error)
}

// hostSet is the host's functions of one request: the function
// declarations of DeclareOptions.Tools and DeclareOptions.Functions.
type hostSet struct {
	decls    []*genai.FunctionDeclaration // in declaration order
	names    map[string]bool              // the names of decls
	handlers map[string]*HostFunction     // by name; nil Handler means the fallback
	fallback func(context.Context, *genai.FunctionCall) *CallResult
}

// newHostSet collects the host's declarations: those of tools first, then
// fns. Every name must be valid and appear once.
func newHostSet(tools []*genai.Tool, fns []HostFunction, fallback func(context.Context, *genai.FunctionCall) *CallResult) (*hostSet, error) {
	h := &hostSet{names: map[string]bool{}, handlers: map[string]*HostFunction{}, fallback: fallback}
	seen := h.names
	add := func(d *genai.FunctionDeclaration, fn *HostFunction) error {
		if d == nil {
			return fmt.Errorf("host function declaration: %w", errNilDeclaration)
		}
		if !registry.ValidName(d.Name) {
			return fmt.Errorf("host function %q: not a valid Gemini function name (a letter or _ first, then letters, digits, _ . -, at most %d characters)", d.Name, registry.MaxNameLen)
		}
		if seen[d.Name] {
			return fmt.Errorf("host function %q is declared twice", d.Name)
		}
		seen[d.Name] = true
		h.decls = append(h.decls, d)
		if fn != nil {
			h.handlers[d.Name] = fn
		}
		return nil
	}
	for _, t := range tools {
		if t == nil {
			continue
		}
		for _, d := range t.FunctionDeclarations {
			if err := add(d, nil); err != nil {
				return nil, err
			}
		}
	}
	for i := range fns {
		if err := add(fns[i].Declaration, &fns[i]); err != nil {
			return nil, err
		}
	}
	return h, nil
}

var errNilDeclaration = fmt.Errorf("nil declaration")

// has reports whether name is one of the host's functions.
func (h *hostSet) has(name string) bool { return h.names[name] }

// dispatch runs one call of a model turn. A call goes, by name, to the
// host function that declares it (its Handler, or the fallback when it has
// none), to the MCP tool declared under that name in the request (mcp,
// aliases included), to a registered Bridge tool (even one the request
// did not carry), and otherwise to the fallback; with no fallback it is
// an unknown function.
func (b *Bridge) dispatch(ctx context.Context, h *hostSet, mcp map[string]*Tool, call *genai.FunctionCall) *CallResult {
	if call == nil {
		return b.Execute(ctx, nil)
	}
	if h.has(call.Name) {
		if fn := h.handlers[call.Name]; fn != nil && fn.Handler != nil {
			return runHost(ctx, fn, call, b.textLimit)
		}
		return h.runFallback(ctx, call)
	}
	if t := mcp[call.Name]; t != nil && t.Name != call.Name {
		// An alias: the tool is registered under a name a host function took.
		c := *call
		c.Name = t.Name
		r := b.Execute(ctx, &c)
		r.Name = call.Name
		return r
	}
	if h.fallback == nil || b.hasTool(ctx, call.Name) {
		return b.Execute(ctx, call)
	}
	return h.runFallback(ctx, call)
}

// runFallback runs call with the fallback; without one the call
// is an unknown function.
func (h *hostSet) runFallback(ctx context.Context, call *genai.FunctionCall) *CallResult {
	if h.fallback == nil {
		return errorResult(call.Name, call.ID, fmt.Errorf("%w %q: the host declared it but gave no handler and no fallback", ErrUnknownTool, call.Name))
	}
	r := h.fallback(ctx, call)
	if r == nil {
		return errorResult(call.Name, call.ID, fmt.Errorf("function %q: the host's fallback returned no result", call.Name))
	}
	out := *r
	out.Name, out.ID = call.Name, call.ID
	return &out
}

// runHost runs a host function's handler and converts what it returned
// as [NewResult] does, with the text limit limit.
func runHost(ctx context.Context, fn *HostFunction, call *genai.FunctionCall, limit int) (r *CallResult) {
	name, id := call.Name, call.ID
	if err := ctx.Err(); err != nil {
		return errorResult(name, id, cancelled(name, ctx))
	}
	args := call.Args
	if args == nil {
		args = map[string]any{}
	}
	defer func() {
		if p := recover(); p != nil {
			r = errorResult(name, id, fmt.Errorf("host function %q panicked: %v", name, p))
		}
	}()
	v, err := fn.Handler(ctx, args)
	return hostResult(name, id, v, err, limit)
}

// NewResult returns the result of call that the host made itself, as a
// [HostFunction]'s Handler returning v and err makes it: with err not
// nil, an error result whose Err wraps err and names the function;
// otherwise a string v as text and any other value encoded as JSON and
// sent as structured output (a value that does not encode is an error
// result), the model's text cut to 100,000 characters. Name and ID are
// call's (empty for a nil call). A loop uses it for calls it answers
// itself: a background call's "started", a call it refused.
func NewResult(call *genai.FunctionCall, v any, err error) *CallResult {
	var name, id string
	if call != nil {
		name, id = call.Name, call.ID
	}
	return hostResult(name, id, v, err, defaultTextLimit)
}

// hostResult converts what a host function returned the way a tool's
// result is converted, so the model and a person see host and MCP results
// alike: a string as text, another value as structured JSON, an error as
// an error.
func hostResult(name, id string, v any, err error, limit int) *CallResult {
	if err != nil {
		return errorResult(name, id, fmt.Errorf("function %q: %w", name, err))
	}
	raw, err := result.FromValue(v)
	if err != nil {
		return errorResult(name, id, fmt.Errorf("function %q: its result is not JSON: %w", name, err))
	}
	res, err := convertResult(raw, convertOptions{Name: name, ID: id, Tool: name, TextLimit: limit})
	if err != nil {
		return errorResult(name, id, fmt.Errorf("function %q: %w", name, err))
	}
	return res
}
