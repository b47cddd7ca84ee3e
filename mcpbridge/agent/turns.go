package agent

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/internal/parallel"
	"github.com/mcpgenai/bridge/mcpbridge"
)

// run is the turn engine that [Agent.Run] and [Agent.RunStream] drive:
// the state of one conversation and the steps of a turn (request, calls,
// answer). The drivers differ only in how a request is sent and how the
// calls' progress and results are shown.
type run struct {
	a        *Agent
	config   *genai.GenerateContentConfig
	declare  mcpbridge.DeclareOptions
	maxTurns int
	res      *RunResult
}

// turn is one model answer with function calls, not yet answered, and
// the declarations of the request it answers.
type turn struct {
	d       *mcpbridge.Declarations
	content *genai.Content
	calls   []*genai.FunctionCall
}

// sendRequest sends one request with config (its Tools already declared)
// and returns the model's answer: GenerateContent for Run, a stream for
// RunStream.
type sendRequest func(ctx context.Context, config *genai.GenerateContentConfig) (*genai.GenerateContentResponse, error)

// midStreamError is an error of a stream that already delivered chunks: it
// is never healed, since the caller has seen part of the answer.
type midStreamError struct{ err error }

func (e *midStreamError) Error() string { return e.err.Error() }
func (e *midStreamError) Unwrap() error { return e.err }

// startRun starts a conversation from history (copied). The returned run
// is never nil; with an error its res is the result to return.
func (a *Agent) startRun(history []*genai.Content, config *genai.GenerateContentConfig) (*run, error) {
	r := &run{a: a, config: config, maxTurns: a.o.MaxTurns, res: &RunResult{History: slices.Clone(history)}}
	switch {
	case r.maxTurns == 0:
		r.maxTurns = DefaultMaxTurns
	case r.maxTurns < 0:
		r.maxTurns = 1
	}
	r.declare = mcpbridge.DeclareOptions{Functions: a.o.Functions, Fallback: a.o.Fallback, Selection: a.o.Selection}
	if config != nil {
		r.declare.Tools = config.Tools
	}
	return r, a.check()
}

// next makes the next request through send and returns the model's turn
// with its calls, already announced to OnCall. It returns nil and nil when
// the model answered without calls (the answer ends History), and an error
// (wrapped with the turn's number where it belongs to a request) as
// [Agent.Run] documents, ErrTurnLimit included.
func (r *run) next(ctx context.Context, send sendRequest) (*turn, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	r.res.History = withDelivered(r.res.History, r.a.bg.deliver())
	n := r.res.Turns + 1
	resp, d, err := r.request(ctx, send, n)
	if err != nil {
		return nil, fmt.Errorf("turn %d: %w", n, err)
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
	if n >= r.maxTurns {
		return nil, fmt.Errorf("%w: the model still called functions after %d requests", ErrTurnLimit, n)
	}
	if on := r.a.o.OnCall; on != nil {
		for _, c := range calls {
			on(c)
		}
	}
	return &turn{d: d, content: content, calls: calls}, nil
}

// request makes request n: it declares the tools for the conversation so
// far, sends the request, and when the API rejects declarations of Bridge
// tools (and healing drops them), declares again and sends it once more.
// Turns counts the request once it is sent; its report is kept once it
// succeeds.
func (r *run) request(ctx context.Context, send sendRequest, n int) (*genai.GenerateContentResponse, *mcpbridge.Declarations, error) {
	var healed []mcpbridge.DroppedTool
	for {
		d, err := r.a.b.Declare(ctx, r.res.History, &r.declare)
		if err != nil {
			return nil, nil, err
		}
		r.res.Turns = n
		resp, err := send(ctx, r.requestConfig(d))
		if err == nil {
			rep := d.Report
			rep.Rejected = healed
			r.res.Requests = append(r.res.Requests, rep)
			if on := r.a.o.OnRequest; on != nil {
				on(rep)
			}
			return resp, d, nil
		}
		var mid *midStreamError
		if healed != nil || errors.As(err, &mid) {
			return nil, nil, err
		}
		if healed = d.Heal(err); healed == nil {
			return nil, nil, err
		}
	}
}

// requestConfig returns the config of a request with declarations d: a
// shallow copy of the run's config with d's tools, and with
// ServerInstructions d's system instruction after the config's own
// parts.
func (r *run) requestConfig(d *mcpbridge.Declarations) *genai.GenerateContentConfig {
	cfg := &genai.GenerateContentConfig{}
	if r.config != nil {
		*cfg = *r.config
	}
	cfg.Tools = d.Tools
	if r.a.o.ServerInstructions {
		cfg.SystemInstruction = withInstructions(cfg.SystemInstruction, d.SystemInstruction())
	}
	return cfg
}

// withInstructions returns si (not modified) with the servers'
// instructions part appended, as a user content when si is nil; si itself
// when part is nil.
func withInstructions(si *genai.Content, part *genai.Part) *genai.Content {
	if part == nil {
		return si
	}
	out := &genai.Content{Role: genai.RoleUser}
	if si != nil {
		*out = *si
		out.Parts = append(slices.Clip(si.Parts), part)
	} else {
		out.Parts = []*genai.Part{part}
	}
	return out
}

// runCalls runs t's calls concurrently (at most maxParallelCalls at a
// time), each through t's declarations, the background ones in the
// background, and returns their results in call order; each result goes
// to OnResult as its call ends, then to ended, if not nil.
func (r *run) runCalls(ctx context.Context, t *turn, ended func(*mcpbridge.CallResult)) []*mcpbridge.CallResult {
	a := r.a
	return parallel.Run(t.calls, maxParallelCalls, func(c *genai.FunctionCall) *mcpbridge.CallResult {
		var res *mcpbridge.CallResult
		if c != nil && a.isBackground(t.d, c.Name) {
			res = a.bg.start(ctx, c, func(ctx context.Context) *mcpbridge.CallResult { return t.d.Execute(ctx, c) }, a.o.OnBackgroundDone)
		} else {
			res = t.d.Execute(ctx, c)
		}
		a.result(res)
		return res
	}, ended)
}

// answer records the results of t's calls (in call order): the model's
// turn and the user turn answering it in History.
func (r *run) answer(t *turn, results []*mcpbridge.CallResult) {
	parts := make([]*genai.Part, len(results))
	for i, res := range results {
		parts[i] = res.Part()
	}
	r.res.Results = append(r.res.Results, results...)
	r.res.History = append(r.res.History, t.content, &genai.Content{Role: genai.RoleUser, Parts: parts})
}
