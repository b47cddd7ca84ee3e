package mcpbridge

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/mcpbridge/internal/live"
	"github.com/mcpgenai/bridge/mcpbridge/internal/result"
)

// LongCalls lets [Bridge.Run] and [Bridge.RunStream] leave calls that take
// long running while the conversation goes on. A call of one of Names is
// answered at once with {"status": "started", ...}, so the model can tell
// the user it started, and runs on in the background; once it ends, the
// next request of any run with the same LongCalls (this one or a later
// one, for the user's next message) carries its result as text in the
// last user turn: "The background call NAME (id ID) has finished: ...".
//
// A background call keeps the values of the run's context (trace, the
// run's progress callback) but not its cancellation: it outlives the run.
// Set it in [RunOptions.LongCalls]. The zero value runs in the background
// only the tools that run as MCP tasks (execution.taskSupport
// "required"). Names, Foreground and OnDone must not change once a run
// uses it. Its
// methods are safe for concurrent use. [LongCalls.Close] cancels the calls
// still running and waits for them.
type LongCalls struct {
	// Names are the function names (a Bridge tool's registered name, or a
	// host function's) whose calls run in the background. A Bridge tool
	// whose execution.taskSupport is "required" (it runs only as an MCP
	// task) runs in the background without being named, unless it is one
	// of Foreground.
	Names []string
	// Foreground names tools that run only as MCP tasks but are to be
	// waited for as other calls are; a name also in Names runs in the
	// background.
	Foreground []string
	// OnDone, if not nil, is called with each background call's result
	// when it ends, on the goroutine that ran it.
	OnDone func(r *CallResult)

	calls live.Calls
	mu    sync.Mutex
	done  []*CallResult // ended, not yet delivered
}

// start runs call in the background with run and returns the "started"
// result. The call outlives ctx's cancellation (not its values): only
// Close ends it.
func (l *LongCalls) start(ctx context.Context, call *genai.FunctionCall, run func(context.Context) *CallResult, limit int) *CallResult {
	bg := context.WithoutCancel(ctx)
	ok := l.calls.Go(func() {
		cctx, end := l.calls.Start(bg, call.ID)
		r := run(cctx)
		end()
		l.mu.Lock()
		l.done = append(l.done, r)
		l.mu.Unlock()
		if l.OnDone != nil {
			l.OnDone(r)
		}
	})
	if !ok {
		return errorResult(call.Name, call.ID, fmt.Errorf("function %q: the background calls were closed", call.Name))
	}
	raw, _ := result.FromValue(map[string]any{
		"status": "started",
		"note":   "This call runs in the background; its result will be given in a later turn.",
	})
	r, err := convertResult(raw, convertOptions{Name: call.Name, ID: call.ID, Tool: call.Name, TextLimit: limit})
	if err != nil { // cannot happen: the value above converts
		return errorResult(call.Name, call.ID, err)
	}
	return r
}

// deliver returns the text parts that hand the ended calls' results to
// the model, and forgets them; nil when none ended.
func (l *LongCalls) deliver() []*genai.Part {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	done := l.done
	l.done = nil
	l.mu.Unlock()
	parts := make([]*genai.Part, 0, len(done))
	for _, r := range done {
		resp, err := json.Marshal(r.FunctionResponse().Response)
		if err != nil {
			resp = []byte(fmt.Sprintf("%q", r.ReturnDisplay))
		}
		parts = append(parts, &genai.Part{Text: fmt.Sprintf("The background call %s (id %s) has finished: %s", r.Name, r.ID, resp)})
	}
	if len(parts) == 0 {
		return nil
	}
	return parts
}

// Running reports how many background calls are running.
func (l *LongCalls) Running() int { return l.calls.Running() }

// Pending reports how many background calls have ended and wait to be
// delivered.
func (l *LongCalls) Pending() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.done)
}

// Close cancels the background calls still running and waits for them;
// calls started afterwards fail at once. Results not yet delivered stay
// for the next request. It may be called more than once and returns nil.
func (l *LongCalls) Close() error {
	l.calls.Close()
	return nil
}

// withDelivered returns history with parts added to its last user turn
// (a copy of it), or as a new user turn when the last turn is the
// model's. history's contents are not modified.
func withDelivered(history []*genai.Content, parts []*genai.Part) []*genai.Content {
	if len(parts) == 0 {
		return history
	}
	if n := len(history); n > 0 && history[n-1] != nil && history[n-1].Role == genai.RoleUser {
		last := *history[n-1]
		last.Parts = append(slices.Clip(last.Parts), parts...)
		out := slices.Clone(history)
		out[n-1] = &last
		return out
	}
	return append(history, &genai.Content{Role: genai.RoleUser, Parts: parts})
}
