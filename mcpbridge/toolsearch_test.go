package mcpbridge

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/geminitest"
	"github.com/mcpgenai/bridge/mcpbridge/internal/result"
	"github.com/mcpgenai/bridge/schema"
)

// toolBridge returns a Bridge without servers whose registered tools are
// tools (names made unique as "server__tool", then with a number).
func toolBridge(t testing.TB, tools []*Tool) *Bridge {
	t.Helper()
	b, err := New(&Config{}, &Options{Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	b.tools = map[string]*Tool{}
	for _, tl := range tools {
		c := *tl
		for i := 2; b.tools[c.Name] != nil; i++ {
			c.Name = fmt.Sprintf("%s__%s", c.Server, tl.Name)
			if i > 2 {
				c.Name += fmt.Sprint(i)
			}
		}
		if c.Declaration != nil {
			d := *c.Declaration
			d.Name = c.Name
			c.Declaration = &d
		}
		c.lex = &lexicalCache{}
		b.tools[c.Name] = &c
		b.sorted = append(b.sorted, &c)
	}
	slices.SortFunc(b.sorted, func(x, y *Tool) int { return strings.Compare(x.Name, y.Name) })
	return b
}

// declared returns the names of the function declarations of d.
func declaredOf(d *Declarations) []string {
	var names []string
	for _, t := range d.Tools {
		for _, fd := range t.FunctionDeclarations {
			names = append(names, fd.Name)
		}
	}
	return names
}

// searchAnswerOf decodes what a search function's result tells the
// model.
func searchAnswerOf(t *testing.T, fr *genai.FunctionResponse) searchAnswer {
	t.Helper()
	raw, err := json.Marshal(fr.Response["output"])
	if err != nil {
		t.Fatal(err)
	}
	var ans searchAnswer
	if err := json.Unmarshal(raw, &ans); err != nil {
		t.Fatalf("search answer %s: %v", raw, err)
	}
	return ans
}

// TestToolSearchConversation: in a host's loop on Declare, against
// geminitest's scripted model, the model searches in its own words, calls
// what the answer named, searches again and calls that too. The first
// request declares the host's function and the search function alone;
// every request's declarations are the previous request's with the tools
// found since appended (the prefix the implicit cache keeps); the found
// tools run.
func TestToolSearchConversation(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 5 servers")
	}
	b := newBridge(t, nil, manyServers(5, 20)...)
	discover(t, b)
	ctx := context.Background()
	var seen [][]string
	record := func(req *geminitest.Request) {
		names, _ := declNames(req)
		seen = append(seen, names)
	}
	// callFound calls the first tool the last search answer named, after
	// checking that the request declares it.
	callFound := func(want string, also ...geminitest.Call) geminitest.Turn {
		return func(req *geminitest.Request) geminitest.Response {
			record(req)
			frs := req.FunctionResponses()
			if len(frs) == 0 || frs[len(frs)-1].Name != "search_tools" {
				t.Errorf("request %d: no search answer", len(seen))
				return geminitest.Response{Parts: []*genai.Part{{Text: "?"}}}
			}
			ans := searchAnswerOf(t, frs[len(frs)-1])
			if len(ans.Tools) == 0 || ans.Tools[0].Name != want {
				t.Errorf("request %d: search answered %+v, want %s first", len(seen), ans.Tools, want)
				return geminitest.Response{Parts: []*genai.Part{{Text: "?"}}}
			}
			parts := []*genai.Part{{FunctionCall: &genai.FunctionCall{Name: ans.Tools[0].Name, Args: map[string]any{"query": "x"}}}}
			for _, c := range also {
				parts = append(parts, &genai.Part{FunctionCall: &genai.FunctionCall{Name: c.Name, Args: c.Args}})
			}
			return geminitest.Response{Parts: parts}
		}
	}
	srv := geminitest.New(t, nil,
		func(req *geminitest.Request) geminitest.Response {
			record(req)
			return geminitest.Response{Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{Name: "search_tools",
				Args: map[string]any{"query": "how much is an amount of money in another currency"}}}}}
		},
		callFound("convert_currency", geminitest.Call{Name: "search_tools", Args: map[string]any{"query": "forecast for a city"}}),
		callFound("get_weather"),
		func(req *geminitest.Request) geminitest.Response {
			record(req)
			return geminitest.Response{Parts: []*genai.Part{{Text: "230 euros, and sunny."}}}
		},
	)
	host := HostFunction{Declaration: &genai.FunctionDeclaration{Name: "remember", Description: "notes a fact"},
		Handler: func(context.Context, map[string]any) (any, error) { return "noted", nil }}
	task := []*genai.Content{genai.NewContentFromText("How many euros are 250 dollars, and will it rain in Oslo?", genai.RoleUser)}
	res, err := hostLoop(ctx, b, srv.Client(ctx).Models, task, nil,
		&DeclareOptions{Functions: []HostFunction{host}, Selection: &Selection{Search: &ToolSearch{}}}, false)
	if err != nil {
		t.Fatalf("hostLoop() = %v", err)
	}
	if len(seen) != 4 {
		t.Fatalf("%d requests, want 4", len(seen))
	}
	if diff := cmp.Diff([]string{"remember", "search_tools"}, seen[0]); diff != "" {
		t.Errorf("first request declares (-want +got):\n%s", diff)
	}
	for i := 1; i < len(seen); i++ {
		if len(seen[i]) < len(seen[i-1]) || !slices.Equal(seen[i][:len(seen[i-1])], seen[i-1]) {
			t.Errorf("request %d declares %v, not request %d's %v with tools appended", i+1, seen[i], i, seen[i-1])
		}
	}
	if !slices.Contains(seen[1], "convert_currency") || !slices.Contains(seen[2], "get_weather") || len(seen[3]) > 2+2*defaultSearchResults {
		t.Errorf("requests declared %v", seen)
	}
	var ran []string
	for _, r := range res.Results {
		if r.Err != nil {
			t.Errorf("%s: %v", r.Name, r.Err)
		}
		if r.Name != "search_tools" {
			ran = append(ran, result.JoinText(r.LLMContent))
		}
	}
	if diff := cmp.Diff([]string{"convert_currency", "get_weather"}, ran); diff != "" {
		t.Errorf("the found tools ran (-want +got):\n%s", diff)
	}
	last := res.Requests[len(res.Requests)-1]
	if last.SearchFunction != "search_tools" || len(last.Found) != len(seen[3])-2 || last.Found[0] != seen[3][2] || last.Omitted != nil || last.Ranked != nil {
		t.Errorf("last report: %+v", last)
	}
}

