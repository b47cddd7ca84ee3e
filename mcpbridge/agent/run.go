package agent

import (
	"context"
	"fmt"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/mcpbridge"
)

// ContentGenerator generates content: *genai.Models (client.Models)
// satisfies it, and so can a test's fake.
type ContentGenerator interface {
	GenerateContent(ctx context.Context, model string, contents []*genai.Content, config *genai.GenerateContentConfig) (*genai.GenerateContentResponse, error)
}

// RunResult is what [Agent.Run] (or [Agent.RunStream]) did.
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
	// Results are the results of every call Run executed, in order (in
	// call order within a turn).
	Results []*mcpbridge.CallResult
	// Turns is the number of model requests made.
	Turns int
	// Requests says what each request carried and left out: Requests[i]
	// is request i+1's. A request sent again after the API rejected a
	// declaration is one report, whose Rejected names what was dropped.
	Requests []mcpbridge.RequestReport
}

// Run lets the model use the Bridge's tools until it answers without
// calling any (the usual agent loop): it sends history to model through
// gen, runs the function calls of the model's answer, appends the model's
// turn (exactly as returned, thought signatures included) and one user
// turn holding the function responses in call order, and sends again, at
// most [Options.MaxTurns] times.
//
// Each request's config is a shallow copy of config (nil means none)
// whose Tools are those [mcpbridge.Bridge.Declare] gives for the
// conversation so far: config's tools other than function declarations,
// then one [genai.Tool] declaring, in order, the function declarations of
// config.Tools, [Options.Functions], and the Bridge's tools chosen by
// [Options.Selection]. config, history and the host's declarations are
// never modified.
//
// The calls of a turn run concurrently (at most 16 at a time), each going
// to its owner ([mcpbridge.Declarations.Execute]); background calls (see
// [Options.Background]) are answered at once and run on.
//
// When the API answers 400 and its message points at declarations of
// Bridge tools, those tools are dropped for the Bridge's lifetime
// ([mcpbridge.Declarations.Heal]) and the request is declared and sent
// once more; a 400 that blames no Bridge tool is returned as it is.
//
// Run returns the result and nil when the model answered without function
// calls. Otherwise it returns what it has done so far with an error: ctx's
// or gen's error, [ErrClosed], an error of Declare (an invalid host
// function, [mcpbridge.ErrTooManyTools] when the host's own declarations
// exceed the limit, [mcpbridge.ErrNotDiscovered], [mcpbridge.ErrClosed]),
// [ErrNoAnswer] (the prompt was blocked or the answer is empty), or
// [ErrTurnLimit] when the model still called functions in its last allowed
// answer (those calls are not run; they are in Response, not in History).
// The result is never nil.
func (a *Agent) Run(ctx context.Context, gen ContentGenerator, model string, history []*genai.Content,
	config *genai.GenerateContentConfig) (*RunResult, error) {
	r, err := a.startRun(history, config)
	if err != nil {
		return r.res, err
	}
	ctx = a.withProgress(ctx, nil)
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
