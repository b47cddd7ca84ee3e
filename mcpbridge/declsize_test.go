package mcpbridge

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/geminitest"
	"github.com/mcpgenai/bridge/mcpbridge/internal/mcpconn"
	"github.com/mcpgenai/bridge/registry"
	"github.com/mcpgenai/bridge/schema"
)

// lineTool returns one tool of the LINE server fixture (its tools/list
// answer, kept in schema/testdata/servers).
func lineTool(t *testing.T, name string) mcpconn.Tool {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "schema", "testdata", "servers", "line-bot-mcp-server.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Tools []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	for _, tool := range f.Tools {
		if tool.Name == name {
			return mcpconn.Tool{Name: tool.Name, Description: "a LINE tool", InputSchema: tool.InputSchema}
		}
	}
	t.Fatalf("no tool %q in the LINE fixture", name)
	return mcpconn.Tool{}
}

// TestDeclarationBudget: a tool whose schema expands past the budget is
// cut to it, logged at Warn, and its Tool says its size and cuts; with no
// budget it is not cut; a tool that fits is neither cut nor logged.
func TestDeclarationBudget(t *testing.T) {
	cfg := ServerConfig{Name: "line", Command: "x"}
	big, small := lineTool(t, "push_flex_message"), lineTool(t, "push_text_message")
	for _, tc := range []struct {
		name    string
		budget  schema.Size
		wantCut bool
	}{
		{"default budget", 0, true},
		{"budget in tokens", schema.Tokens(2000), true},
		{"no budget", -1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs bytes.Buffer
			log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
			defs := convertTools(&cfg, []mcpconn.Tool{big, small}, schema.Options{Budget: tc.budget}, log)
			if len(defs) != 2 {
				t.Fatalf("convertTools() = %d tools, want 2", len(defs))
			}
			bigTool := newTool(registry.Entry{Name: "push_flex_message", Server: "line", ServerTool: "push_flex_message"}, defs[0], &cfg)
			smallTool := newTool(registry.Entry{Name: "push_text_message", Server: "line", ServerTool: "push_text_message"}, defs[1], &cfg)
			for _, tool := range []*Tool{bigTool, smallTool} {
				if got := declarationSize(tool.Declaration); tool.Size != got || got == 0 {
					t.Errorf("%s: Size = %d, want %d, the declaration's JSON size", tool.Name, tool.Size, got)
				}
			}
			warned := strings.Contains(logs.String(), "cut to its size budget") && strings.Contains(logs.String(), "tool=push_flex_message")
			if (bigTool.BudgetCuts > 0) != tc.wantCut || warned != tc.wantCut {
				t.Errorf("BudgetCuts = %d, warned %v; want cut %v (log: %s)", bigTool.BudgetCuts, warned, tc.wantCut, logs.String())
			}
			budget := tc.budget
			if budget == 0 {
				budget = schema.DefaultBudget
			}
			// The input schema is larger than the budget: the output may
			// be as large as the input.
			limit := max(budget, schema.Size(len(big.InputSchema)))
			if tc.wantCut && bigTool.Size > limit+schema.Size(len(`{"description":"a LINE tool","name":"push_flex_message","parameters":}`)) {
				t.Errorf("Size = %d, want the schema within %d", bigTool.Size, limit)
			}
			if smallTool.BudgetCuts != 0 || strings.Contains(logs.String(), "tool=push_text_message") {
				t.Errorf("the small tool was cut (%d) or logged: %s", smallTool.BudgetCuts, logs.String())
			}
		})
	}
}

// TestStatusToolSizes: the status of a real server gives every tool's
// declaration size, in JSON too.
func TestStatusToolSizes(t *testing.T) {
	b := newBridge(t, nil, mcptestExec("main"))
	discover(t, b)
	st := b.Status()
	s := st.Servers[0]
	if len(s.Tools) == 0 {
		t.Fatal("no tools")
	}
	for _, name := range s.Tools {
		tool, ok := b.Tool(name)
		if !ok {
			t.Fatalf("no tool %q", name)
		}
		if got := s.ToolSizes[name]; got != declarationSize(tool.Declaration) || got == 0 {
			t.Errorf("ToolSizes[%q] = %d, want %d", name, got, declarationSize(tool.Declaration))
		}
	}
	if len(s.ToolsCut) != 0 {
		t.Errorf("ToolsCut = %v, want none", s.ToolsCut)
	}
	raw, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	var back Status
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(s.ToolSizes, back.Servers[0].ToolSizes); diff != "" || !bytes.Contains(raw, []byte(`"toolSizes":{`)) {
		t.Errorf("toolSizes in JSON %s (-want +got):\n%s", raw, diff)
	}
}

// TestSelectionMaxSize: a request holds the best ranked tools whose
// declarations fit MaxSize, a large one left out does not keep a smaller
// one behind it out, and RequestReport.Size is what the request carried.
func TestSelectionMaxSize(t *testing.T) {
	main := mcptestExec("main")
	main.IncludeTools = []string{"lookup", "echo", "profile"}
	other := stdioServer("other", "-name=other", "-described="+topics[2], "-described="+topics[3])
	other.ExcludeTools = defaultToolNames
	b := newBridge(t, nil, main, other)
	discover(t, b)
	size := func(name string) schema.Size {
		tool, ok := b.Tool(name)
		if !ok {
			t.Fatalf("no tool %q", name)
		}
		return tool.Size
	}
	ctx := context.Background()
	weather := []*genai.Content{genai.NewContentFromText("Search the open issues about the weather", genai.RoleUser)}
	tests := []struct {
		name    string
		sel     *Selection
		want    []string
		omitted []string
	}{
		{"everything fits", &Selection{MaxSize: 1 << 20}, []string{"echo", "get_weather", "lookup", "profile", "search_issues"}, nil},
		{"the two best fit", &Selection{MaxSize: size("get_weather") + size("search_issues")},
			[]string{"get_weather", "search_issues"}, []string{"echo", "lookup", "profile"}},
		{"beside the count limit", &Selection{Limit: 1, MaxSize: 1 << 20}, []string{"search_issues"}, []string{"echo", "get_weather", "lookup", "profile"}},
		{"nothing fits", &Selection{MaxSize: 1}, nil, []string{"echo", "get_weather", "lookup", "profile", "search_issues"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := geminitest.New(t, nil, geminitest.Text("ok"))
			res, err := hostLoop(ctx, b, srv.Client(ctx).Models, weather, nil, &DeclareOptions{Selection: tc.sel}, false)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := declNames(srv.Requests()[0])
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("declared (-want +got):\n%s", diff)
			}
			omitted := slices.Sorted(slices.Values(res.Requests[0].Omitted))
			if diff := cmp.Diff(tc.omitted, omitted); diff != "" {
				t.Errorf("Omitted (-want +got):\n%s", diff)
			}
			var want schema.Size
			for _, name := range got {
				want += size(name)
			}
			if r := res.Requests[0]; r.Size != want || r.Size > tc.sel.MaxSize {
				t.Errorf("RequestReport.Size = %d, want %d (at most %d)", r.Size, want, tc.sel.MaxSize)
			}
		})
	}
	// A large tool ranked first but too large for the room left does not
	// keep a smaller one behind it out.
	room := size("search_issues") - 1
	kept, left := fitSize([]*Tool{{Size: room + 1}, {Size: room}}, []int{0, 1}, room)
	if !slices.Equal(kept, []int{1}) || !slices.Equal(left, []int{0}) {
		t.Errorf("fitSize() = %v, %v; want [1], [0]", kept, left)
	}
}