// conversationOf builds a conversation of searches and calls: each step
// is either "search a b c" (a search answered with those names) or "call
// x" (a call of x).
func conversationOf(steps ...string) []*genai.Content {
	conv := []*genai.Content{genai.NewContentFromText("do things", genai.RoleUser)}
	for _, s := range steps {
		verb, rest, _ := strings.Cut(s, " ")
		names := strings.Fields(rest)
		switch verb {
		case "search":
			var ans searchAnswer
			for _, n := range names {
				ans.Tools = append(ans.Tools, searchHit{Name: n})
			}
			call := &genai.FunctionCall{Name: "search_tools", Args: map[string]any{"query": "q"}}
			r := hostResult("search_tools", "", ans, nil, defaultTextLimit)
			conv = append(conv, genai.NewContentFromParts([]*genai.Part{{FunctionCall: call}}, genai.RoleModel),
				genai.NewContentFromParts([]*genai.Part{r.Part()}, genai.RoleUser))
		case "call":
			call := &genai.FunctionCall{Name: names[0]}
			conv = append(conv, genai.NewContentFromParts([]*genai.Part{{FunctionCall: call}}, genai.RoleModel),
				genai.NewContentFromParts([]*genai.Part{{FunctionResponse: &genai.FunctionResponse{Name: names[0], Response: map[string]any{"output": "ok"}}}}, genai.RoleUser))
		}
	}
	return conv
}

