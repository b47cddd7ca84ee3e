package mcpbridge

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/mcpbridge/internal/live"
)

// ErrLiveCancelled is the cause of a call that the Live API cancelled
// (toolCallCancellation): the call's [CallResult.Err] wraps it.
var ErrLiveCancelled = live.ErrCancelled

// LiveSender sends tool responses on a Live session: *genai.Session
// satisfies it.
type LiveSender interface {
	SendToolResponse(input genai.LiveToolResponseInput) error
}

// LiveOptions configure [Bridge.Live]. The zero value is ready to use.
type LiveOptions struct {
	// HostFunctions, Fallback and Selection mean what they mean in
	// [RunOptions], for the session's one set of declarations; the
	// selection ranks tools without a conversation.
	HostFunctions []HostFunction
	Fallback      func(ctx context.Context, call *genai.FunctionCall) *CallResult
	Selection     *Selection
	// ServerInstructions, when true, adds the servers' instructions
	// ([Bridge.SystemInstruction]) to the session's system instruction.
	ServerInstructions bool

	// NonBlocking names the functions declared NON_BLOCKING (a Bridge
	// tool's registered name, or a host function's): the model goes on
	// talking while they run, and their results come when they end, each
	// in a tool response of its own. Every name must be declared. A
	// declared Bridge tool whose execution.taskSupport is "required" (it
	// runs only as an MCP task) is NON_BLOCKING without being named,
	// unless it is one of Blocking.
	NonBlocking []string
	// Blocking names tools that run only as MCP tasks but are to be
	// declared blocking, as other functions are. Every name must be
	// declared and none may be in NonBlocking.
	Blocking []string
	// Scheduling, if not nil, chooses how the result of a non-blocking
	// call reaches the model: genai.FunctionResponseSchedulingInterrupt
	// (at once, interrupting), WhenIdle (when the model is idle) or Silent
	// (taken in without a reply). nil, or an empty value, means WhenIdle.
	Scheduling func(r *CallResult) genai.FunctionResponseScheduling

	// OnCall, if not nil, is called with each function call of a tool
	// call message, in order, before they run. OnResult, if not nil, is
	// called with each result as its call ends, a cancelled one included
	// (its Err wraps [ErrLiveCancelled]). OnProgress, if not nil,
	// receives the progress servers report on these calls. They may be
	// called concurrently from the goroutines running the calls.
	OnCall     func(call *genai.FunctionCall)
	OnResult   func(r *CallResult)
	OnProgress func(Progress)
}

// LiveTools are the Bridge's tools for one Live API session: the
// declarations to connect with ([LiveTools.Config]) and the running of the
// calls the session's model makes ([LiveTools.Handle]). Create them with
// [Bridge.Live]; [LiveTools.Close] them when the session ends. Their
// methods are safe for concurrent use.
type LiveTools struct {
	b           *Bridge
	o           LiveOptions
	hosts       *hostSet
	req         *request
	config      *genai.LiveConnectConfig
	nonBlocking map[string]bool

	calls  live.Calls
	sendMu sync.Mutex
	errMu  sync.Mutex
	err    error
}

// Live prepares the Bridge's tools for a Live API session. config is the
// connection's configuration (nil means none); it is not modified: the
// configuration to connect with is [LiveTools.Config]. Its Tools are
// config's tools other than function declarations, then one [genai.Tool]
// declaring the function declarations of config.Tools, opts.HostFunctions
// and the Bridge's tools chosen by opts.Selection, as [Bridge.Run]
// declares them, with NON_BLOCKING behavior for opts.NonBlocking and the
// tools that run only as MCP tasks (but opts.Blocking). The
// declarations are fixed for the session: tools that change later are
// still run when called, but not declared. If opts is nil, the default
// options are used.
//
// It fails when a host function is invalid, when the host's declarations
// exceed the limit ([ErrTooManyTools]), when a name of opts.NonBlocking
// or opts.Blocking is not declared, or when a name is in both.
func (b *Bridge) Live(ctx context.Context, config *genai.LiveConnectConfig, opts *LiveOptions) (*LiveTools, error) {
	l := &LiveTools{b: b}
	if opts != nil {
		l.o = *opts
	}
	var tools []*genai.Tool
	cfg := &genai.LiveConnectConfig{}
	if config != nil {
		*cfg = *config
		tools = config.Tools
	}
	gc := &genai.GenerateContentConfig{Tools: tools, SystemInstruction: cfg.SystemInstruction}
	hosts, err := newHostSet(gc, l.o.HostFunctions, l.o.Fallback)
	if err != nil {
		return nil, err
	}
	req, err := b.declare(ctx, nil, gc, hosts, l.o.Selection, false)
	if err != nil {
		return nil, err
	}
	l.hosts, l.req = hosts, req
	l.nonBlocking = map[string]bool{}
	nonBlocking := slices.Clone(l.o.NonBlocking)
	for _, n := range l.o.Blocking {
		if declared(req.tools, n) == nil {
			return nil, fmt.Errorf("blocking function %q is not declared", n)
		}
		if slices.Contains(l.o.NonBlocking, n) {
			return nil, fmt.Errorf("function %q is both blocking and non-blocking", n)
		}
	}
	for n := range req.mcp {
		if b.taskRequired(hosts, req, n) && !slices.Contains(l.o.Blocking, n) {
			nonBlocking = append(nonBlocking, n)
		}
	}
	for _, n := range nonBlocking {
		d := declared(req.tools, n)
		if d == nil {
			return nil, fmt.Errorf("non-blocking function %q is not declared", n)
		}
		d.Behavior = genai.BehaviorNonBlocking // d is the request's own copy
		l.nonBlocking[n] = true
	}
	cfg.Tools = req.tools
	if l.o.ServerInstructions {
		cfg.SystemInstruction = b.withSystemInstruction(gc).SystemInstruction
	}
	l.config = cfg
	return l, nil
}

