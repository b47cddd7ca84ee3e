package mcpbridge

import (
	"context"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/internal/parallel"
	"github.com/mcpgenai/bridge/mcpbridge/internal/blame"
)

// DeclareOptions configure [Bridge.Declare]. The zero value declares the
// Bridge's tools alone, selected by the default [Selection].
type DeclareOptions struct {
	// Tools are the host's own tools for the request, as it would put them
	// in [genai.GenerateContentConfig.Tools]. Their function declarations
	// are the host's: declared first, in their order, never renamed, and
	// their calls go to Fallback. Their other tools (Google Search, code
	// execution, ...) are kept as they are. Tools is not modified.
	Tools []*genai.Tool
	// Functions are host functions with handlers, declared after the
	// function declarations of Tools (see [HostFunction]).
	Functions []HostFunction
	// Fallback, if not nil, runs the calls that neither a host function's
	// Handler nor a Bridge tool owns: calls of the function declarations of
	// Tools, of Functions without a Handler, and of unknown names, and
	// returns the call's result (Name and ID are set from the call). It is
	// called concurrently for the calls of [Declarations.ExecuteAll]. A
	// Bridge's own Execute method fits, for a second Bridge. nil makes
	// them unknown functions.
	Fallback func(ctx context.Context, call *genai.FunctionCall) *CallResult
	// Selection chooses the Bridge tools the request carries; nil carries
	// every tool up to the API's limit, ranked against the conversation
	// by the built-in lexical ranker when there are more (see [Selection]).
	Selection *Selection
	// ClientSide, when true, bridges every server, whatever
	// [Options.ServerSideMCP] says: the request declares every server's
	// tools and lists no MCP server. The Live API, which cannot call
	// servers itself, needs it.
	ClientSide bool
}

// Declarations are the tools of one request: what [Bridge.Declare] chose
// for the conversation so far, and the running of the calls the model
// makes in answer to the request. Read its fields; do not modify the
// Declarations themselves (the values in Tools are the caller's). Its
// methods are safe for concurrent use.
type Declarations struct {
	// Tools go in the request's [genai.GenerateContentConfig.Tools]: the
	// host's tools other than function declarations, then one
	// [genai.Tool] with every function declaration (the host's first, in
	// their order, then the chosen Bridge tools sorted by name), then,
	// with [Options.ServerSideMCP], one genai.Tool listing the servers
	// the Gemini API calls itself. nil when there is nothing to declare
	// (the API refuses an empty list). Every declaration, and the
	// MCPServers tool, are new copies: the caller may modify them (a Live
	// session sets Behavior, for example) without reaching the Bridge or
	// a later request.
	Tools []*genai.Tool
	// Report says what the request carries and what it left out.
	Report RequestReport

	b      *Bridge
	hosts  *hostSet
	mcp    map[string]*Tool // declared name -> Bridge tool
	search *searchFunc      // the tool search function, nil for none
	// view is the tools of the user Declare acted for (see WithUser),
	// user that user's state; both nil for the user "", whose are the
	// Bridge's.
	view *toolView
	user *userState
}

// Declare returns the tools of one request for conversation, the
// contents the request sends (nil for a request that has none yet, as a
// Live session's setup). The host's declarations (opts.Tools and
// opts.Functions) are always declared; the Bridge's tools that
// opts.Selection keeps and the API has not rejected (see
// [Declarations.Heal]) fill what they leave of the limit, ranked against
// conversation when they do not all fit (see [Selection]). A Bridge tool
// registered under a host function's name is declared as "server__tool"
// for the request ([RequestReport.Renamed]). With tool search
// ([Selection.Search]), the request declares a search function and the
// tools the conversation found with it instead of the candidates. With
// [Options.ServerSideMCP],
// the tools of the servers the Gemini API calls itself are not declared:
// the servers are listed instead (unless opts.ClientSide). If opts is nil,
// the default options are used; opts, conversation and the host's
// declarations are never modified.
//
// Declare never fails for having too many Bridge tools: it selects. It
// fails when a host function is invalid (a nil declaration, a name that is
// not a valid Gemini function name or appears twice), with an error
// wrapping [ErrTooManyTools] when the host's own declarations are more
// than the limit, [ErrNotDiscovered] before [Bridge.Discover] (with
// servers configured), and [ErrClosed] after [Bridge.Close].
//
// Call Declare for each request: the tools, their ranking and the dropped
// set change between requests.
func (b *Bridge) Declare(ctx context.Context, conversation []*genai.Content, opts *DeclareOptions) (*Declarations, error) {
	var o DeclareOptions
	if opts != nil {
		o = *opts
	}
	b.mu.Lock()
	closed := b.closed
	err := b.undiscoveredLocked()
	var u *userState
	if !closed && err == nil {
		u, err = b.enterLocked(ctx)
	}
	b.mu.Unlock()
	if closed {
		return nil, ErrClosed
	}
	if err != nil {
		return nil, err
	}
	defer b.leave(u)
	var view *toolView
	if u != nil {
		v, err := b.userView(ctx, u)
		if err != nil {
			return nil, err
		}
		view = &v
	}
	hosts, err := newHostSet(o.Tools, o.Functions, o.Fallback)
	if err != nil {
		return nil, err
	}
	d, err := b.declare(ctx, conversation, o.Tools, hosts, o.Selection, !o.ClientSide)
	if err != nil {
		return nil, err
	}
	d.view, d.user = view, u
	return d, nil
}

