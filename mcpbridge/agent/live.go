package agent

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/internal/parallel"
	"github.com/mcpgenai/bridge/mcpbridge"
	"github.com/mcpgenai/bridge/mcpbridge/agent/internal/live"
)

// LiveSender sends tool responses on a Live session: *genai.Session
// satisfies it.
type LiveSender interface {
	SendToolResponse(input genai.LiveToolResponseInput) error
}

// errSessionClosed is the cause of the calls a LiveSession's Close
// cancelled.
var errSessionClosed = errors.New("the live session was closed")

// LiveSession is the Bridge's tools for one Live API session: the
// configuration to connect with ([LiveSession.Config]) and the running of
// the calls the session's model makes ([LiveSession.Handle]). Create it
// with [Agent.Live]; [LiveSession.Close] it when the session ends. Its
// methods are safe for concurrent use.
type LiveSession struct {
	a          *Agent
	d          *mcpbridge.Declarations
	config     *genai.LiveConnectConfig
	background map[string]bool // declared NON_BLOCKING

	calls  live.Calls
	sendMu sync.Mutex
	errMu  sync.Mutex
	err    error
}

// Live prepares the Bridge's tools for a Live API session. config is the
// connection's configuration (nil means none); it is not modified: the
// configuration to connect with is [LiveSession.Config]. Its Tools are
// those [mcpbridge.Bridge.Declare] gives with every server bridged (the
// Live API cannot call servers itself) and no conversation: config's tools
// other than function declarations, then one [genai.Tool] declaring the
// function declarations of config.Tools, [Options.Functions] and the
// Bridge's tools chosen by [Options.Selection]. The background functions
// ([Options.Background], and the declared tools that run only as MCP
// tasks but those of [Options.Foreground]) are declared NON_BLOCKING. With
// [Options.ServerInstructions] the servers' instructions follow the
// system instruction's parts. The declarations are fixed for the session:
// tools that change later are still run when called, but not declared;
// and the session does no tool search ([mcpbridge.Selection.Search] is
// ignored: the Selection's other fields choose the tools).
//
// It fails with [ErrClosed] after [Agent.Close], with Declare's errors
// (an invalid host function, [mcpbridge.ErrTooManyTools] ...), when a name
// of Options.Background or Options.Foreground is not declared in the
// session, and when a name is in both.
func (a *Agent) Live(ctx context.Context, config *genai.LiveConnectConfig) (*LiveSession, error) {
	if err := a.check(); err != nil {
		return nil, err
	}
	cfg := &genai.LiveConnectConfig{}
	if config != nil {
		*cfg = *config
	}
	sel := a.o.Selection
	if sel != nil && sel.Search != nil {
		// A session's declarations are fixed: what a search found could
		// never be declared, so the session selects instead.
		s := *sel
		s.Search = nil
		sel = &s
	}
	d, err := a.b.Declare(ctx, nil, &mcpbridge.DeclareOptions{
		Tools: cfg.Tools, Functions: a.o.Functions, Fallback: a.o.Fallback, Selection: sel, ClientSide: true,
	})
	if err != nil {
		return nil, err
	}
	l := &LiveSession{a: a, d: d, background: map[string]bool{}}
	for _, n := range a.o.Foreground {
		if declared(d.Tools, n) == nil {
			return nil, fmt.Errorf("foreground function %q is not declared", n)
		}
	}
	background := slices.Clone(a.o.Background)
	for _, t := range d.Tools {
		for _, fd := range t.FunctionDeclarations {
			if !slices.Contains(background, fd.Name) && a.isBackground(d, fd.Name) {
				background = append(background, fd.Name)
			}
		}
	}
	for _, n := range background {
		fd := declared(d.Tools, n)
		if fd == nil {
			return nil, fmt.Errorf("background function %q is not declared", n)
		}
		fd.Behavior = genai.BehaviorNonBlocking // fd is the session's own copy
		l.background[n] = true
	}
	cfg.Tools = d.Tools
	if a.o.ServerInstructions {
		cfg.SystemInstruction = withInstructions(cfg.SystemInstruction, d.SystemInstruction())
	}
	l.config = cfg
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return nil, ErrClosed
	}
	a.sessions[l] = struct{}{}
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
func (l *LiveSession) Config() *genai.LiveConnectConfig {
	c := *l.config
	c.Tools = slices.Clone(l.config.Tools)
	return &c
}

