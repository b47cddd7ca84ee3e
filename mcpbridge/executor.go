package mcpbridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/confirm"
	"github.com/mcpgenai/bridge/mcpbridge/internal/args"
	"github.com/mcpgenai/bridge/mcpbridge/internal/mcpconn"
	"github.com/mcpgenai/bridge/mcpbridge/internal/tasks"
)

// knownNamesShown is how many registered names an unknown-function error
// lists.
const knownNamesShown = 10

// maxParallelCalls bounds how many calls of one [Declarations.ExecuteAll]
// run at the same time.
const maxParallelCalls = 16

// Execute runs one function call the model made and returns its result,
// never nil, with Name and ID echoed from call. In order:
//
//  1. the tool registered under call.Name is looked up;
//  2. call.Args are restored to what the tool's original input schema
//     expects (stringified enum values become numbers again, and so on)
//     and validated against that schema; a schema that does not compile
//     is not validated (one warning is logged);
//  3. the Bridge's [Options.Policy] decides whether the call may run,
//     asking its Confirmer when needed, with the restored arguments;
//  4. the server is called with the tool's original name, within ctx and
//     the server's timeout, reconnecting a dead server first (a call is
//     never sent twice);
//  5. the result is converted: text for the model cut to
//     [Options.TextLimit], images and other binary content as inline data,
//     a display text for a person.
//
// Configured secrets (see the package documentation) never appear in the
// result: they are replaced by "***" in what the server sent, and the texts
// the Bridge wrote itself also lose credentials by their shape.
// After [Bridge.Close], the result's Err wraps [ErrTransport] and
// [ErrClosed].
//
// Every failure becomes a result whose Err says what happened and whose
// [CallResult.FunctionResponse] tells the model: [ErrUnknownTool],
// [DeniedError] ([ErrDenied]), [ErrInvalidArguments], [ErrTimeout],
// [ErrToolError] (the server's isError, with its text), [ErrTransport],
// [ErrTooManyQuestions], and ctx's own error (context.Canceled or context.DeadlineExceeded) when
// ctx ended first.
// Execute never panics on what the model or the host sent: a nil call, nil
// or ill-typed Args, huge Args and Args that contain themselves all give
// results. Args larger than 8 MiB (the bytes of their strings and member
// names, and 8 bytes for each other value: the bound of arguments a model
// streams in pieces) are refused with [ErrInvalidArguments] before they
// are restored, copied or encoded.
//
// call is not modified. Execute is safe for concurrent use; confirmations
// are asked one at a time (see [confirm.Policy.Decide]).
func (b *Bridge) Execute(ctx context.Context, call *genai.FunctionCall) *CallResult {
	r := b.executeCall(ctx, call)
	b.redact.redactResult(r)
	return r
}

// executeCall is Execute before redaction.
func (b *Bridge) executeCall(ctx context.Context, call *genai.FunctionCall) *CallResult {
	if call == nil {
		return errorResult("", "", fmt.Errorf("%w: the model sent an empty function call", ErrUnknownTool))
	}
	name, id := call.Name, call.ID
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return errorResult(name, id, fmt.Errorf("function %q: %w: %w", name, ErrTransport, ErrClosed))
	}
	u, err := b.enterLocked(ctx)
	if err != nil {
		b.mu.Unlock()
		return errorResult(name, id, fmt.Errorf("function %q: %w", name, err))
	}
	tool, ok := b.tools[name]
	b.mu.Unlock()
	if u != nil {
		defer b.leave(u)
		var view toolView
		if view, err = b.userView(ctx, u); err != nil {
			return errorResult(name, id, fmt.Errorf("function %q: %w", name, err))
		}
		tool, ok = view.tools[name]
	}
	if !ok {
		return errorResult(name, id, b.unknownTool(ctx, name))
	}
	ctx, endSpan := b.startToolSpan(ctx, tool, name, id)
	r := b.execute(ctx, tool, call, b.sender(tool))
	r.Name, r.ID, r.Server, r.ServerTool = name, id, tool.Server, tool.ServerTool
	endSpan(r)
	return r
}

