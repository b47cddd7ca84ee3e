package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/geminitest"
	"github.com/mcpgenai/bridge/mcpbridge"
	"github.com/mcpgenai/bridge/schema"
)

func TestRunTurnLimit(t *testing.T) {
	b := discovered(t, nil, mcptestExec("main"))
	again := geminitest.Calls(geminitest.Call{Name: "lookup", Args: map[string]any{"name": "ann"}})
	srv := geminitest.New(t, &geminitest.Options{ThoughtSignatures: true}, again, again, geminitest.Text("resumed"))
	ctx := context.Background()
	models := srv.Client(ctx).Models

	var called []string
	res, err := newAgent(t, b, &Options{
		MaxTurns: 2,
		OnCall:   func(c *genai.FunctionCall) { called = append(called, c.ID) },
	}).Run(ctx, models, e2eModel, prompt(), nil)
	if !errors.Is(err, ErrTurnLimit) || !strings.Contains(err.Error(), "after 2 requests") {
		t.Fatalf("Run(MaxTurns 2) = %v, want ErrTurnLimit after 2 requests", err)
	}
	if res.Turns != 2 || len(res.Results) != 1 || len(res.History) != 3 {
		t.Errorf("Run(MaxTurns 2) = %d turns, %d results, %d contents, want 2, 1, 3", res.Turns, len(res.Results), len(res.History))
	}
	if diff := cmp.Diff([]string{"call-1"}, called); diff != "" {
		t.Errorf("OnCall IDs mismatch (-want +got):\n%s", diff)
	}
	if fc := res.Response.FunctionCalls(); len(fc) != 1 || fc[0].ID != "call-2" {
		t.Errorf("Run(MaxTurns 2).Response calls = %v, want the unrun call-2", fc)
	}
	if last := res.History[len(res.History)-1]; last.Role != genai.RoleUser || last.Parts[0].FunctionResponse == nil {
		t.Errorf("Run(MaxTurns 2) history ends with %+v, want the function responses", last)
	}
	// The history is well formed (thought signatures kept): it can go on.
	res2, err := newAgent(t, b, nil).Run(ctx, models, e2eModel, res.History, nil)
	if err != nil || res2.Response.Text() != "resumed" {
		t.Fatalf("Run(resumed history) = %v, want the answer", err)
	}
}

func TestRunErrors(t *testing.T) {
	b := discovered(t, nil, mcptestExec("main"))
	a := newAgent(t, b, nil)
	ctx := context.Background()
	fake := func(t *testing.T, turns ...geminitest.Turn) ContentGenerator {
		return geminitest.New(t, nil, turns...).Client(ctx).Models
	}
	reply := func(resp *genai.GenerateContentResponse) ContentGenerator {
		return generatorFunc(func(context.Context, string, []*genai.Content, *genai.GenerateContentConfig) (*genai.GenerateContentResponse, error) {
			return resp, nil
		})
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	tests := []struct {
		name      string
		ctx       context.Context
		gen       func(t *testing.T) ContentGenerator
		wantErr   error
		wantText  string
		wantTurns int
	}{
		{"quota", ctx, func(t *testing.T) ContentGenerator {
			return fake(t, geminitest.Fail(429, "Resource has been exhausted"))
		}, nil, "turn 1: Error 429, Message: Resource has been exhausted", 1},
		{"safety stop without content", ctx, func(t *testing.T) ContentGenerator {
			return fake(t, geminitest.Reply(geminitest.Response{FinishReason: genai.FinishReasonSafety}))
		}, ErrNoAnswer, "turn 1: no answer from the model: the answer has no content (finish reason SAFETY)", 1},
		{"blocked prompt", ctx, func(*testing.T) ContentGenerator {
			return reply(&genai.GenerateContentResponse{PromptFeedback: &genai.GenerateContentResponsePromptFeedback{
				BlockReason: genai.BlockedReasonSafety, BlockReasonMessage: "unsafe"}})
		}, ErrNoAnswer, "turn 1: no answer from the model: prompt blocked: SAFETY (unsafe)", 1},
		{"no candidates", ctx, func(*testing.T) ContentGenerator {
			return reply(&genai.GenerateContentResponse{})
		}, ErrNoAnswer, "turn 1: no answer from the model: no candidates", 1},
		{"nil response", ctx, func(*testing.T) ContentGenerator { return reply(nil) },
			ErrNoAnswer, "turn 1: no answer from the model: empty response", 1},
		{"cancelled", cancelled, func(t *testing.T) ContentGenerator { return fake(t) },
			context.Canceled, "context canceled", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := a.Run(tc.ctx, tc.gen(t), e2eModel, prompt(), nil)
			if err == nil || (tc.wantErr != nil && !errors.Is(err, tc.wantErr)) || !strings.Contains(err.Error(), tc.wantText) {
				t.Fatalf("Run(%s) = %v, want %v containing %q", tc.name, err, tc.wantErr, tc.wantText)
			}
			if res == nil || res.Turns != tc.wantTurns || len(res.History) != 1 {
				t.Errorf("Run(%s) result = %+v, want %d turns and the history unchanged", tc.name, res, tc.wantTurns)
			}
		})
	}
}