// TestToolSearchBound: the found tools grow by appending, in the order
// found, a tool found twice once; past MaxFound the oldest never called
// leaves first (a called one stays; those the last answer named too), and
// when every one was called the oldest; an answer over the bound alone
// loses its last; the report says what was found and what left; a tool found
// again comes back at the end; a name no candidate has is skipped; the
// search function of a request that was healed of a found tool no longer
// declares it.
func TestToolSearchBound(t *testing.T) {
	var tools []*Tool
	for _, n := range []string{"a", "b", "c", "d", "e", "f", "g"} {
		tools = append(tools, &Tool{Name: n, Server: "s", ServerTool: n, Description: "tool " + n,
			Declaration: &genai.FunctionDeclaration{Name: n}, Size: 100})
	}
	b := toolBridge(t, tools)
	ctx := context.Background()
	sel := &Selection{Search: &ToolSearch{MaxFound: 3}}
	tests := []struct {
		name           string
		steps          []string
		found, evicted []string
	}{
		{"nothing yet", nil, nil, nil},
		{"in order found", []string{"search b a", "search c a"}, []string{"b", "a", "c"}, nil},
		{"unknown names skipped", []string{"search zz b", "search a"}, []string{"b", "a"}, nil},
		{"oldest unused leaves", []string{"search a b c", "call a", "search d"}, []string{"a", "c", "d"}, []string{"b"}},
		{"then the next unused", []string{"search a b c", "call a", "search d", "search e"}, []string{"a", "d", "e"}, []string{"b", "c"}},
		{"every one called: the oldest", []string{"search a b c", "call a", "call b", "call c", "search d"}, []string{"b", "c", "d"}, []string{"a"}},
		{"not the one just found", []string{"search a b c", "call a", "call b", "call c", "search d e"}, []string{"c", "d", "e"}, []string{"a", "b"}},
		{"found again, at the end", []string{"search a b c", "search d", "search a"}, []string{"c", "d", "a"}, []string{"b"}},
		{"a call before a search counts", []string{"call a", "search a b c", "search d"}, []string{"a", "c", "d"}, []string{"b"}},
		{"an answer over the bound: its last leave", []string{"search a b c d"}, []string{"a", "b", "c"}, []string{"d"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := b.Declare(ctx, conversationOf(tc.steps...), &DeclareOptions{Selection: sel})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(append([]string{"search_tools"}, tc.found...), declaredOf(d)); diff != "" {
				t.Errorf("declared (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.found, d.Report.Found); diff != "" {
				t.Errorf("Found (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.evicted, d.Report.Evicted); diff != "" {
				t.Errorf("Evicted (-want +got):\n%s", diff)
			}
			if d.Report.Declared != len(tc.found)+1 {
				t.Errorf("Declared = %d, want %d", d.Report.Declared, len(tc.found)+1)
			}
		})
	}

	// The prefix property over one conversation, step by step, until the
	// bound.
	steps := []string{"search a", "call a", "search b c", "call c", "search a b", "search d", "search e"}
	var prev []string
	for i := range steps {
		d, err := b.Declare(ctx, conversationOf(steps[:i+1]...), &DeclareOptions{Selection: sel})
		if err != nil {
			t.Fatal(err)
		}
		got := declaredOf(d)
		if len(d.Report.Evicted) == 0 && !slices.Equal(got[:min(len(prev), len(got))], prev) {
			t.Errorf("step %d declares %v, not %v with tools appended", i+1, got, prev)
		}
		prev = got
	}
	if diff := cmp.Diff([]string{"search_tools", "a", "c", "e"}, prev); diff != "" {
		t.Errorf("after the bound (-want +got):\n%s", diff)
	}

	// MaxSize bounds the found tools too: the search function and two
	// tools of 100 bytes fit.
	conv := conversationOf("search a b c")
	d, err := b.Declare(ctx, nil, &DeclareOptions{Selection: &Selection{Search: &ToolSearch{}}})
	if err != nil {
		t.Fatal(err)
	}
	limit := d.Report.Size + 250
	d, err = b.Declare(ctx, conv, &DeclareOptions{Selection: &Selection{MaxSize: limit, Search: &ToolSearch{}}})
	if err != nil {
		t.Fatal(err)
	}
	if d.Report.Size > limit || !slices.Equal(d.Report.Found, []string{"a", "b"}) || !slices.Equal(d.Report.Evicted, []string{"c"}) {
		t.Errorf("MaxSize %d: size %d, found %v, evicted %v", limit, d.Report.Size, d.Report.Found, d.Report.Evicted)
	}

	// A found tool the API rejected is declared no more.
	d, err = b.Declare(ctx, conv, &DeclareOptions{Selection: sel})
	if err != nil {
		t.Fatal(err)
	}
	dropped := d.Heal(&genai.APIError{Code: 400, Status: "INVALID_ARGUMENT",
		Message: "Invalid JSON payload received. Unknown name \"x\" at 'tools[0].function_declarations[2].parameters': Cannot find field."})
	if len(dropped) != 1 || dropped[0].Name != "b" {
		t.Fatalf("Heal() = %+v, want b dropped", dropped)
	}
	d, err = b.Declare(ctx, conv, &DeclareOptions{Selection: sel})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"search_tools", "a", "c"}, declaredOf(d)); diff != "" {
		t.Errorf("after healing (-want +got):\n%s", diff)
	}
}