// sendFunc sends the raw arguments of a call of tool to its server and
// returns the raw result; timedOut reports whether the server's timeout
// passed. [Bridge.call] is the one Execute uses.
type sendFunc func(ctx context.Context, tool *Tool, raw json.RawMessage) (out json.RawMessage, timedOut bool, err error)

// execute runs call on tool, reaching the server through send; Execute
// fills the result's names.
func (b *Bridge) execute(ctx context.Context, tool *Tool, call *genai.FunctionCall, send sendFunc) *CallResult {
	fail := func(err error) *CallResult { return errorResult("", "", err) }
	if err := ctx.Err(); err != nil {
		return fail(cancelled(call.Name, ctx))
	}

	callArgs := call.Args
	if callArgs == nil {
		callArgs = map[string]any{}
	}
	if err := args.Check(callArgs); err != nil {
		return fail(&invalidArgumentsError{name: call.Name, detail: err.Error()})
	}
	restored := tool.restorer().Restore(callArgs)
	raw, decoded, err := args.Encode(restored)
	if err != nil {
		return fail(&invalidArgumentsError{name: call.Name, detail: "not JSON: " + err.Error()})
	}
	if err := tool.def.args.Validate(decoded); err != nil {
		// A null for a property the tool does not require, where its
		// schema takes no null, means "not given" (internal/args, nulls.go).
		stripped, ok := tool.def.args.WithoutOptionalNulls(decoded)
		if !ok || tool.def.args.Validate(stripped) != nil {
			return fail(&invalidArgumentsError{name: call.Name, detail: args.Detail(err)})
		}
		if raw, decoded, err = args.Encode(stripped); err != nil {
			return fail(&invalidArgumentsError{name: call.Name, detail: "not JSON: " + err.Error()})
		}
		restored = decoded
	}

	reqArgs, _ := restored.(map[string]any)
	if reqArgs == nil {
		reqArgs = callArgs
	}
	d, err := b.policy.Decide(ctx, confirm.Request{
		Server:      tool.Server,
		Trusted:     tool.Trust,
		ServerTool:  tool.ServerTool,
		Name:        call.Name,
		Args:        reqArgs,
		Description: tool.Description,
		Annotations: tool.Annotations,
	})
	if !d.Proceed {
		if ctx.Err() != nil {
			return fail(cancelled(call.Name, ctx))
		}
		return fail(&DeniedError{Name: call.Name, Reason: d.Reason, Err: err})
	}

	defer b.samplingCall(ctx, tool)()
	out, timedOut, err := send(b.withProgress(b.withCallID(ctx, call.ID), tool, call.Name, call.ID), tool, raw)
	if err != nil {
		return fail(b.callError(ctx, tool, call.Name, timedOut, err))
	}
	r, err := convertResult(out, convertOptions{
		Name: call.Name, ID: call.ID, Server: tool.Server, Tool: tool.ServerTool, TextLimit: b.textLimit,
	})
	if err != nil {
		return fail(fmt.Errorf("function %q: %w: the server's answer is not a tool result: %w", call.Name, ErrTransport, err))
	}
	if r.Err != nil {
		r.Err = &toolError{err: r.Err}
	} else if r.OutputErr = tool.def.out.check(tool, out, b.log); r.OutputErr != nil {
		b.log.Warn("mcp tool result does not match its output schema", "server", tool.Server, "tool", tool.ServerTool, "err", r.OutputErr)
	}
	capResult(r, b.binaryLimit)
	if src := b.untrustedSource(tool, raw); src != "" && !b.passUntrusted {
		markUntrusted(r, src, tool.ServerTool)
	}
	return r
}

// unknownTool returns the error for a call of name, listing a few
// registered names so the model can correct itself.
func (b *Bridge) unknownTool(ctx context.Context, name string) error {
	if err := b.undiscovered(); err != nil {
		return fmt.Errorf("%w %q: %w", ErrUnknownTool, name, err)
	}
	tools := b.Tools()
	if UserOf(ctx) != "" {
		b.mu.Lock()
		if u := b.users[UserOf(ctx)]; u != nil {
			tools = b.viewLocked(u).sorted
		}
		b.mu.Unlock()
	}
	if len(tools) == 0 {
		return fmt.Errorf("%w %q: no functions are available", ErrUnknownTool, name)
	}
	names := make([]string, 0, knownNamesShown)
	for _, t := range tools[:min(len(tools), knownNamesShown)] {
		names = append(names, t.Name)
	}
	list := strings.Join(names, ", ")
	if more := len(tools) - len(names); more > 0 {
		list += fmt.Sprintf(" (and %d more)", more)
	}
	return fmt.Errorf("%w %q; available functions: %s", ErrUnknownTool, name, list)
}

