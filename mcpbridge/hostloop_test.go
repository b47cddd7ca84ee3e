package mcpbridge

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/geminitest"
)

// e2eModel is the model name the end-to-end tests ask for.
const e2eModel = "gemini-2.5-flash"

func prompt() []*genai.Content {
	return []*genai.Content{genai.NewContentFromText("go", genai.RoleUser)}
}

// generator sends one request: *genai.Models (client.Models) is one.
type generator interface {
	GenerateContent(ctx context.Context, model string, contents []*genai.Content, config *genai.GenerateContentConfig) (*genai.GenerateContentResponse, error)
}

// generatorFunc adapts a function to a generator, for answers the fake
// endpoint cannot give (a blocked prompt, a call of an undeclared
// function) and for watching what a request carried.
type generatorFunc func(context.Context, string, []*genai.Content, *genai.GenerateContentConfig) (*genai.GenerateContentResponse, error)

func (f generatorFunc) GenerateContent(ctx context.Context, model string, contents []*genai.Content, config *genai.GenerateContentConfig) (*genai.GenerateContentResponse, error) {
	return f(ctx, model, contents, config)
}

// declNames returns the names of the function declarations of every tool
// of req, and how many tools held any.
func declNames(req *geminitest.Request) (names []string, toolsWithDecls int) {
	for _, t := range req.Config.Tools {
		if len(t.FunctionDeclarations) > 0 {
			toolsWithDecls++
		}
		for _, d := range t.FunctionDeclarations {
			names = append(names, d.Name)
		}
	}
	return names, toolsWithDecls
}

// loopResult is what hostLoop did.
type loopResult struct {
	// Response is the model's last response.
	Response *genai.GenerateContentResponse
	// History is the conversation: the history given, each model turn
	// with calls and the user turn answering it, the final answer.
	History []*genai.Content
	// Results are the results of every call, in order.
	Results []*CallResult
	// Requests are the reports of the requests the model answered, one
	// per turn; a request sent again after Heal is one report, whose
	// Rejected the loop fills.
	Requests []RequestReport
	// Turns counts the model's turns asked for.
	Turns int
}

// hostLoop is the loop a host writes on the Bridge's public API alone,
// without the agent package: for each request it calls Declare with the
// conversation so far, sends the request with gen (the host's
// config, its Tools declared by the Bridge as the host's), and when the
// request fails and Heal drops tools for it, declares again and sends it
// once more; the model's calls run with ExecuteAll, the model's turn and
// the responses are appended, until the model answers without calls (at
// most 10 turns). opts' Tools are replaced by config's; neither is
// modified. instructions adds the servers' instructions to the system
// instruction.
func hostLoop(ctx context.Context, b *Bridge, gen generator, history []*genai.Content,
	config *genai.GenerateContentConfig, opts *DeclareOptions, instructions bool) (*loopResult, error) {
	res := &loopResult{History: slices.Clone(history)}
	var o DeclareOptions
	if opts != nil {
		o = *opts
	}
	var cfg genai.GenerateContentConfig
	if config != nil {
		cfg = *config
		o.Tools = config.Tools
	}
	for res.Turns < 10 {
		res.Turns++
		d, err := b.Declare(ctx, res.History, &o)
		if err != nil {
			return res, err
		}
		resp, err := gen.GenerateContent(ctx, e2eModel, res.History, requestConfig(&cfg, d, instructions))
		var healed []DroppedTool
		if healed = d.Heal(err); healed != nil {
			if d, err = b.Declare(ctx, res.History, &o); err != nil {
				return res, err
			}
			resp, err = gen.GenerateContent(ctx, e2eModel, res.History, requestConfig(&cfg, d, instructions))
		}
		if err != nil {
			return res, err
		}
		report := d.Report
		report.Rejected = healed
		res.Requests = append(res.Requests, report)
		res.Response = resp
		if len(resp.Candidates) == 0 || resp.Candidates[0].Content == nil {
			return res, fmt.Errorf("turn %d: no content", res.Turns)
		}
		calls := resp.FunctionCalls()
		res.History = append(res.History, resp.Candidates[0].Content)
		if len(calls) == 0 {
			return res, nil
		}
		results := d.ExecuteAll(ctx, calls)
		parts := make([]*genai.Part, len(results))
		for i, r := range results {
			parts[i] = r.Part()
		}
		res.Results = append(res.Results, results...)
		res.History = append(res.History, &genai.Content{Role: genai.RoleUser, Parts: parts})
	}
	return res, fmt.Errorf("the model still called functions after %d turns", res.Turns)
}

// requestConfig returns a copy of cfg carrying d's tools, and with
// instructions d's system instruction after cfg's own parts.
func requestConfig(cfg *genai.GenerateContentConfig, d *Declarations, instructions bool) *genai.GenerateContentConfig {
	out := *cfg
	out.Tools = d.Tools
	if part := d.SystemInstruction(); instructions && part != nil {
		si := &genai.Content{Role: genai.RoleUser}
		if cfg.SystemInstruction != nil {
			si.Role = cfg.SystemInstruction.Role
			si.Parts = slices.Clone(cfg.SystemInstruction.Parts)
		}
		si.Parts = append(si.Parts, part)
		out.SystemInstruction = si
	}
	return &out
}

// mustDeclare returns b's declarations for a request without a
// conversation or host functions.
func mustDeclare(t *testing.T, b *Bridge) *Declarations {
	t.Helper()
	d, err := b.Declare(context.Background(), nil, nil)
	if err != nil {
		t.Fatalf("Declare() = %v", err)
	}
	return d
}
