package mcpbridge

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/geminitest"
)

// TestDeclareHostFunctions: the host's declarations come first, in
// order, a Bridge tool whose name a host function took is declared under
// an alias, the host's other tools stay apart; ExecuteAll sends each call
// to its owner (host handler, Bridge tool, alias, fallback), results in
// call order, and the strict fake accepts the request.
func TestDeclareHostFunctions(t *testing.T) {
	main := mcptestExec("main")
	main.IncludeTools = []string{"lookup", "echo", "sleep"}
	b := newBridge(t, nil, main)
	discover(t, b)
	ctx := context.Background()

	var slowStarted atomic.Bool
	hosts := []HostFunction{{
		// Takes a registered tool's name: the host keeps it.
		Declaration: &genai.FunctionDeclaration{Name: "lookup", Description: "the host's own lookup",
			Parameters: &genai.Schema{Type: genai.TypeObject, Properties: map[string]*genai.Schema{"q": {Type: genai.TypeString}}}},
		Handler: func(ctx context.Context, args map[string]any) (any, error) {
			slowStarted.Store(true)
			time.Sleep(100 * time.Millisecond) // finishes after the MCP call: order must still hold
			return map[string]any{"found": args["q"], "n": 2}, nil
		},
	}, {
		Declaration: &genai.FunctionDeclaration{Name: "clock", Description: "the time"},
		Handler: func(context.Context, map[string]any) (any, error) {
			return "noon", nil
		},
	}, {
		Declaration: &genai.FunctionDeclaration{Name: "broken", Description: "always fails"},
		Handler: func(context.Context, map[string]any) (any, error) {
			return nil, errors.New("printer on fire")
		},
	}, {
		Declaration: &genai.FunctionDeclaration{Name: "panicky", Description: "panics"},
		Handler: func(context.Context, map[string]any) (any, error) {
			panic("boom")
		},
	}, {
		Declaration: &genai.FunctionDeclaration{Name: "delegated", Description: "no handler: the fallback runs it"},
	}}
	local := &genai.Tool{FunctionDeclarations: []*genai.FunctionDeclaration{{Name: "local", Description: "declared in the config"}}}
	search := &genai.Tool{GoogleSearch: &genai.GoogleSearch{}}
	config := &genai.GenerateContentConfig{Tools: []*genai.Tool{local, search}}
	var mu sync.Mutex
	var fallbackNames []string
	fallback := func(_ context.Context, c *genai.FunctionCall) *CallResult {
		mu.Lock()
		fallbackNames = append(fallbackNames, c.Name)
		mu.Unlock()
		return &CallResult{LLMContent: []*genai.Part{{Text: "fallback ran " + c.Name}}, ReturnDisplay: "ok"}
	}

	d, err := b.Declare(ctx, prompt(), &DeclareOptions{Tools: config.Tools, Functions: hosts, Fallback: fallback})
	if err != nil {
		t.Fatalf("Declare() = %v", err)
	}
	var names []string
	for _, tool := range d.Tools {
		for _, fd := range tool.FunctionDeclarations {
			names = append(names, fd.Name)
		}
	}
	want := []string{"local", "lookup", "clock", "broken", "panicky", "delegated", "echo", "main__lookup", "sleep"}
	if diff := cmp.Diff(want, names); diff != "" || len(d.Tools) != 2 || d.Tools[0].GoogleSearch == nil || d.Tools[0] != search {
		t.Errorf("Declare() = %d tools, want Google Search kept apart, then one tool of declarations (-want +got):\n%s", len(d.Tools), diff)
	}
	if tool, ok := d.Tool("main__lookup"); !ok || tool.Server != "main" || tool.ServerTool != "lookup" {
		t.Errorf("Tool(main__lookup) = %v, %v, want main's lookup", tool, ok)
	}
	if tool, ok := d.Tool("lookup"); ok {
		t.Errorf("Tool(lookup) = %v, want none: the host's function owns the name", tool)
	}
	if tool, ok := d.Tool("profile"); ok {
		t.Errorf("Tool(profile) = %v, want none: not included", tool)
	}
	if tool, ok := d.Tool("echo"); !ok || tool.Name != "echo" {
		t.Errorf("Tool(echo) = %v, %v, want the registered echo", tool, ok)
	}
	// The strict fake accepts the declarations.
	srv := geminitest.New(t, nil, geminitest.Text("ok"))
	if _, err := srv.Client(ctx).Models.GenerateContent(ctx, e2eModel, prompt(), &genai.GenerateContentConfig{Tools: d.Tools}); err != nil {
		t.Errorf("GenerateContent(Declare's tools) = %v", err)
	}

	calls := []*genai.FunctionCall{
		{ID: "call-1", Name: "lookup", Args: map[string]any{"q": "ann"}},
		{ID: "call-2", Name: "main__lookup", Args: map[string]any{"name": "ann"}},
		{ID: "call-3", Name: "clock"},
		{ID: "call-4", Name: "echo", Args: map[string]any{"text": "hi"}},
		{ID: "call-5", Name: "broken"},
		{ID: "call-6", Name: "panicky"},
		{ID: "call-7", Name: "delegated"},
		{ID: "call-8", Name: "local"},
	}
	results := d.ExecuteAll(ctx, calls)
	if !slowStarted.Load() {
		t.Fatal("the host's lookup never ran")
	}
	got := make([]*genai.FunctionResponse, len(results))
	for i, r := range results {
		got[i] = r.FunctionResponse()
	}
	resp := func(id, name string, response map[string]any) *genai.FunctionResponse {
		return &genai.FunctionResponse{ID: id, Name: name, Response: response}
	}
	output := func(v any) map[string]any { return map[string]any{"output": v} }
	errorOf := func(s string) map[string]any { return map[string]any{"error": s} }
	wantResp := []*genai.FunctionResponse{
		resp("call-1", "lookup", output(map[string]any{"found": "ann", "n": json.Number("2")})),
		resp("call-2", "main__lookup", output(`{"id":"u-3"}`)),
		resp("call-3", "clock", output("noon")),
		resp("call-4", "echo", output(`{"text":"hi"}`)),
		resp("call-5", "broken", errorOf(`function "broken": printer on fire`)),
		resp("call-6", "panicky", errorOf(`host function "panicky" panicked: boom`)),
		resp("call-7", "delegated", output("fallback ran delegated")),
		resp("call-8", "local", output("fallback ran local")),
	}
	if diff := cmp.Diff(wantResp, got); diff != "" {
		t.Errorf("function responses mismatch (-want +got):\n%s", diff)
	}
	if r := results[1]; r.Server != "main" || r.ServerTool != "lookup" || r.Name != "main__lookup" {
		t.Errorf("aliased result = %s on %s/%s, want main__lookup on main/lookup", r.Name, r.Server, r.ServerTool)
	}
	if diff := cmp.Diff(map[string]any{"found": "ann", "n": "2"}, jsonNumbersAsStrings(results[0].StructuredContent())); diff != "" {
		t.Errorf("host result StructuredContent() mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{"main__lookup": "lookup"}, d.Report.Renamed); diff != "" {
		t.Errorf("Report.Renamed mismatch (-want +got):\n%s", diff)
	}
	slices.Sort(fallbackNames)
	if diff := cmp.Diff([]string{"delegated", "local"}, fallbackNames); diff != "" {
		t.Errorf("fallback calls mismatch (-want +got):\n%s", diff)
	}
	if len(config.Tools) != 2 || config.Tools[0] != local || len(local.FunctionDeclarations) != 1 {
		t.Errorf("Declare() modified the host's tools")
	}
	if unknown := d.Execute(ctx, &genai.FunctionCall{ID: "x", Name: "nowhere"}); unknown.Name != "nowhere" || unknown.ID != "x" ||
		unknown.Err != nil || unknown.LLMContent[0].Text != "fallback ran nowhere" {
		t.Errorf("Execute(unknown name) = %+v, want the fallback's result", unknown)
	}
	bare, err := b.Declare(ctx, nil, &DeclareOptions{Tools: config.Tools})
	if err != nil {
		t.Fatal(err)
	}
	if r := bare.Execute(ctx, &genai.FunctionCall{Name: "local"}); !errors.Is(r.Err, ErrUnknownTool) || !strings.Contains(r.Err.Error(), "no handler and no fallback") {
		t.Errorf("Execute(local) without a fallback = %v, want ErrUnknownTool", r.Err)
	}
	if r := bare.Execute(ctx, nil); !errors.Is(r.Err, ErrUnknownTool) {
		t.Errorf("Execute(nil) = %v, want ErrUnknownTool", r.Err)
	}
}

// jsonNumbersAsStrings turns json.Number values into strings, for cmp.
func jsonNumbersAsStrings(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range v {
			out[k] = jsonNumbersAsStrings(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = jsonNumbersAsStrings(e)
		}
		return out
	case interface{ String() string }:
		return v.String()
	}
	return v
}

// TestDeclareHostFunctionErrors: an invalid host function, or more host
// declarations than the limit, fail Declare.
func TestDeclareHostFunctionErrors(t *testing.T) {
	b := newBridge(t, nil)
	ctx := context.Background()
	fn := func(name string) HostFunction {
		return HostFunction{Declaration: &genai.FunctionDeclaration{Name: name}}
	}
	many := make([]HostFunction, 129)
	for i := range many {
		many[i] = fn("f" + strings.Repeat("x", i%60) + string(rune('a'+i%26)) + string(rune('a'+i/26)))
	}
	tests := []struct {
		name  string
		fns   []HostFunction
		limit int
		want  string
	}{
		{"nil declaration", []HostFunction{{}}, 0, "host function declaration: nil declaration"},
		{"bad name", []HostFunction{fn("1st")}, 0, `host function "1st": not a valid Gemini function name`},
		{"twice", []HostFunction{fn("a"), fn("a")}, 0, `host function "a" is declared twice`},
		{"over the limit", many, 128, "too many tools for one request: the host declares 129 functions, at most 128 fit in one request"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := b.Declare(ctx, prompt(), &DeclareOptions{Functions: tc.fns, Selection: &Selection{Limit: tc.limit}})
			if err == nil || !strings.Contains(err.Error(), tc.want) || d != nil {
				t.Errorf("Declare(%s) = %v, want an error containing %q", tc.name, err, tc.want)
			}
		})
	}
}
