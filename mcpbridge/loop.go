package mcpbridge

import (
	"context"
	"fmt"

	"google.golang.org/genai"
)

// DefaultMaxTurns is how many model requests [Bridge.Run] makes at most
// when [RunOptions.MaxTurns] is zero.
const DefaultMaxTurns = 10

// ContentGenerator generates content: *genai.Models (client.Models)
// satisfies it, and so can a test's fake.
type ContentGenerator interface {
	GenerateContent(ctx context.Context, model string, contents []*genai.Content, config *genai.GenerateContentConfig) (*genai.GenerateContentResponse, error)
}

// RunOptions configure [Bridge.Run]. The zero value is ready to use.
type RunOptions struct {
	// MaxTurns is how many model requests Run makes at most. Zero means
	// [DefaultMaxTurns]; a negative value means one.
	MaxTurns int
	// OnCall, if not nil, is called with each function call of a model
	// turn, in order, before the turn's calls run.
	OnCall func(call *genai.FunctionCall)
	// OnResult, if not nil, is called with each result of a turn, in call
	// order, once all of the turn's calls have ended (for showing
	// [CallResult.ReturnDisplay]).
	OnResult func(r *CallResult)

	// HostFunctions are the host's own functions, declared beside the
	// Bridge's tools and run in the same turns (see [HostFunction]).
	HostFunctions []HostFunction
	// Fallback, if not nil, runs the calls that neither a HostFunction's
	// Handler nor a Bridge tool owns: calls of the function declarations
	// in the config's Tools, of HostFunctions without a Handler, and of
	// unknown names, and returns the call's result (Name and ID are set
	// from the call). It is called concurrently for the calls of one turn.
	// A Bridge's own Execute method fits, for a second Bridge. nil makes
	// them unknown functions.
	Fallback func(ctx context.Context, call *genai.FunctionCall) *CallResult
	// Selection chooses the Bridge tools each request carries; nil
	// carries every tool up to the API's limit, ranked by the built-in
	// lexical ranker (see [Selection.Ranker]) when there are more.
	Selection *Selection
	// OnRequest, if not nil, is called after each successful request with
	// what it carried (also kept in [RunResult.Requests]).
	OnRequest func(RequestReport)
	// ServerInstructions, when true, adds the servers' instructions
	// ([Bridge.SystemInstruction]) to each request's system instruction,
	// after config's own parts.
	ServerInstructions bool
	// OnProgress, if not nil, receives the progress servers report on the
	// calls Run makes, instead of [Options.OnProgress] (see [Progress]).
	OnProgress func(Progress)
	// LongCalls, if not nil, names the calls that run in the background
	// (and takes the tools that run only as MCP tasks among them):
	// answered at once as started, their results given to the model in a
	// later request (see [LongCalls]). Nil waits for every call.
	LongCalls *LongCalls
}

// RunResult is what [Bridge.Run] did.
type RunResult struct {
	// Response is the model's last response: its final answer, or, with
	// [ErrTurnLimit], the function calls that were not run. nil when no
	// request succeeded.
	Response *genai.GenerateContentResponse
	// History is the conversation: the history Run was given, then each
	// model turn with calls and the user turn answering them, then the
	// model's final answer. With an error it ends with the last function
	// responses, so it can be sent again as is (an unanswered model turn
	// is never included).
	History []*genai.Content
	// Results are the results of every call Run executed, in order.
	Results []*CallResult
	// Turns is the number of model requests made.
	Turns int
	// Requests says what each request carried and left out, in order;
	// a request retried after the API rejected a declaration is one
	// report.
	Requests []RequestReport
}

