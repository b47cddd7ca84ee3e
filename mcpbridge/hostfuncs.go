package mcpbridge

import (
	"context"
	"fmt"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/mcpbridge/internal/result"
	"github.com/mcpgenai/bridge/registry"
)

// HostFunction is one of the host program's own functions, offered to the
// model by [Bridge.Run] beside the Bridge's tools and run in the same turn,
// concurrently with them, its result in call order.
type HostFunction struct {
	// Declaration is the function's declaration. Its Name must be a valid
	// Gemini function name ([registry.ValidName]) and unique among the
	// host's functions; it is never renamed, and a Bridge tool registered
	// under the same name is declared as "server__tool" instead for the
	// request. Run sends a copy and never modifies Declaration.
	Declaration *genai.FunctionDeclaration
	// Handler runs one call with the model's arguments (an empty map when
	// the model sent none). A string result reaches the model as text; any
	// other value is encoded as JSON and sent as structured output. A
	// non-nil error reaches the model as the call's error. A panic becomes
	// an error result. nil sends the call to [RunOptions.Fallback].
	Handler func(ctx context.Context, args map[string]any) (any, error)
}

// hostSet is the host's functions of one Run: those of
// RunOptions.HostFunctions and the function declarations of the caller's
// GenerateContentConfig.Tools.
type hostSet struct {
	decls    []*genai.FunctionDeclaration // in declaration order
	names    map[string]bool              // the names of decls
	handlers map[string]*HostFunction     // by name; nil Handler means the fallback
	fallback func(context.Context, *genai.FunctionCall) *CallResult
}

// newHostSet collects the host's declarations: config's first, then fns.
// Every name must be valid and appear once.
func newHostSet(config *genai.GenerateContentConfig, fns []HostFunction, fallback func(context.Context, *genai.FunctionCall) *CallResult) (*hostSet, error) {
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
	if config != nil {
		for _, t := range config.Tools {
			if t == nil {
				continue
			}
			for _, d := range t.FunctionDeclarations {
				if err := add(d, nil); err != nil {
					return nil, err
				}
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
// none), to the MCP tool declared under that name in req (aliases
// included), to a registered Bridge tool (even one the request did not
// carry), and otherwise to the fallback; with no fallback it is an unknown
// function.
func (b *Bridge) dispatch(ctx context.Context, h *hostSet, req *request, call *genai.FunctionCall) *CallResult {
	if call == nil {
		return b.Execute(ctx, nil)
	}
	if h.has(call.Name) {
		if fn := h.handlers[call.Name]; fn != nil && fn.Handler != nil {
			return runHost(ctx, fn, call, b.textLimit)
		}
		return h.runFallback(ctx, call)
	}
	if t := req.mcp[call.Name]; t != nil && t.Name != call.Name {
		// An alias: the tool is registered under a name a host function took.
		c := *call
		c.Name = t.Name
		r := b.Execute(ctx, &c)
		r.Name = call.Name
		return r
	}
	if _, ok := b.Tool(call.Name); ok || h.fallback == nil {
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

// runHost runs a host function's handler and converts what it returned the
// way a tool's result is converted, so the model and a person see host and
// MCP results alike: a string as text, another value as structured JSON,
// an error as an error.
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
