package mcpbridge

import (
	"context"
	"fmt"
	"slices"

	"google.golang.org/genai"
)

// run is the turn engine that [Bridge.Run] and [Bridge.RunStream] drive:
// the state of one conversation and the steps of a turn (request, calls,
// answer). The drivers differ only in how a request is sent and how the
// calls' progress and results are shown.
type run struct {
	b      *Bridge
	o      RunOptions
	config *genai.GenerateContentConfig
	hosts  *hostSet
	res    *RunResult
}

// turn is one model answer with function calls, not yet answered.
type turn struct {
	req     *request
	content *genai.Content
	calls   []*genai.FunctionCall
}

// startRun checks the options and starts a conversation from history
// (copied). The returned run is never nil; with an error its res is the
// result to return.
func (b *Bridge) startRun(history []*genai.Content, config *genai.GenerateContentConfig, opts *RunOptions) (*run, error) {
	r := &run{b: b, config: config, res: &RunResult{History: slices.Clone(history)}}
	if opts != nil {
		r.o = *opts
	}
	switch {
	case r.o.MaxTurns == 0:
		r.o.MaxTurns = DefaultMaxTurns
	case r.o.MaxTurns < 0:
		r.o.MaxTurns = 1
	}
	if err := b.undiscovered(); err != nil {
		return r, err
	}
	hosts, err := newHostSet(config, r.o.HostFunctions, r.o.Fallback)
	if err != nil {
		return r, err
	}
	r.hosts = hosts
	return r, nil
}

// progressContext returns ctx whose calls report progress to the run's
// OnProgress and then to also (either may be nil); with neither, ctx.
func (r *run) progressContext(ctx context.Context, also func(Progress)) context.Context {
	on := r.o.OnProgress
	switch {
	case also == nil && on == nil:
		return ctx
	case also == nil:
		return withProgressFunc(ctx, on)
	case on == nil:
		return withProgressFunc(ctx, also)
	}
	return withProgressFunc(ctx, func(p Progress) { on(p); also(p) })
}

// next makes the next request through send and returns the model's turn
// with its calls, already announced to OnCall. It returns nil and nil when
// the model answered without calls (the answer ends History), and an error
// (wrapped with the turn's number where it belongs to a request) as [Bridge.Run]
// documents, ErrTurnLimit included.
func (r *run) next(ctx context.Context, send sendRequest) (*turn, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if r.b.isClosed() {
		return nil, ErrClosed
	}
	config := r.config
	if r.o.ServerInstructions {
		config = r.b.withSystemInstruction(config)
	}
	r.res.History = withDelivered(r.res.History, r.o.LongCalls.deliver())
	r.res.Turns++
	n := r.res.Turns
	resp, req, err := r.b.generate(ctx, send, r.res.History, config, r.hosts, r.o.Selection, n)
	if err != nil {
		return nil, fmt.Errorf("turn %d: %w", n, err)
	}
	r.res.Requests = append(r.res.Requests, req.report)
	if r.o.OnRequest != nil {
		r.o.OnRequest(req.report)
	}
	r.res.Response = resp
	content, err := answer(resp)
	if err != nil {
		return nil, fmt.Errorf("turn %d: %w", n, err)
	}
	calls := functionCalls(content)
	if len(calls) == 0 {
		r.res.History = append(r.res.History, content)
		return nil, nil
	}
	if n >= r.o.MaxTurns {
		return nil, fmt.Errorf("%w: the model still called functions after %d requests", ErrTurnLimit, n)
	}
	if r.o.OnCall != nil {
		for _, c := range calls {
			r.o.OnCall(c)
		}
	}
	return &turn{req: req, content: content, calls: calls}, nil
}

// runCalls runs t's calls concurrently (at most maxParallelCalls at a
// time), each through dispatch, those of LongCalls in the background, and
// returns their results in call order; ended, if not nil, gets each result
// as its call ends.
func (r *run) runCalls(ctx context.Context, t *turn, ended func(int, *CallResult)) []*CallResult {
	b, long := r.b, r.o.LongCalls
	return runAll(t.calls, func(c *genai.FunctionCall) *CallResult {
		if c != nil && long.isLong(c.Name, b.taskRequired(r.hosts, t.req, c.Name)) {
			return long.start(ctx, c, func(ctx context.Context) *CallResult { return b.dispatch(ctx, r.hosts, t.req, c) }, b.textLimit)
		}
		return b.dispatch(ctx, r.hosts, t.req, c)
	}, ended)
}

// answer records the results of t's calls (in call order): OnResult, then
// the model's turn and the user turn answering it in History.
func (r *run) answer(t *turn, results []*CallResult) {
	parts := make([]*genai.Part, len(results))
	for i, res := range results {
		parts[i] = res.Part()
		if r.o.OnResult != nil {
			r.o.OnResult(res)
		}
	}
	r.res.Results = append(r.res.Results, results...)
	r.res.History = append(r.res.History, t.content, &genai.Content{Role: genai.RoleUser, Parts: parts})
}