// Report says what the session's declarations carried and left out.
func (l *LiveSession) Report() mcpbridge.RequestReport { return l.d.Report }

// Handle acts on one message of the session and reports whether it held
// anything for the tools: for a toolCall, it starts the calls and returns
// at once; for a toolCallCancellation, it cancels those of the named calls
// still running, at their servers too (their results are not sent, and
// their Err wraps [ErrCancelled]). Other messages are left to the caller.
//
// The calls run as [Agent.Run] runs them (host functions, confirmation,
// restoring, validation, redaction, tracing), within ctx, with the
// callbacks of the Agent's [Options]. The blocking calls of one message
// run concurrently and are answered together in one tool response, in
// call order, when the last one ends; each background call is answered
// alone when it ends, with the scheduling [Options.Scheduling] chooses.
// Responses are sent on s from the goroutines running the calls, one at a
// time; a host that also sends on s from its own goroutine must serialize
// its sends with those (genai's Session allows one writer at a time). A
// failed send is kept for [LiveSession.Err].
func (l *LiveSession) Handle(ctx context.Context, s LiveSender, msg *genai.LiveServerMessage) bool {
	if msg == nil {
		return false
	}
	handled := false
	if c := msg.ToolCallCancellation; c != nil {
		handled = true
		l.calls.Cancel(c.IDs, ErrCancelled)
	}
	if tc := msg.ToolCall; tc != nil {
		handled = true
		l.start(ctx, s, tc.FunctionCalls)
	}
	return handled
}

// start runs the calls of one toolCall message.
func (l *LiveSession) start(ctx context.Context, s LiveSender, calls []*genai.FunctionCall) {
	ctx = l.a.withProgress(ctx, nil)
	var blocking []*genai.FunctionCall
	for _, c := range calls {
		if c == nil {
			continue
		}
		if on := l.a.o.OnCall; on != nil {
			on(c)
		}
		if !l.background[c.Name] {
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
			if sched := l.a.o.Scheduling; sched != nil {
				if sch := sched(r); sch != "" {
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
		results := parallel.Run(blocking, maxParallelCalls, func(c *genai.FunctionCall) *mcpbridge.CallResult {
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
func (l *LiveSession) run(ctx context.Context, c *genai.FunctionCall) (*mcpbridge.CallResult, bool) {
	ctx, end := l.calls.Start(ctx, c.ID)
	r := l.d.Execute(ctx, c)
	cancelled := end()
	l.a.result(r)
	return r, cancelled
}

// send sends one tool response, one at a time.
func (l *LiveSession) send(s LiveSender, frs []*genai.FunctionResponse) {
	l.sendMu.Lock()
	err := s.SendToolResponse(genai.LiveToolResponseInput{FunctionResponses: frs})
	l.sendMu.Unlock()
	if err == nil {
		return
	}
	l.errMu.Lock()
	if l.err == nil {
		l.err = fmt.Errorf("sending a live tool response: %w", err)
	}
	l.errMu.Unlock()
}

// Err returns the first error of sending a tool response, or nil.
func (l *LiveSession) Err() error {
	l.errMu.Lock()
	defer l.errMu.Unlock()
	return l.err
}

// Running reports how many of the session's calls are running.
func (l *LiveSession) Running() int { return l.calls.Running() }

// Close cancels the calls still running (their results are not sent) and
// waits for them to end. Handle starts nothing afterwards. It may be
// called more than once and returns nil.
func (l *LiveSession) Close() error {
	l.calls.Close(errSessionClosed)
	l.a.mu.Lock()
	delete(l.a.sessions, l)
	l.a.mu.Unlock()
	return nil
}
