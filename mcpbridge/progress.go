package mcpbridge

import (
	"context"

	"github.com/mcpgenai/bridge/mcpbridge/internal/mcpconn"
)

// Progress is one progress report of a server about a tool call that is
// still running (MCP's notifications/progress). When a progress callback
// is set ([Options.OnProgress], or [WithProgress] for some calls), every tool call
// carries a progress token, and the reports of that call reach the
// callback in the order they arrive, until the call returns. Progress
// grows from one report to the next: a report that arrives after a later
// one (a server may send them on different streams) is dropped. A tool
// that runs as an MCP task also reports each new status message of its
// task, with the Progress and Total of the last report (0 before any).
//
// A call that asks for progress is timed differently: its server's
// [ServerConfig.Timeout] counts from the last report instead of from the
// start, so a long call that keeps reporting is not cut off, and
// [ServerConfig.MaxCallTime] bounds it as a whole.
type Progress struct {
	// Name and ID are the function name the model called and the ID of
	// its call ("" when it had none), as in [CallResult].
	Name, ID string
	// User is the user the call acts for (see [WithUser]); "" for none.
	User string
	// Server and ServerTool say where the call runs: the server's name and the
	// tool's original MCP name.
	Server, ServerTool string
	// Progress is how far the call is; it grows with each report.
	Progress float64
	// Total is where Progress ends; 0 when the server does not know.
	Total float64
	// Message is the server's note, redacted (see the package
	// documentation) and cleaned for a person: no escape sequences,
	// control characters but newline and tab, or bidirectional
	// formatting characters, and at most 4 KiB; "" when it sent none.
	Message string
}

type progressFuncKey struct{}

// WithProgress returns a copy of ctx whose tool calls ([Bridge.Execute],
// [Declarations.Execute] and what calls them) report their servers'
// progress to fn instead of [Options.OnProgress], as
// Options.OnProgress would: on the goroutine reading the server's
// messages, so fn must return quickly. A nil fn gives ctx's calls no
// callback of their own: they report to Options.OnProgress.
func WithProgress(ctx context.Context, fn func(Progress)) context.Context {
	return context.WithValue(ctx, progressFuncKey{}, fn)
}

// withProgress returns ctx for sending call to tool: with a progress
// callback in ctx or the Bridge's options, the call asks the server for
// progress and its reports reach that callback. The callback runs on the
// goroutine reading the server's messages: until it returns, nothing else
// from that server is read.
func (b *Bridge) withProgress(ctx context.Context, tool *Tool, name, id string) context.Context {
	fn, _ := ctx.Value(progressFuncKey{}).(func(Progress))
	if fn == nil {
		fn = b.onProgress
	}
	if fn == nil {
		return ctx
	}
	s := b.byName[tool.Server]
	if s == nil {
		s = b.builtins // the built-in resource tools
	}
	redac, user := s.redac, UserOf(ctx)
	return mcpconn.WithProgress(ctx, func(progress, total float64, message string) {
		fn(Progress{
			Name: name, ID: id, User: user, Server: tool.Server, ServerTool: tool.ServerTool,
			Progress: progress, Total: total, Message: shown(message, redac.Text, maxNoteBytes),
		})
	})
}