// TestToolSearchAnswer: the search answers with the names the model
// calls, the servers, titles and descriptions cut short, never a hidden
// tool's schema; a query that matches nothing gets no tool and a note; a
// call without a query is an error; Declarations.Tool does not take the
// search function for a Bridge tool.
func TestToolSearchAnswer(t *testing.T) {
	_, bench := liveMCPBenchTools(t)
	b := toolBridge(t, bench)
	ctx := context.Background()
	d, err := b.Declare(ctx, nil, &DeclareOptions{Selection: &Selection{Search: &ToolSearch{Results: 10}}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"search_tools"}, declaredOf(d)); diff != "" {
		t.Errorf("declared (-want +got):\n%s", diff)
	}
	r := d.Execute(ctx, &genai.FunctionCall{ID: "1", Name: "search_tools", Args: map[string]any{"query": "search for academic papers"}})
	if r.Err != nil || r.ID != "1" {
		t.Fatalf("search: %v (id %q)", r.Err, r.ID)
	}
	fr := r.FunctionResponse()
	ans := searchAnswerOf(t, fr)
	if len(ans.Tools) != 10 {
		t.Fatalf("answered %d tools, want 10", len(ans.Tools))
	}
	raw, _ := json.Marshal(fr.Response)
	for _, h := range ans.Tools {
		tl, ok := d.Tool(h.Name)
		if !ok || tl.Server != h.Server || utf8.RuneCountInString(h.Description) > searchDescriptionRunes+1 {
			t.Errorf("hit %+v: tool %v, or a description over %d characters", h, ok, searchDescriptionRunes)
			continue
		}
		// Nothing of the tool's schema: no parameter's name or
		// description (of those long enough to be unmistakable).
		var params struct {
			Properties map[string]struct {
				Description string `json:"description"`
			} `json:"properties"`
		}
		_ = json.Unmarshal(tl.InputSchema(), &params)
		for name, p := range params.Properties {
			for _, s := range []string{`"` + name + `"`, p.Description} {
				if len(s) > 12 && strings.Contains(string(raw), s) {
					t.Errorf("the answer holds %q of %s's schema", s, h.Name)
				}
			}
		}
	}
	for _, bad := range []string{"properties", "parameters", "inputSchema", `"type"`} {
		if strings.Contains(string(raw), bad) {
			t.Errorf("the answer holds %s: %s", bad, raw)
		}
	}
	if !strings.Contains(strings.ToLower(ans.Tools[0].Name+ans.Tools[0].Description), "paper") {
		t.Errorf("best hit %+v, want a tool for papers", ans.Tools[0])
	}

	r = d.Execute(ctx, &genai.FunctionCall{Name: "search_tools", Args: map[string]any{"query": "zzqx vvqk"}})
	if ans := searchAnswerOf(t, r.FunctionResponse()); r.Err != nil || len(ans.Tools) != 0 || ans.Note == "" {
		t.Errorf("a query matching nothing: %v, %+v", r.Err, ans)
	}
	if r := d.Execute(ctx, &genai.FunctionCall{Name: "search_tools"}); r.Err == nil {
		t.Errorf("a search without a query: no error")
	}
	if _, ok := d.Tool("search_tools"); ok {
		t.Errorf("Tool(search_tools) = true, want false")
	}
}