func TestRunConfig(t *testing.T) {
	b := discovered(t, nil, mcptestExec("main"))
	ctx := context.Background()
	local := &genai.Tool{FunctionDeclarations: []*genai.FunctionDeclaration{{Name: "local", Description: "the caller's own"}}}
	config := &genai.GenerateContentConfig{Tools: []*genai.Tool{local}, SystemInstruction: genai.NewContentFromText("be brief", genai.RoleUser)}
	srv := geminitest.New(t, nil, func(req *geminitest.Request) geminitest.Response {
		names, n := declaredNames(req), toolsDeclaring(req)
		if n != 1 {
			t.Errorf("Run() sent declarations in %d tools, want one", n)
		}
		return geminitest.Response{Parts: []*genai.Part{{Text: strings.Join(names[:2], ",")}}}
	})
	res, err := newAgent(t, b, nil).Run(ctx, srv.Client(ctx).Models, e2eModel, prompt(), config)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := res.Response.Text(), "local,add_tool"; got != want {
		t.Errorf("Run() tools sent = %q, want the caller's first, then the bridge's (%q)", got, want)
	}
	if len(config.Tools) != 1 || config.Tools[0] != local {
		t.Errorf("Run() changed config.Tools to %v", config.Tools)
	}
	if req := srv.Requests()[0]; req.Config.SystemInstruction == nil || req.Config.SystemInstruction.Parts[0].Text != "be brief" {
		t.Errorf("Run() request lost the system instruction")
	}

	// With no tools at all the request has no tools.
	empty := newAgent(t, discovered(t, nil), nil)
	srv = geminitest.New(t, nil, geminitest.Text("plain"))
	if res, err := empty.Run(ctx, srv.Client(ctx).Models, e2eModel, prompt(), nil); err != nil || res.Response.Text() != "plain" {
		t.Errorf("Run(no tools) = %v, want the answer", err)
	}
	if tools := srv.Requests()[0].Config.Tools; len(tools) != 0 {
		t.Errorf("Run(no tools) sent tools %v, want none", tools)
	}

	// More tools than the API takes: the request carries 512, and says
	// which one it left out.
	many := mcptestWith("many", "-tools=513")
	many.ExcludeTools = []string{"add_tool", "crash", "echo", "env", "raw", "sleep", "weird"}
	big := newAgent(t, discovered(t, nil, many), nil)
	srv = geminitest.New(t, nil, geminitest.Text("fine"))
	res, err = big.Run(ctx, srv.Client(ctx).Models, e2eModel, prompt(), nil)
	if err != nil {
		t.Fatalf("Run(513 tools) = %v, want the answer", err)
	}
	if names := declaredNames(srv.Requests()[0]); len(names) != schema.Gemini.MaxDeclarations() {
		t.Errorf("Run(513 tools) sent %d declarations, want %d", len(names), schema.Gemini.MaxDeclarations())
	}
	if r := res.Requests[0]; r.Declared != schema.Gemini.MaxDeclarations() || len(r.Omitted) != 1 {
		t.Errorf("Run(513 tools) report = %d declared, omitted %v, want 512 and one", r.Declared, r.Omitted)
	}
}

