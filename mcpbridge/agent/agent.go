package agent

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/mcpbridge"
	"github.com/mcpgenai/bridge/mcpbridge/agent/internal/handoff"
)

// DefaultMaxTurns is how many model requests [Agent.Run] and
// [Agent.RunStream] make at most when [Options.MaxTurns] is zero.
const DefaultMaxTurns = 10

// The errors of the agent's loops. Test for them with errors.Is.
var (
	// ErrTurnLimit is returned by Run and RunStream when the model still
	// called functions after the last request it may make.
	ErrTurnLimit = errors.New("turn limit reached")
	// ErrNoAnswer is wrapped by the error of Run and RunStream when a
	// response has no usable candidate: the prompt was blocked, or the
	// candidate has no content (a safety stop, for example).
	ErrNoAnswer = errors.New("no answer from the model")
	// ErrStreamedCall is wrapped by the error of RunStream when a function
	// call whose arguments Vertex AI streamed in pieces does not assemble:
	// a malformed JSON path, a value put twice, pieces past the bounds
	// (depth 64, 8 MiB, 1,048,576 pieces per call), a call cut off by the
	// end of the stream. The message names the call and the piece.
	ErrStreamedCall = errors.New("function call streamed in pieces does not assemble")
	// ErrCancelled is the cause of a Live call that the API cancelled
	// (toolCallCancellation): the call's [mcpbridge.CallResult.Err]
	// wraps it when the call ended because of it.
	ErrCancelled = errors.New("call cancelled by the api")
	// ErrClosed is returned by Run, RunStream and Live after
	// [Agent.Close], and is the cause of the calls that Close cancelled.
	ErrClosed = errors.New("agent closed")
)

// Options configure an [Agent]: what its loops ([Agent.Run],
// [Agent.RunStream], [Agent.Live]) share. The zero value is ready to use.
type Options struct {
	// Functions are the host's own functions, declared beside the
	// Bridge's tools in every request and run in the same turns (see
	// [mcpbridge.HostFunction]).
	Functions []mcpbridge.HostFunction
	// Fallback, if not nil, runs the calls that neither a host function's
	// Handler nor a Bridge tool owns (see [mcpbridge.DeclareOptions]): calls
	// of the function declarations in the config's Tools, of Functions
	// without a Handler, and of unknown names. It is called concurrently.
	Fallback func(ctx context.Context, call *genai.FunctionCall) *mcpbridge.CallResult
	// Selection chooses the Bridge tools each request carries; nil
	// carries every tool up to the API's limit, ranked against the
	// conversation when there are more (see [mcpbridge.Selection]). A Live
	// session has one set of declarations, ranked without a conversation.
	Selection *mcpbridge.Selection
	// ServerInstructions, when true, adds the servers' instructions
	// ([mcpbridge.Declarations.SystemInstruction]) to each request's
	// system instruction (a Live session's), after the config's own parts.
	ServerInstructions bool

	// Background names the functions (a Bridge tool's registered name, or
	// a host function's) whose calls the conversation does not wait for.
	// In Run and RunStream such a call is answered at once with
	// {"status": "started", ...}, so that the model can say it started,
	// and runs on; once it ends, the next request of any Run or RunStream
	// of this Agent carries its result as text in its last user turn:
	// "The background call NAME (id ID) has finished: ...". In Live its
	// declaration is NON_BLOCKING: the model talks on, and the result is
	// sent alone when the call ends (see Scheduling). A Bridge tool whose
	// TaskSupport is "required" (it runs only as an MCP task: its server
	// says it takes long) is background without being named, unless it is
	// in Foreground. A background call keeps the values of its context
	// (trace, progress callback) but not its cancellation: only
	// [Agent.Close] (a Live session's Close) ends it early.
	Background []string
	// Foreground names tools that run only as MCP tasks but are to be
	// waited for as other calls are. A name may not be in both Background
	// and Foreground.
	Foreground []string
	// OnBackgroundDone, if not nil, is called with the result of each
	// background call of Run and RunStream when it ends, on the goroutine
	// that ran it. (In Live the result of a background call is its
	// OnResult, as any call's.)
	OnBackgroundDone func(r *mcpbridge.CallResult)

	// OnCall, if not nil, is called with each function call of a model
	// turn (of a Live tool call message), in order, before the calls run.
	OnCall func(call *genai.FunctionCall)
	// OnResult, if not nil, is called with each call's result once, as
	// the call ends: in Run and RunStream a background call's "started"
	// answer, in Live a call the API cancelled too (its Err wrapping
	// [ErrCancelled]). It is never called twice at a time, across every
	// loop of the Agent; the calls wait for it, so it should return
	// quickly.
	OnResult func(r *mcpbridge.CallResult)
	// OnProgress, if not nil, receives the progress servers report on the
	// calls the Agent makes, instead of [mcpbridge.Options.OnProgress]
	// (see [mcpbridge.Progress]). It is called on the goroutine reading the
	// server's messages, so it must return quickly.
	OnProgress func(mcpbridge.Progress)
	// OnRequest, if not nil, is called after each successful request of
	// Run and RunStream with what it carried (also kept in
	// [RunResult.Requests]).
	OnRequest func(mcpbridge.RequestReport)

	// MaxTurns is how many model requests Run and RunStream make at most.
	// Zero means [DefaultMaxTurns]; a negative value means one.
	MaxTurns int
	// Scheduling, if not nil, chooses how the result of a Live background
	// call reaches the model: genai.FunctionResponseSchedulingInterrupt
	// (at once, interrupting), WhenIdle (when the model is idle) or Silent
	// (taken in without a reply). nil, or an empty value, means WhenIdle.
	Scheduling func(r *mcpbridge.CallResult) genai.FunctionResponseScheduling
}