// Run lets the model use the Bridge's tools until it answers without
// calling any (the usual agent loop): it sends history to model through
// gen, runs the function calls of the model's answer ([Bridge.ExecuteAll]),
// appends the model's turn (exactly as returned, thought signatures
// included) and one user turn holding the function responses in call
// order, and sends again, at most opts.MaxTurns times.
//
// Each request's config is a shallow copy of config (nil means none). Its
// Tools are config's tools other than function declarations, then one
// [genai.Tool] declaring, in order, the function declarations of
// config.Tools, opts.HostFunctions, and the Bridge's tools chosen by
// opts.Selection (read again before each request, sorted by name). The
// host's names win: a Bridge tool registered under one of them is declared
// as "server__tool" for the request. Every declaration is a copy made for
// the request; config, history and the host's declarations are never
// modified. If opts is nil, the default options are used.
//
// The calls of a turn run concurrently, results in call order, each going
// to its owner: a host function's Handler, a Bridge tool (one that the
// request did not carry still runs), or opts.Fallback.
//
// When the API answers 400 and its message points at declarations of
// Bridge tools (by index or by name), those tools are dropped for the
// Bridge's lifetime (see [DroppedTool]) and the request is sent once more;
// a 400 that blames no Bridge tool is returned as it is.
//
// Run returns the result and nil when the model answered without function
// calls. Otherwise it returns what it has done so far with an error: ctx's
// or gen's error, [ErrTooManyTools] when the host's own declarations
// exceed the limit, an invalid host function, [ErrNoAnswer] (the prompt
// was blocked or the answer is empty), or [ErrTurnLimit] when the model
// still called functions in its last allowed answer (those calls are not
// run; they are in Response, not in History). The result is never nil.
func (b *Bridge) Run(ctx context.Context, gen ContentGenerator, model string, history []*genai.Content,
	config *genai.GenerateContentConfig, opts *RunOptions) (*RunResult, error) {
	r, err := b.startRun(history, config, opts)
	if err != nil {
		return r.res, err
	}
	ctx = r.progressContext(ctx, nil)
	send := func(ctx context.Context, cfg *genai.GenerateContentConfig) (*genai.GenerateContentResponse, error) {
		return gen.GenerateContent(ctx, model, r.res.History, cfg)
	}
	for {
		t, err := r.next(ctx, send)
		if err != nil || t == nil {
			return r.res, err
		}
		r.answer(t, r.runCalls(ctx, t, nil))
	}
}

// answer returns the content of resp's first candidate, with role "model"
// when the API left it empty, or an error wrapping ErrNoAnswer.
func answer(resp *genai.GenerateContentResponse) (*genai.Content, error) {
	if resp == nil {
		return nil, fmt.Errorf("%w: empty response", ErrNoAnswer)
	}
	if len(resp.Candidates) == 0 || resp.Candidates[0] == nil {
		if fb := resp.PromptFeedback; fb != nil && fb.BlockReason != "" {
			extra := ""
			if fb.BlockReasonMessage != "" {
				extra = " (" + fb.BlockReasonMessage + ")"
			}
			return nil, fmt.Errorf("%w: prompt blocked: %s%s", ErrNoAnswer, fb.BlockReason, extra)
		}
		return nil, fmt.Errorf("%w: no candidates", ErrNoAnswer)
	}
	c := resp.Candidates[0]
	if c.Content == nil || len(c.Content.Parts) == 0 {
		reason := string(c.FinishReason)
		if reason == "" {
			reason = "unspecified"
		}
		msg := ""
		if c.FinishMessage != "" {
			msg = " (" + c.FinishMessage + ")"
		}
		return nil, fmt.Errorf("%w: the answer has no content (finish reason %s%s)", ErrNoAnswer, reason, msg)
	}
	content := c.Content
	if content.Role == "" {
		cc := *content
		cc.Role = genai.RoleModel
		content = &cc
	}
	return content, nil
}

// functionCalls returns the function calls of content, in order.
func functionCalls(content *genai.Content) []*genai.FunctionCall {
	var calls []*genai.FunctionCall
	for _, p := range content.Parts {
		if p != nil && p.FunctionCall != nil {
			calls = append(calls, p.FunctionCall)
		}
	}
	return calls
}