// cancelled returns the error of a call that ctx ended, saying in words
// why before the cause itself.
func cancelled(name string, ctx context.Context) error {
	cause := context.Cause(ctx)
	switch {
	case errors.Is(cause, context.DeadlineExceeded):
		return fmt.Errorf("function %q was stopped: the caller's deadline passed before it finished: %w", name, cause)
	case errors.Is(cause, context.Canceled):
		return fmt.Errorf("function %q was stopped: its caller cancelled the request before it finished: %w", name, cause)
	}
	return fmt.Errorf("function %q was stopped: %w", name, cause)
}

// errServerTimeout is the cause of the context of a call whose server
// timeout passed.
var errServerTimeout = errors.New("server timeout")

// call calls tool with the raw arguments within ctx, the Bridge's life and
// the tool's timeout (which also bounds a reconnect on the way): one
// cancellable context, which the connection also ends when it dies.
// timedOut reports whether the timeout passed, whatever words the
// transport chose for it.
//
// A call that may outlive the timeout (a task, or a call asking for
// progress) gets no deadline here: the connection bounds each of its
// requests by the timeout and the whole call by the server's MaxCallTime.
// On 2026-07-28 the server may turn any call into a task: the deadline
// then bounds the tools/call, and the task is waited out in a context
// made from the caller's ctx at that moment (see callContext).
func (b *Bridge) call(ctx context.Context, tool *Tool, raw json.RawMessage) (out json.RawMessage, timedOut bool, err error) {
	record := b.taskRecord(ctx, tool, raw)
	if record != nil {
		if out, ok, err := b.resumeTask(ctx, tool, record); ok {
			return out, false, err
		}
	}
	outer := ctx
	task := tool.def.raw.TaskSupport != ""
	timeout := tool.Timeout
	if task || mcpconn.AsksProgress(ctx) {
		timeout = 0
	}
	ctx, cancel, key := b.within(ctx, timeout)
	defer cancel()
	defer b.inLife.Remove(key)
	cc := &callContext{call: elicitCall{tool: tool.ServerTool}, b: b, outer: outer, record: record}
	out, err = b.callToolBounded(ctx, cc, cancel, tool.Server, tool.ServerTool, raw, task)
	// Past its tools/call, a task is no longer bound by the timeout.
	return out, err != nil && !cc.tasked.Load() && errors.Is(context.Cause(ctx), errServerTimeout), err
}

// callError classifies an error of call: the caller's context ended, the
// server's timeout passed, or the call failed.
func (b *Bridge) callError(ctx context.Context, tool *Tool, name string, timedOut bool, err error) error {
	switch {
	case ctx.Err() != nil:
		return cancelled(name, ctx)
	case b.life.Err() != nil || errors.Is(err, ErrClosed):
		return fmt.Errorf("function %q: %w: %w", name, ErrTransport, ErrClosed)
	case errors.Is(err, tasks.ErrTooLong):
		return fmt.Errorf("function %q %w: server %q did not finish its task within %v: %w",
			name, ErrTimeout, tool.Server, tool.maxCallTime(), err)
	case timedOut || errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("function %q %w: server %q did not answer within %v: %w",
			name, ErrTimeout, tool.Server, tool.Timeout, err)
	case errors.Is(err, mcpconn.ErrTooManyQuestions):
		return fmt.Errorf("function %q: %w: %w", name, ErrTooManyQuestions, err)
	case errors.Is(err, tasks.ErrFailed) || errors.Is(err, tasks.ErrCancelled):
		return fmt.Errorf("function %q: %w: %w", name, ErrToolError, err)
	}
	return fmt.Errorf("function %q: %w: %w", name, ErrTransport, err)
}