// declared returns the function declaration named name among tools.
func declared(tools []*genai.Tool, name string) *genai.FunctionDeclaration {
	for _, t := range tools {
		for _, d := range t.FunctionDeclarations {
			if d != nil && d.Name == name {
				return d
			}
		}
	}
	return nil
}

// Config returns the configuration to pass to genai's Live.Connect: a
// shallow copy of Live's config with the session's tools (and system
// instruction). Each call returns a new copy; the declarations are shared
// and must not be modified.
func (l *LiveTools) Config() *genai.LiveConnectConfig {
	c := *l.config
	c.Tools = slices.Clone(l.config.Tools)
	return &c
}

// Report says what the session's declarations carried and left out (Turn
// is 0).
func (l *LiveTools) Report() RequestReport { return l.req.report }

// Handle acts on one message of the session and reports whether it held
// anything for the tools: for a toolCall, it starts the calls and returns
// at once; for a toolCallCancellation, it cancels those of the named calls
// still running, at their servers too (their results are not sent). Other
// messages are left to the caller.
//
// The calls run as [Bridge.Run] runs them (host functions, confirmation,
// restoring, validation, redaction, tracing), within ctx. The blocking
// calls of one message run concurrently and are answered together in one
// tool response, in call order, when the last one ends; each non-blocking
// call is answered alone when it ends, with the scheduling
// [LiveOptions.Scheduling] chooses. Responses are sent on s from the
// goroutines running the calls, one at a time; a host that also sends on
// s from its own goroutine must serialize its sends with those (genai's
// Session allows one writer at a time). A failed send is logged and kept
// for [LiveTools.Err].
func (l *LiveTools) Handle(ctx context.Context, s LiveSender, msg *genai.LiveServerMessage) bool {
	if msg == nil {
		return false
	}
	handled := false
	if c := msg.ToolCallCancellation; c != nil {
		handled = true
		l.calls.Cancel(c.IDs)
	}
	if tc := msg.ToolCall; tc != nil {
		handled = true
		l.start(ctx, s, tc.FunctionCalls)
	}
	return handled
}

// start runs the calls of one toolCall message.
func (l *LiveTools) start(ctx context.Context, s LiveSender, calls []*genai.FunctionCall) {
	if l.o.OnProgress != nil {
		ctx = withProgressFunc(ctx, l.o.OnProgress)
	}
	var blocking []*genai.FunctionCall
	for _, c := range calls {
		if c == nil {
			continue
		}
		if l.o.OnCall != nil {
			l.o.OnCall(c)
		}
		if !l.nonBlocking[c.Name] {
			blocking = append(blocking, c)
			continue
		}
		l.calls.Go(func() {
			r, cancelled := l.run(ctx, c)
			if cancelled {
				return
			}
			fr := r.FunctionResponse()
			fr.Scheduling = genai.FunctionResponseSchedulingWhenIdle
			if l.o.Scheduling != nil {
				if sch := l.o.Scheduling(r); sch != "" {
					fr.Scheduling = sch
				}
			}
			l.send(s, []*genai.FunctionResponse{fr})
		})
	}
	if len(blocking) == 0 {
		return
	}
	l.calls.Go(func() {
		var mu sync.Mutex
		skip := map[*genai.FunctionCall]bool{}
		results := runAll(blocking, func(c *genai.FunctionCall) *CallResult {
			r, cancelled := l.run(ctx, c)
			if cancelled {
				mu.Lock()
				skip[c] = true
				mu.Unlock()
			}
			return r
		}, nil)
		var frs []*genai.FunctionResponse
		for i, r := range results {
			if !skip[blocking[i]] {
				frs = append(frs, r.FunctionResponse())
			}
		}
		if len(frs) > 0 {
			l.send(s, frs)
		}
	})
}

// run runs one call and reports whether it was cancelled, by the API or
// by Close: its result is then not sent.
func (l *LiveTools) run(ctx context.Context, c *genai.FunctionCall) (*CallResult, bool) {
	ctx, end := l.calls.Start(ctx, c.ID)
	r := l.b.dispatch(ctx, l.hosts, l.req, c)
	cancelled := end()
	if l.o.OnResult != nil {
		l.o.OnResult(r)
	}
	return r, cancelled
}

// send sends one tool response, one at a time.
func (l *LiveTools) send(s LiveSender, frs []*genai.FunctionResponse) {
	l.sendMu.Lock()
	err := s.SendToolResponse(genai.LiveToolResponseInput{FunctionResponses: frs})
	l.sendMu.Unlock()
	if err == nil {
		return
	}
	err = fmt.Errorf("sending a Live tool response: %w", err)
	l.b.log.Warn("live tool response not sent", "err", err)
	l.errMu.Lock()
	if l.err == nil {
		l.err = err
	}
	l.errMu.Unlock()
}

// Err returns the first error of sending a tool response, or nil.
func (l *LiveTools) Err() error {
	l.errMu.Lock()
	defer l.errMu.Unlock()
	return l.err
}

// Running reports how many calls are running.
func (l *LiveTools) Running() int { return l.calls.Running() }

// Close cancels the calls still running (their results are not sent) and
// waits for them to end. Handle starts nothing afterwards. It may be
// called more than once and returns nil.
func (l *LiveTools) Close() error {
	l.calls.Close()
	return nil
}