// TestToolSearchModes: Auto searches only past the share of the context
// window; a host function or a Bridge tool that has the search function's
// name makes it search_tools_2; a Selection's filters bound what the
// search finds.
func TestToolSearchModes(t *testing.T) {
	var tools []*Tool
	for i := range 50 {
		n := fmt.Sprintf("tool_%02d", i)
		tools = append(tools, &Tool{Name: n, Server: "s", ServerTool: n, Description: "Reads the weather",
			Declaration: &genai.FunctionDeclaration{Name: n}, Size: 1000})
	}
	b := toolBridge(t, tools)
	ctx := context.Background()
	search := func(d *Declarations) string { return d.Report.SearchFunction }
	tests := []struct {
		name string
		opts *DeclareOptions
		want string
	}{
		{"off", &DeclareOptions{}, ""},
		{"on", &DeclareOptions{Selection: &Selection{Search: &ToolSearch{}}}, "search_tools"},
		// 50,000 bytes are 12,500 tokens: under 2% of 1,048,576 (20,971).
		{"auto, under", &DeclareOptions{Selection: &Selection{Search: &ToolSearch{Auto: true}}}, ""},
		{"auto, over", &DeclareOptions{Selection: &Selection{Search: &ToolSearch{Auto: true, ContextWindow: 500_000}}}, "search_tools"},
		{"auto, share", &DeclareOptions{Selection: &Selection{Search: &ToolSearch{Auto: true, Share: 0.01}}}, "search_tools"},
		{"renamed", &DeclareOptions{Selection: &Selection{Search: &ToolSearch{Name: "find"}}}, "find"},
		{"a host function's name", &DeclareOptions{Selection: &Selection{Search: &ToolSearch{}}, Functions: []HostFunction{{
			Declaration: &genai.FunctionDeclaration{Name: "search_tools"}}}}, "search_tools_2"},
		{"a tool's name", &DeclareOptions{Selection: &Selection{Search: &ToolSearch{Name: "tool_01"}}}, "tool_01_2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := b.Declare(ctx, nil, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := search(d); got != tc.want {
				t.Errorf("SearchFunction = %q, want %q", got, tc.want)
			}
			if tc.want != "" && !slices.Contains(declaredOf(d), tc.want) {
				t.Errorf("declared %v, want %s among them", declaredOf(d), tc.want)
			}
			if tc.want == "" && d.Report.Declared != 50 {
				t.Errorf("without search: %d declared, want 50", d.Report.Declared)
			}
		})
	}
	d, err := b.Declare(ctx, nil, &DeclareOptions{Selection: &Selection{Names: []string{"tool_07"}, Search: &ToolSearch{}}})
	if err != nil {
		t.Fatal(err)
	}
	r := d.Execute(ctx, &genai.FunctionCall{Name: "search_tools", Args: map[string]any{"query": "weather"}})
	if ans := searchAnswerOf(t, r.FunctionResponse()); len(ans.Tools) != 1 || ans.Tools[0].Name != "tool_07" {
		t.Errorf("search within Names = %+v, want tool_07 alone", ans.Tools)
	}
}