// Agent is the Gemini loop over a [mcpbridge.Bridge]'s tools: multi-turn
// requests ([Agent.Run]), the same on a stream ([Agent.RunStream]) and the
// Live API ([Agent.Live]), with the host's functions, background calls
// and server instructions of its [Options]. It is built on mcpbridge's
// public API alone: each request's tools come from
// [mcpbridge.Bridge.Declare], a rejected declaration is healed with
// [mcpbridge.Declarations.Heal], calls run through the declarations.
//
// An Agent is safe for concurrent use: conversations may run at once,
// sharing its background calls. [Agent.Close] it when done; the Bridge
// stays the caller's.
type Agent struct {
	b       *mcpbridge.Bridge
	o       Options
	handoff *handoff.Pool // goroutines that run RunStream's calls
	bg      background    // the background calls of Run and RunStream
	resMu   sync.Mutex    // OnResult one at a time

	mu       sync.Mutex
	closed   bool
	sessions map[*LiveSession]struct{}
}

// handoffIdle is how long a goroutine that ran a turn's calls waits for
// the next turn's before it ends.
const handoffIdle = 30 * time.Second

// New returns an Agent over b's tools. opts is copied; nil means the
// default options.
func New(b *mcpbridge.Bridge, opts *Options) *Agent {
	a := &Agent{b: b, handoff: handoff.New(handoffIdle), sessions: map[*LiveSession]struct{}{}}
	if opts != nil {
		a.o = *opts
		a.o.Functions = slices.Clone(opts.Functions)
		a.o.Background = slices.Clone(opts.Background)
		a.o.Foreground = slices.Clone(opts.Foreground)
	}
	return a
}

// Running reports how many background calls of Run and RunStream are
// running.
func (a *Agent) Running() int { return a.bg.calls.Running() }

// Pending reports how many background calls have ended and wait to be
// delivered to the model in the next request.
func (a *Agent) Pending() int { return a.bg.pending() }

// Close cancels the background calls still running and the calls of the
// Live sessions still open (their results are not delivered; their
// contexts' cause is [ErrClosed]), waits for them to end, and ends the
// goroutines the Agent keeps for RunStream. Run, RunStream and Live then
// fail with ErrClosed; results already ended stay undelivered. It may be
// called more than once and returns nil.
func (a *Agent) Close() error {
	a.mu.Lock()
	a.closed = true
	sessions := make([]*LiveSession, 0, len(a.sessions))
	for s := range a.sessions {
		sessions = append(sessions, s)
	}
	a.mu.Unlock()
	for _, s := range sessions {
		_ = s.Close()
	}
	a.bg.calls.Close(ErrClosed)
	a.handoff.Close()
	return nil
}

// check reports why a loop may not start: the Agent is closed, or its
// options contradict themselves.
func (a *Agent) check() error {
	a.mu.Lock()
	closed := a.closed
	a.mu.Unlock()
	if closed {
		return ErrClosed
	}
	for _, n := range a.o.Background {
		if slices.Contains(a.o.Foreground, n) {
			return fmt.Errorf("function %q is both background and foreground", n)
		}
	}
	return nil
}

// isBackground reports whether a call of name, answering a request with
// declarations d, runs in the background: it is one of Background, or a
// Bridge tool that runs only as an MCP task and is not one of Foreground.
func (a *Agent) isBackground(d *mcpbridge.Declarations, name string) bool {
	if slices.Contains(a.o.Background, name) {
		return true
	}
	t, ok := d.Tool(name)
	return ok && t.TaskSupport == "required" && !slices.Contains(a.o.Foreground, name)
}

// result hands r to OnResult, one result at a time.
func (a *Agent) result(r *mcpbridge.CallResult) {
	if a.o.OnResult == nil {
		return
	}
	a.resMu.Lock()
	defer a.resMu.Unlock()
	a.o.OnResult(r)
}

// withProgress returns ctx whose calls report progress to OnProgress and
// then to also (either may be nil); with neither, ctx.
func (a *Agent) withProgress(ctx context.Context, also func(mcpbridge.Progress)) context.Context {
	on := a.o.OnProgress
	switch {
	case also == nil && on == nil:
		return ctx
	case also == nil:
		return mcpbridge.WithProgress(ctx, on)
	case on == nil:
		return mcpbridge.WithProgress(ctx, also)
	}
	return mcpbridge.WithProgress(ctx, func(p mcpbridge.Progress) { on(p); also(p) })
}

// maxParallelCalls bounds how many calls of one turn run at the same
// time, as [mcpbridge.Declarations.ExecuteAll] does.
const maxParallelCalls = 16