// TestRunHostFunctions: Run declares the host's functions first (a Bridge
// tool whose name one took under an alias, reported), sends each call to
// its owner, and answers the model in call order; the config is not
// modified.
func TestRunHostFunctions(t *testing.T) {
	main := mcptestExec("main")
	main.IncludeTools = []string{"lookup", "echo"}
	b := discovered(t, nil, main)
	ctx := context.Background()
	host := mcpbridge.HostFunction{
		Declaration: &genai.FunctionDeclaration{Name: "lookup", Description: "the host's own lookup"},
		Handler: func(context.Context, map[string]any) (any, error) {
			return "the host's", nil
		},
	}
	local := &genai.Tool{FunctionDeclarations: []*genai.FunctionDeclaration{{Name: "local", Description: "declared in the config"}}}
	config := &genai.GenerateContentConfig{Tools: []*genai.Tool{local}}
	fallback := func(_ context.Context, c *genai.FunctionCall) *mcpbridge.CallResult {
		return mcpbridge.NewResult(c, "fallback ran "+c.Name, nil)
	}
	srv := geminitest.New(t, nil,
		func(req *geminitest.Request) geminitest.Response {
			if diff := cmp.Diff([]string{"local", "lookup", "echo", "main__lookup"}, declaredNames(req)); diff != "" {
				t.Errorf("declarations mismatch (-want +got):\n%s", diff)
			}
			return geminitest.Response{Parts: []*genai.Part{
				{FunctionCall: &genai.FunctionCall{Name: "main__lookup", Args: map[string]any{"name": "ann"}}},
				{FunctionCall: &genai.FunctionCall{Name: "lookup"}},
				{FunctionCall: &genai.FunctionCall{Name: "local"}},
			}}
		},
		geminitest.Text("done"),
	)
	a := newAgent(t, b, &Options{Functions: []mcpbridge.HostFunction{host}, Fallback: fallback})
	res, err := a.Run(ctx, srv.Client(ctx).Models, e2eModel, prompt(), config)
	if err != nil {
		t.Fatalf("Run() = %v", err)
	}
	var got []string
	for _, r := range srv.Requests()[1].FunctionResponses() {
		got = append(got, r.Name+"="+fmt.Sprint(r.Response["output"]))
	}
	want := []string{`main__lookup={"id":"u-3"}`, "lookup=the host's", "local=fallback ran local"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("responses sent to the model (-want +got):\n%s", diff)
	}
	if r := res.Results[0]; r.Server != "main" || r.ServerTool != "lookup" || r.Name != "main__lookup" {
		t.Errorf("aliased result = %s on %s/%s, want main__lookup on main/lookup", r.Name, r.Server, r.ServerTool)
	}
	if diff := cmp.Diff(map[string]string{"main__lookup": "lookup"}, res.Requests[0].Renamed); diff != "" {
		t.Errorf("Requests[0].Renamed mismatch (-want +got):\n%s", diff)
	}
	if len(config.Tools) != 1 || config.Tools[0] != local || len(local.FunctionDeclarations) != 1 {
		t.Errorf("Run() modified config.Tools")
	}
}

// TestToolSearchLoops: with tool search, Run and RunStream declare the
// search function, answer the model's search, declare what it found from
// the next request on (appended) and run it when called.
func TestToolSearchLoops(t *testing.T) {
	weather := mcptestWith("main", "-described=get_weather=Current weather and forecast for a city",
		"-described=convert_currency=Converts an amount of money between currencies")
	weather.Trust = true
	b := discovered(t, nil, weather)
	ctx := context.Background()
	for _, stream := range []bool{false, true} {
		t.Run(fmt.Sprintf("stream=%v", stream), func(t *testing.T) {
			var seen [][]string
			srv := geminitest.New(t, nil,
				func(req *geminitest.Request) geminitest.Response {
					seen = append(seen, declaredNames(req))
					return geminitest.Response{Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{Name: "search_tools",
						Args: map[string]any{"query": "will it rain in Oslo tomorrow"}}}}}
				},
				func(req *geminitest.Request) geminitest.Response {
					seen = append(seen, declaredNames(req))
					return geminitest.Response{Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{Name: "get_weather"}}}}
				},
				func(req *geminitest.Request) geminitest.Response {
					seen = append(seen, declaredNames(req))
					return geminitest.Response{Parts: []*genai.Part{{Text: "rain"}}}
				},
			)
			a := newAgent(t, b, &Options{Selection: &mcpbridge.Selection{Search: &mcpbridge.ToolSearch{}}})
			var results []*mcpbridge.CallResult
			if stream {
				for ev, err := range a.RunStream(ctx, srv.Client(ctx).Models, e2eModel, prompt(), nil) {
					if err != nil {
						t.Fatalf("RunStream() = %v", err)
					}
					if ev.Kind == EventResult {
						results = append(results, ev.Result)
					}
				}
			} else {
				res, err := a.Run(ctx, srv.Client(ctx).Models, e2eModel, prompt(), nil)
				if err != nil {
					t.Fatalf("Run() = %v", err)
				}
				results = res.Results
			}
			want := [][]string{{"search_tools"}, {"search_tools", "get_weather"}, {"search_tools", "get_weather"}}
			if diff := cmp.Diff(want, seen); diff != "" {
				t.Errorf("declared (-want +got):\n%s", diff)
			}
			if len(results) != 2 || results[1].Name != "get_weather" || results[1].Err != nil {
				t.Errorf("results %+v, want the search and get_weather run", results)
			}
		})
	}
}