// TestToolSearchBytes measures the function declarations a request
// carries (compact JSON bytes, RequestReport.Size) over 100, 500 and 2,000
// real servers' tools (LiveMCPBench's 527, those of the servers the
// conversation needs first: the first 100 and 500, and four copies under
// other server names for 2,000): everything, the
// default selection (at most 512), and tool search over a conversation
// of four searches, each followed by a call of the tool it was for.
// Search must carry at least 85% fewer bytes than everything from 500
// tools on, in every request (go test -v -run TestToolSearchBytes prints
// the table of BENCHMARKS.md).
func TestToolSearchBytes(t *testing.T) {
	_, bench := liveMCPBenchTools(t)
	steps := []struct{ query, want string }{
		{"the weather forecast for a city", "get_weather"},
		{"search for academic papers on arxiv", "search_papers"},
		{"current stock price of a company", "get_current_stock_price"},
		{"convert a Word document to PDF", "convert_to_pdf"},
	}
	// The servers of the tools the conversation needs first, so that the
	// first 100 have them.
	needed := map[string]bool{}
	for _, tl := range bench {
		for _, s := range steps {
			if tl.Name == s.want {
				needed[tl.Server] = true
			}
		}
	}
	slices.SortStableFunc(bench, func(x, y *Tool) int {
		switch {
		case needed[x.Server] == needed[y.Server]:
			return 0
		case needed[x.Server]:
			return -1
		}
		return 1
	})
	var all []*Tool
	for i := range 4 {
		for _, tl := range bench {
			c := *tl
			if i > 0 {
				c.Server = fmt.Sprintf("%s-%d", tl.Server, i+1)
				c.Name = fmt.Sprintf("%s_%d", tl.Name, i+1)
			}
			all = append(all, &c)
		}
	}
	ctx := context.Background()
	var table strings.Builder
	table.WriteString("\n| tools | everything | selection (≤ 512) | search: 1st request | after 1 search | after 4 | most | fewer than everything | largest answer |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, n := range []int{100, 500, 2000} {
		b := toolBridge(t, all[:n])
		var everything schema.Size
		for _, tl := range b.Tools() {
			everything += tl.Size
		}
		d, err := b.Declare(ctx, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		selection := d.Report.Size
		conv := []*genai.Content{genai.NewContentFromText("Help me with a few things.", genai.RoleUser)}
		opts := &DeclareOptions{Selection: &Selection{Search: &ToolSearch{}}}
		var sizes []schema.Size
		answer := 0 // the largest search answer, JSON bytes
		for _, s := range steps {
			d, err := b.Declare(ctx, conv, opts)
			if err != nil {
				t.Fatal(err)
			}
			sizes = append(sizes, d.Report.Size)
			search := &genai.FunctionCall{Name: d.Report.SearchFunction, Args: map[string]any{"query": s.query}}
			r := d.Execute(ctx, search)
			raw, _ := json.Marshal(r.FunctionResponse().Response)
			answer = max(answer, len(raw))
			conv = append(conv, genai.NewContentFromParts([]*genai.Part{{FunctionCall: search}}, genai.RoleModel),
				genai.NewContentFromParts([]*genai.Part{r.Part()}, genai.RoleUser))
			if d, err = b.Declare(ctx, conv, opts); err != nil {
				t.Fatal(err)
			}
			sizes = append(sizes, d.Report.Size)
			var name string
			for _, f := range d.Report.Found {
				if tl, _ := d.Tool(f); tl != nil && tl.ServerTool == s.want {
					name = f
				}
			}
			if name == "" {
				t.Errorf("%d tools: %q found %v, not %s", n, s.query, d.Report.Found, s.want)
				continue
			}
			call := &genai.FunctionCall{Name: name}
			conv = append(conv, genai.NewContentFromParts([]*genai.Part{{FunctionCall: call}}, genai.RoleModel),
				genai.NewContentFromParts([]*genai.Part{{FunctionResponse: &genai.FunctionResponse{Name: name, Response: map[string]any{"output": "ok"}}}}, genai.RoleUser))
		}
		most := slices.Max(sizes)
		fewer := 1 - float64(most)/float64(everything)
		fmt.Fprintf(&table, "| %d | %d | %d | %d | %d | %d | %d | %.0f%% | %d |\n", n, everything, selection, sizes[0], sizes[1], sizes[len(sizes)-1], most, 100*fewer, answer)
		if n >= 500 && fewer < 0.85 {
			t.Errorf("%d tools: search carries up to %d bytes, %.0f%% fewer than everything's %d; want at least 85%%", n, most, 100*fewer, everything)
		}
	}
	t.Log(table.String())
}

// FuzzFoundTools: whatever a conversation holds where a search answer is
// expected (any JSON, any names, calls in between), reading what was found
// never panics, declares only known tools, each once, at most the bound,
// none of them also evicted, the same way twice; and cutting a description
// gives valid UTF-8 of at most the limit and an ellipsis.
func FuzzFoundTools(f *testing.F) {
	f.Add([]byte(`{"output":{"tools":[{"name":"a"},{"name":"b"},{"name":"c"}]}}`), "b", 2)
	f.Add([]byte(`{"output":{"tools":[{"name":"a"},{"name":"a"},{"name":"zz"}]}}`), "", 1)
	f.Add([]byte(`{"output":"text"}`), "a", 3)
	f.Add([]byte(`{"output":{"tools":"a"}}`), "c", 0)
	f.Add([]byte(`{"error":"x"}`), "a", 5)
	f.Fuzz(func(t *testing.T, raw []byte, call string, bound int) {
		var resp map[string]any
		if json.Unmarshal(raw, &resp) != nil {
			return
		}
		bound = bound % 8
		byName := map[string]*Tool{}
		for _, n := range []string{"a", "b", "c", "d"} {
			byName[n] = &Tool{Name: n, Size: schema.Size(len(n) * 10)}
		}
		answer := &genai.Content{Role: genai.RoleUser, Parts: []*genai.Part{{FunctionResponse: &genai.FunctionResponse{Name: "search_tools", Response: resp}}}}
		conv := []*genai.Content{answer, {Role: genai.RoleModel, Parts: []*genai.Part{nil, {FunctionCall: &genai.FunctionCall{Name: call}}}}, nil, answer}
		found, evicted := foundTools(conv, "search_tools", byName, bound, schema.Size(bound*15))
		if len(found) > max(bound, 0) {
			t.Errorf("found %v, over the bound %d", found, bound)
		}
		seen := map[string]bool{}
		for _, n := range found {
			if byName[n] == nil || seen[n] || slices.Contains(evicted, n) {
				t.Errorf("found %v (evicted %v): %q unknown, twice or evicted", found, evicted, n)
			}
			seen[n] = true
		}
		found2, evicted2 := foundTools(conv, "search_tools", byName, bound, schema.Size(bound*15))
		if !slices.Equal(found, found2) || !slices.Equal(evicted, evicted2) {
			t.Errorf("two readings differ: %v %v, then %v %v", found, evicted, found2, evicted2)
		}
		s := cut(string(raw)+call, 20)
		if !utf8.ValidString(s) && utf8.ValidString(string(raw)+call) || utf8.RuneCountInString(s) > 21 {
			t.Errorf("cut(%q) = %q", string(raw)+call, s)
		}
	})
}
