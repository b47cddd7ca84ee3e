// Package confirm decides whether a tool call may run: trusted servers run
// without asking, allow-listed servers and tools run, a deny-list wins over
// everything, and anything else is put to a person through the host
// program's [Confirmer], whose answer can extend the allow-list.
//
// The zero [Policy] is safe: it asks before every call, and with no
// Confirmer it refuses every call with [ErrNoConfirmer].
//
//	p := &confirm.Policy{Confirmer: confirm.ConfirmerFunc(askInTerminal)}
//	d, err := p.Decide(ctx, confirm.Request{Server: "files", ServerTool: "delete", Name: "delete", Args: args})
//	if err != nil || !d.Proceed {
//		// tell the model the call did not run, and why (d.Reason, err)
//	}
//
// Allow-lists live in memory; a host program that wants them to outlast a
// run can [Policy.Save] and [Policy.Load] them. Nothing is written
// automatically.
package confirm

import (
	"context"
	"fmt"
	"strconv"
)

// Key names a whole server (ServerTool == "") or one tool of a server on an
// allow-list or deny-list. Server and tool stay separate, so server "a.b"
// tool "c" and server "a" tool "b.c" are different keys.
type Key struct {
	Server     string `json:"server"`         // the server's configured name
	ServerTool string `json:"tool,omitempty"` // the tool's own name on Server; "" means every tool of Server
}

// String returns `server "a"` or `server "a" tool "b"`.
func (k Key) String() string {
	if k.ServerTool == "" {
		return fmt.Sprintf("server %q", k.Server)
	}
	return fmt.Sprintf("server %q tool %q", k.Server, k.ServerTool)
}

// Annotations are the hints an MCP server gives about a tool. They come from
// the server and are not verified. A nil hint was not given, which MCP reads
// as readOnly false, destructive true, idempotent false and openWorld true;
// it is distinct from an explicit false.
type Annotations struct {
	Title           string // human-readable title; "" if none
	ReadOnlyHint    *bool  // the tool does not modify its environment
	DestructiveHint *bool  // the tool may destroy or overwrite (meaningful when not read-only)
	IdempotentHint  *bool  // calling again with the same arguments has no further effect
	OpenWorldHint   *bool  // the tool reaches outside entities (the web, for example)
}

// Request describes one tool call to decide on. Decide and Confirmers read
// it and never modify it, Args included.
type Request struct {
	Server      string         // server name as configured
	Trusted     bool           // the server is configured with trust: true
	ServerTool  string         // the tool's own name, as the server lists it
	Name        string         // registered function name the model called
	Args        map[string]any // the call's arguments
	Description string         // the tool's description
	Annotations Annotations    // the tool's hints, as the server gave them (unverified)
}

// Answer is a person's answer to a confirmation question.
// The zero Answer is [Cancel].
type Answer int

const (
	// Cancel refuses this call. It is the zero Answer, so a confirmer that
	// forgets to answer refuses.
	Cancel Answer = iota
	// ProceedOnce runs this call and asks again next time.
	ProceedOnce
	// AlwaysTool runs this call and allow-lists the tool (Key{Server, ServerTool}).
	AlwaysTool
	// AlwaysServer runs this call and allow-lists the whole server.
	AlwaysServer
)

// String returns "cancel", "proceed_once", "always_tool" or "always_server".
func (a Answer) String() string {
	switch a {
	case Cancel:
		return "cancel"
	case ProceedOnce:
		return "proceed_once"
	case AlwaysTool:
		return "always_tool"
	case AlwaysServer:
		return "always_server"
	}
	return "Answer(" + strconv.Itoa(int(a)) + ")"
}

// A Confirmer asks a person whether a tool call may run. A [Policy] calls
// it for one request at a time. Confirm should return promptly once ctx is
// done; an error means no answer (the call does not run). An Answer other
// than the four defined ones counts as Cancel.
type Confirmer interface {
	Confirm(ctx context.Context, req Request) (Answer, error)
}

// ConfirmerFunc adapts a function to a [Confirmer].
type ConfirmerFunc func(ctx context.Context, req Request) (Answer, error)

// Confirm returns f(ctx, req).
func (f ConfirmerFunc) Confirm(ctx context.Context, req Request) (Answer, error) {
	return f(ctx, req)
}
