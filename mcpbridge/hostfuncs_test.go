package mcpbridge

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/geminitest"
)

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

func TestRunHostFunctions(t *testing.T) {
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
	var fallbackNames []string
	fallback := func(_ context.Context, c *genai.FunctionCall) *CallResult {
		fallbackNames = append(fallbackNames, c.Name) // calls of one turn run concurrently, but only one goes here per test turn
		return &CallResult{LLMContent: []*genai.Part{{Text: "fallback ran " + c.Name}}, ReturnDisplay: "ok"}
	}

	srv := geminitest.New(t, nil,
		func(req *geminitest.Request) geminitest.Response {
			names, n := declNames(req)
			want := []string{"local", "lookup", "clock", "broken", "panicky", "delegated", "echo", "main__lookup", "sleep"}
			if diff := cmp.Diff(want, names); diff != "" || n != 1 {
				t.Errorf("declarations in %d tools, mismatch (-want +got):\n%s", n, diff)
			}
			if len(req.Config.Tools) != 2 || req.Config.Tools[0].GoogleSearch == nil {
				t.Errorf("request tools = %d, want Google Search kept apart, then one tool of declarations", len(req.Config.Tools))
			}
			return geminitest.Response{Parts: []*genai.Part{
				{FunctionCall: &genai.FunctionCall{Name: "lookup", Args: map[string]any{"q": "ann"}}},
				{FunctionCall: &genai.FunctionCall{Name: "main__lookup", Args: map[string]any{"name": "ann"}}},
				{FunctionCall: &genai.FunctionCall{Name: "clock"}},
				{FunctionCall: &genai.FunctionCall{Name: "echo", Args: map[string]any{"text": "hi"}}},
				{FunctionCall: &genai.FunctionCall{Name: "broken"}},
				{FunctionCall: &genai.FunctionCall{Name: "panicky"}},
			}}
		},
		geminitest.Calls(geminitest.Call{Name: "delegated"}),
		geminitest.Calls(geminitest.Call{Name: "local"}),
		geminitest.Text("done"),
	)
	res, err := b.Run(ctx, srv.Client(ctx).Models, e2eModel, prompt(), config, &RunOptions{HostFunctions: hosts, Fallback: fallback})
	if err != nil {
		t.Fatalf("Run() = %v", err)
	}
	if !slowStarted.Load() {
		t.Fatal("the host's lookup never ran")
	}
	reqs := srv.Requests()
	got := sentResponses(reqs, nil)
	want := [][]*genai.FunctionResponse{{
		fr("call-1", "lookup", output(map[string]any{"found": "ann", "n": float64(2)})),
		fr("call-2", "main__lookup", output(`{"id":"u-3"}`)),
		fr("call-3", "clock", output("noon")),
		fr("call-4", "echo", output(`{"text":"hi"}`)),
		fr("call-5", "broken", errorOf(`function "broken": printer on fire`)),
		fr("call-6", "panicky", errorOf(`host function "panicky" panicked: boom`)),
	}, {
		fr("call-7", "delegated", output("fallback ran delegated")),
	}, {
		fr("call-8", "local", output("fallback ran local")),
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("function responses mismatch (-want +got):\n%s", diff)
	}
	if r := res.Results[1]; r.Server != "main" || r.ServerTool != "lookup" || r.Name != "main__lookup" {
		t.Errorf("aliased result = %s on %s/%s, want main__lookup on main/lookup", r.Name, r.Server, r.ServerTool)
	}
	if diff := cmp.Diff(map[string]any{"found": "ann", "n": "2"}, jsonNumbersAsStrings(res.Results[0].StructuredContent())); diff != "" {
		t.Errorf("host result StructuredContent() mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{"main__lookup": "lookup"}, res.Requests[0].Renamed); diff != "" {
		t.Errorf("Requests[0].Renamed mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"delegated", "local"}, fallbackNames); diff != "" {
		t.Errorf("fallback calls mismatch (-want +got):\n%s", diff)
	}
	if len(config.Tools) != 2 || config.Tools[0] != local || len(local.FunctionDeclarations) != 1 {
		t.Errorf("Run() modified config.Tools")
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

func TestRunHostFunctionErrors(t *testing.T) {
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
			srv := geminitest.New(t, nil)
			_, err := b.Run(ctx, srv.Client(ctx).Models, e2eModel, prompt(), nil,
				&RunOptions{HostFunctions: tc.fns, Selection: &Selection{Limit: tc.limit}})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Run(%s) = %v, want an error containing %q", tc.name, err, tc.want)
			}
			if n := len(srv.Requests()); n != 0 {
				t.Errorf("Run(%s) sent %d requests, want 0", tc.name, n)
			}
		})
	}
}