// Status is [Bridge.Status] as the user d was made for sees it now (see
// [WithUser]): for a server whose credentials are each user's
// ([ServerStatus.PerUser]), State, Auth, AuthScopes, AuthError, Error,
// Protocol, Instructions and Tools are that user's (Disconnected, with
// no login state, when the user has not used the server, or their state
// was dropped after [Options.UserIdle]); the other servers are as every
// user sees them. Nothing of another user is reported but the count of
// users connected. For the user "", it is Bridge.Status.
func (d *Declarations) Status() Status {
	b := d.b
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.statusLocked(d.user)
}

// SystemInstruction returns the servers' instructions as one text part
// for the request's system instruction, as Gemini CLI adds them to its
// system prompt: each server's text (see [ServerStatus.Instructions]) in
// a block that names the server, in configuration order, as the servers
// gave them when it is called. It returns nil when no server gave any.
// Adding it is the caller's choice; the part is new on each call.
func (d *Declarations) SystemInstruction() *genai.Part {
	return d.b.systemInstruction(d.user)
}

// Tool returns the Bridge tool that a call of name runs: the one declared
// under name (an alias when a host function took its registered name),
// else the one registered under name. It reports false when a host
// function owns name (its call runs the host's function) and when no
// tool has the name.
func (d *Declarations) Tool(name string) (*Tool, bool) {
	if d.hosts.has(name) || d.search != nil && name == d.search.name {
		return nil, false
	}
	if t := d.mcp[name]; t != nil {
		return t, true
	}
	if d.view != nil {
		t, ok := d.view.tools[name]
		return t, ok
	}
	return d.b.Tool(name)
}

// Execute runs one function call the model made in answer to the request
// and returns its result, never nil, named and identified as called. The
// call goes, by name, to the host function that declares it (its
// Handler, its panic becoming an error result; or Fallback when it has
// none), to the Bridge tool declared under that name (an alias is
// resolved, the result keeping the name called), to a registered Bridge
// tool the request did not carry, to Fallback, and otherwise is an
// unknown function ([ErrUnknownTool]). A Bridge tool's call is
// [Bridge.Execute]'s, with its guarantees. A call of the search function
// of tool search (see [ToolSearch]) answers with the tools found.
func (d *Declarations) Execute(ctx context.Context, call *genai.FunctionCall) *CallResult {
	if d.search != nil && call != nil && call.Name == d.search.name {
		return d.search.run(ctx, call)
	}
	return d.b.dispatch(ctx, d.hosts, d.mcp, call)
}

// ExecuteAll runs the function calls of one model turn as
// [Declarations.Execute] does, concurrently (at most 16 at a time; a
// single call on the caller's goroutine), and returns their results in
// the order of calls, one per call, once every call has ended.
// Confirmations are still asked one at a time.
func (d *Declarations) ExecuteAll(ctx context.Context, calls []*genai.FunctionCall) []*CallResult {
	return parallel.Run(calls, maxParallelCalls, func(c *genai.FunctionCall) *CallResult { return d.Execute(ctx, c) }, nil)
}

// Heal takes the error of the request that carried d. When it is the
// Gemini API's 400 and its message points at declarations of Bridge tools
// (by their place in d.Tools or by name), those tools are dropped for the
// Bridge's lifetime and returned: each is logged, reported as an
// [EventToolDropped] and shown in [ServerStatus.Rejected], and Declare
// leaves it out from then on, so the caller sends the request again with
// a fresh Declare. It returns nil when there is nothing to heal: err is
// not such a 400, it blames only the host's declarations or nothing the
// request declared, or the tools were dropped already.
func (d *Declarations) Heal(err error) []DroppedTool {
	apiErr, ok := blame.BadRequest(err)
	if !ok {
		return nil
	}
	return d.b.reject(d.mcp, blame.Declarations(apiErr.Message, d.Tools), apiErr)
}
