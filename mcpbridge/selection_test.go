package mcpbridge

import (
	"context"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/geminitest"
	"github.com/mcpgenai/bridge/mcpbridge/internal/result"
	"github.com/mcpgenai/bridge/mcpbridge/rank"
	"github.com/mcpgenai/bridge/registry"
	"github.com/mcpgenai/bridge/schema"
)

// topics are described tools spread over the servers of the selection
// tests, two per server: realistic neighbours for the one a task needs.
var topics = []string{
	"convert_currency=Converts an amount of money between currencies at today's exchange rates",
	"convert_units=Converts lengths, weights and temperatures between metric and imperial units",
	"get_weather=Current weather and forecast for a city",
	"search_issues=Searches the issue tracker for open and closed issues",
	"create_issue=Opens a new issue in the tracker with a title and body",
	"read_file=Reads a text file from the workspace",
	"write_file=Writes text to a file in the workspace",
	"list_directory=Lists the files of a directory",
	"send_email=Sends an email message to a recipient",
	"search_email=Searches the mailbox for messages",
	"create_event=Adds an event to the calendar",
	"list_events=Lists the calendar's events between two dates",
	"query_database=Runs a read-only SQL query on the analytics database",
	"translate_text=Translates text between languages",
	"stock_quote=Latest stock price for a ticker symbol",
	"crypto_price=Latest price of a cryptocurrency in dollars",
	"geocode=Turns a street address into coordinates",
	"directions=Driving, walking or transit directions between two places",
	"web_search=Searches the web and returns result snippets",
	"fetch_url=Downloads a web page as text",
	"run_tests=Runs the project's unit tests",
	"git_log=Shows the commit history of the repository",
	"git_diff=Shows uncommitted changes in the repository",
	"create_invoice=Creates an invoice for a customer in the billing system",
	"refund_payment=Refunds a customer's payment",
	"list_customers=Lists the customers of the billing system",
	"summarize_pdf=Summarizes a PDF document",
	"ocr_image=Extracts text from an image",
	"resize_image=Resizes an image to the given width and height",
	"play_music=Plays a song on the speakers",
	"set_timer=Starts a countdown timer",
	"smart_lights=Turns the lights of a room on or off",
	"book_flight=Books a flight between two airports",
	"hotel_search=Finds hotels in a city for given dates",
	"tax_calculator=Computes income tax for a salary and country",
	"loan_calculator=Monthly payment of a loan for an amount, rate and term",
	"unit_price=Compares unit prices of grocery products",
	"tip_calculator=Splits a restaurant bill and computes the tip",
	"time_zone=Converts a time between time zones",
	"dictionary=Definition and synonyms of an English word",
}

// manyServers configures n stdio servers with perServer tools each: the
// numbered ones and two described ones from topics.
func manyServers(n, perServer int) []ServerConfig {
	servers := make([]ServerConfig, n)
	for i := range servers {
		name := fmt.Sprintf("s%02d", i)
		c := stdioServer(name, "-name="+name, fmt.Sprintf("-tools=%d", perServer-2),
			"-described="+topics[(2*i)%len(topics)], "-described="+topics[(2*i+1)%len(topics)])
		c.Trust = true
		c.ExcludeTools = defaultToolNames
		servers[i] = c
	}
	return servers
}

// TestSelectsAmongThousands: 2,000 tools of 20 servers, a request of at
// most 128: each request of a host's loop on Declare carries the host's
// function first and the tool the conversation needs, which then runs.
func TestSelectsAmongThousands(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 20 servers")
	}
	b := newBridge(t, nil, manyServers(20, 100)...)
	discover(t, b)
	if n := len(b.Tools()); n != 2000 {
		t.Fatalf("registered %d tools, want 2000", n)
	}
	ctx := context.Background()
	task := []*genai.Content{
		genai.NewContentFromText("Hello!", genai.RoleUser),
		genai.NewContentFromText("Hi, how can I help?", genai.RoleModel),
		genai.NewContentFromText("How many euros do I get for 250 US dollars at today's exchange rate?", genai.RoleUser),
	}

	scores, err := lexicalScores(ctx, task, b.Tools())
	if err != nil {
		t.Fatal(err)
	}
	best := b.Tools()[slices.Index(scores, slices.Max(scores))]
	if best.Name != "convert_currency" {
		t.Errorf("the built-in ranker's best tool = %s, want convert_currency", best.Name)
	}

	host := HostFunction{Declaration: &genai.FunctionDeclaration{Name: "remember", Description: "notes a fact"},
		Handler: func(context.Context, map[string]any) (any, error) { return "noted", nil }}
	srv := geminitest.New(t, nil,
		func(req *geminitest.Request) geminitest.Response {
			names, _ := declNames(req)
			if len(names) != 128 || names[0] != "remember" || !slices.Contains(names, "convert_currency") {
				t.Errorf("request declares %d functions (first %q), want 128 with remember first and convert_currency", len(names), names[0])
			}
			return geminitest.Response{Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{Name: "convert_currency", Args: map[string]any{"query": "250 USD in EUR"}}}}}
		},
		geminitest.Text("About 230 euros."),
	)
	res, err := hostLoop(ctx, b, srv.Client(ctx).Models, task, nil,
		&DeclareOptions{Functions: []HostFunction{host}, Selection: &Selection{Limit: 128}}, false)
	if err != nil {
		t.Fatalf("hostLoop() = %v", err)
	}
	for i, r := range res.Requests {
		if r.Declared > 128 || r.Declared+len(r.Omitted) != 2001 {
			t.Errorf("request %d: %d declared, %d omitted, want at most 128 of 2001", i+1, r.Declared, len(r.Omitted))
		}
	}
	if r := res.Results[0]; r.Err != nil || r.Server != "s00" || result.JoinText(r.LLMContent) != "convert_currency" {
		t.Errorf("convert_currency ran on %q with %v: %q", r.Server, r.Err, result.JoinText(r.LLMContent))
	}
	if reqs := srv.Requests(); len(reqs) != 2 {
		t.Errorf("sent %d requests, want 2", len(reqs))
	}
}

func TestSelectionFilters(t *testing.T) {
	main := mcptestExec("main")
	main.IncludeTools = []string{"lookup", "echo", "profile"}
	other := stdioServer("other", "-name=other", "-described="+topics[2], "-described="+topics[3])
	other.ExcludeTools = defaultToolNames
	b := newBridge(t, nil, main, other)
	discover(t, b)
	ctx := context.Background()
	tests := []struct {
		name string
		sel  *Selection
		want []string
	}{
		{"all", nil, []string{"echo", "get_weather", "lookup", "profile", "search_issues"}},
		{"by server", &Selection{Servers: []string{"other"}}, []string{"get_weather", "search_issues"}},
		{"by name", &Selection{Names: []string{"echo", "get_weather", "nothing"}}, []string{"echo", "get_weather"}},
		{"by predicate", &Selection{Filter: func(t *Tool) bool { return t.Annotations.ReadOnlyHint != nil && *t.Annotations.ReadOnlyHint }}, []string{"echo", "lookup"}},
		{"all criteria", &Selection{Servers: []string{"main"}, Names: []string{"echo", "profile"},
			Filter: func(t *Tool) bool { return strings.HasPrefix(t.Name, "p") }}, []string{"profile"}},
		{"limit ranks", &Selection{Limit: 2}, []string{"get_weather", "search_issues"}},
	}
	weather := []*genai.Content{genai.NewContentFromText("Search the open issues about the weather", genai.RoleUser)}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := b.Declare(ctx, weather, &DeclareOptions{Selection: tc.sel})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, fd := range d.Tools[0].FunctionDeclarations {
				got = append(got, fd.Name)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" || d.Report.Declared != len(tc.want) {
				t.Errorf("declared %d (-want +got):\n%s", d.Report.Declared, diff)
			}
			omitted := slices.Sorted(slices.Values(d.Report.Omitted))
			wantOmitted := []string(nil)
			if tc.name == "limit ranks" {
				wantOmitted = []string{"echo", "lookup", "profile"}
			}
			if diff := cmp.Diff(wantOmitted, omitted); diff != "" {
				t.Errorf("Omitted (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCallsToolNotSent: a registered tool that the request did not carry
// still runs when the model calls it.
func TestCallsToolNotSent(t *testing.T) {
	b := newBridge(t, nil, mcptestExec("main"))
	discover(t, b)
	ctx := context.Background()
	var sent [][]string
	turn := 0
	// The fake API refuses a call of an undeclared function (a real model
	// does not make one), so this model is a plain function: it calls
	// lookup although the request carries only echo.
	gen := generatorFunc(func(_ context.Context, _ string, _ []*genai.Content, cfg *genai.GenerateContentConfig) (*genai.GenerateContentResponse, error) {
		var names []string
		for _, tool := range cfg.Tools {
			for _, d := range tool.FunctionDeclarations {
				names = append(names, d.Name)
			}
		}
		sent = append(sent, names)
		turn++
		part := &genai.Part{Text: "done"}
		if turn == 1 {
			part = &genai.Part{FunctionCall: &genai.FunctionCall{ID: "c1", Name: "lookup", Args: map[string]any{"name": "ann"}}}
		}
		return &genai.GenerateContentResponse{Candidates: []*genai.Candidate{{Content: &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{part}}}}}, nil
	})
	res, err := hostLoop(ctx, b, gen, prompt(), nil, &DeclareOptions{Selection: &Selection{Names: []string{"echo"}}}, false)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([][]string{{"echo"}, {"echo"}}, sent); diff != "" {
		t.Errorf("declared (-want +got):\n%s", diff)
	}
	if r := res.Results[0]; r.Err != nil || result.JoinText(r.LLMContent) != `{"id":"u-3"}` {
		t.Errorf("lookup (not sent) = %v %q, want it run", r.Err, result.JoinText(r.LLMContent))
	}
}

func TestSelectionLimit(t *testing.T) {
	tests := []struct {
		target schema.Target
		sel    *Selection
		want   int
	}{
		{schema.Gemini, nil, 512},
		{schema.JSONSchema, &Selection{}, 512},
		{schema.Gemini, &Selection{Limit: 100}, 100},
		{schema.Gemini, &Selection{Limit: 1000}, 512},
		{schema.Vertex, nil, 128},
		{schema.Vertex, &Selection{Limit: 512}, 128},
		{schema.Vertex, &Selection{Limit: 20}, 20},
	}
	for _, tc := range tests {
		b := newBridge(t, &Options{Target: tc.target})
		if got := b.limit(tc.sel); got != tc.want {
			t.Errorf("limit(%v, %+v) = %d, want %d", tc.target, tc.sel, got, tc.want)
		}
	}
}

// BenchmarkSelection measures what Declare does for each request when the
// tools exceed the limit: choosing 512 of 5,000 tools with the built-in ranker,
// sorting them and copying their declarations. The baseline, run
// alternately in the same loop so that both see the same load, is a
// request of 512 tools (no ranking: the copying alone, which every request
// pays). It reports the medians and ratio = selection / baseline.
func BenchmarkSelection(b *testing.B) {
	conv := []*genai.Content{
		genai.NewContentFromText("w12x w400x w77x please look at w2999x", genai.RoleUser),
		genai.NewContentFromText("Sure: w5x w6x w7x w8x", genai.RoleModel),
		genai.NewContentFromText("now w1500x w1501x with w33x and w2000x", genai.RoleUser),
	}
	bridgeOf := func(n int) *Bridge {
		br, err := New(&Config{}, &Options{Logger: quiet()})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = br.Close() })
		tools := syntheticTools(n)
		slices.SortFunc(tools, func(x, y *Tool) int { return strings.Compare(x.Name, y.Name) })
		br.sorted = tools
		return br
	}
	base, sel := bridgeOf(schema.Gemini.MaxDeclarations()), bridgeOf(5000)
	h, _ := newHostSet(nil, nil, nil)
	ctx := context.Background()
	build := func(br *Bridge) time.Duration {
		start := time.Now()
		req, err := br.declare(ctx, conv, nil, h, nil, true)
		if err != nil || req.Report.Declared != schema.Gemini.MaxDeclarations() {
			b.Fatalf("declare() = %v", err)
		}
		return time.Since(start)
	}
	build(base)
	build(sel)
	var tb, ts []time.Duration
	for b.Loop() {
		tb, ts = append(tb, build(base)), append(ts, build(sel))
	}
	mb, ms := median(tb), median(ts)
	b.ReportMetric(float64(mb)/1e6, "ms-baseline")
	b.ReportMetric(float64(ms)/1e6, "ms-5000")
	b.ReportMetric(float64(ms)/float64(mb), "ratio")
}

// TestVertexLimit: for Vertex AI a request carries at most 128 of 200
// tools, which the API's checks accept.
func TestVertexLimit(t *testing.T) {
	many := stdioServer("many", "-tools=200")
	many.ExcludeTools = defaultToolNames
	b := newBridge(t, &Options{Target: schema.Vertex}, many)
	discover(t, b)
	ctx := context.Background()
	if d, err := b.Declare(ctx, nil, nil); err != nil || d.Report.Declared != 128 || len(d.Report.Omitted) != 72 {
		t.Errorf("Declare(Vertex, 200 tools) = %v, want 128 declared and 72 omitted", err)
	}
	srv := geminitest.New(t, nil, geminitest.Text("ok"))
	models := srv.Client(ctx).Models
	var sent []*genai.Tool
	gen := generatorFunc(func(ctx context.Context, model string, contents []*genai.Content, cfg *genai.GenerateContentConfig) (*genai.GenerateContentResponse, error) {
		sent = cfg.Tools
		return models.GenerateContent(ctx, model, contents, cfg)
	})
	res, err := hostLoop(ctx, b, gen, prompt(), nil, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	names, _ := declNames(srv.Requests()[0])
	if len(names) != 128 || res.Requests[0].Declared != 128 || len(res.Requests[0].Omitted) != 72 {
		t.Errorf("hostLoop(Vertex, 200 tools) declared %d (report %d, omitted %d), want 128 and 72", len(names), res.Requests[0].Declared, len(res.Requests[0].Omitted))
	}
	if vs := schema.CheckTools(sent, schema.Vertex); len(vs) > 0 {
		t.Errorf("schema.CheckTools(sent, Vertex) = %v", vs)
	}
}

func TestAliasFor(t *testing.T) {
	tool := &Tool{Name: "lookup", Server: "main", ServerTool: "lookup"}
	long := &Tool{Name: "x", Server: strings.Repeat("s", 40), ServerTool: strings.Repeat("t", 40)}
	tests := []struct {
		name  string
		tool  *Tool
		taken []string
		want  string
	}{
		{"prefixed", tool, []string{"lookup"}, "main__lookup"},
		{"prefixed name taken: hashed", tool, []string{"lookup", "main__lookup"}, "main__lookup_" + hash8("main", "lookup")},
		{"hashed taken too: numbered", tool, []string{"main__lookup", "main__lookup_" + hash8("main", "lookup")}, "main__looku2_" + hash8("main", "lookup")},
		{"long names stay within 63", long, []string{registrySanitized(long)}, registrySanitized(long)[:54] + "_" + hash8(long.Server, long.ServerTool)},
	}
	for _, tc := range tests {
		taken := map[string]bool{}
		for _, n := range tc.taken {
			taken[n] = true
		}
		got := aliasFor(tc.tool, taken)
		if got != tc.want || len(got) > 63 {
			t.Errorf("aliasFor(%s) = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func hash8(server, tool string) string {
	h := fnv.New32a()
	h.Write([]byte(server + "\x00" + tool))
	return fmt.Sprintf("%08x", h.Sum32())
}

func registrySanitized(t *Tool) string { return registry.SanitizeName(t.Server + "__" + t.ServerTool) }

// fixedRanker scores documents by name from a map: a host's own ranker.
type fixedRanker map[string]float64

func (f fixedRanker) Rank(_ context.Context, _ rank.Query, docs []*rank.Document) (*rank.Ranking, error) {
	scores := make([]float64, len(docs))
	for i, d := range docs {
		scores[i] = f[d.Name()]
	}
	return rank.NewRanking(docs, scores), nil
}

// brokenRanker ranks one document too few.
type brokenRanker struct{}

func (brokenRanker) Rank(_ context.Context, _ rank.Query, docs []*rank.Document) (*rank.Ranking, error) {
	return rank.NewRanking(docs[1:], make([]float64, len(docs)-1)), nil
}

// TestReportRanked: a request whose candidates were ranked reports what
// it carries in the ranking's order with scores and places, ties sharing a
// place (a tool of the best match's server gains a share of its score:
// convert_currency ties with search_issues, which is left out), and a tool
// that matched nothing with score 0 (no silent fill);
// the Selection's ranker is a rank.Ranker, and a failing one gives way to
// rank.Lexical.
func TestReportRanked(t *testing.T) {
	other := stdioServer("other", "-name=other", "-described="+topics[2], "-described="+topics[3], "-described="+topics[0])
	other.ExcludeTools = defaultToolNames
	b := newBridge(t, nil, other)
	discover(t, b)
	ctx := context.Background()
	ask := func(text string) []*genai.Content {
		return []*genai.Content{genai.NewContentFromText(text, genai.RoleUser)}
	}
	type entry struct {
		Name  string
		Score float64
		Place int
	}
	tests := []struct {
		name    string
		conv    []*genai.Content
		sel     *Selection
		want    []entry
		omitted []string
	}{
		{"lexical", ask("what is the weather in Oslo"), &Selection{Limit: 2},
			[]entry{{"get_weather", 1.3, 1}, {"convert_currency", 0.3, 2}}, []string{"search_issues"}},
		{"nothing matched", ask("zzz qqq"), &Selection{Limit: 1},
			[]entry{{"convert_currency", 0, 1}}, []string{"get_weather", "search_issues"}},
		{"a host's ranker with ties", ask("anything"), &Selection{Limit: 2, Ranker: fixedRanker{"search_issues": 2, "get_weather": 2, "convert_currency": 1}},
			[]entry{{"get_weather", 2, 1}, {"search_issues", 2, 1}}, []string{"convert_currency"}},
		{"a broken ranker", ask("what is the weather in Oslo"), &Selection{Limit: 2, Ranker: brokenRanker{}},
			[]entry{{"get_weather", 1.3, 1}, {"convert_currency", 0.3, 2}}, []string{"search_issues"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := b.Declare(ctx, tc.conv, &DeclareOptions{Selection: tc.sel})
			if err != nil {
				t.Fatal(err)
			}
			var got []entry
			for _, e := range d.Report.Ranked {
				got = append(got, entry{e.Name, e.Score, e.Place})
			}
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateApprox(0, 1e-6)); diff != "" {
				t.Errorf("Ranked (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.omitted, d.Report.Omitted); diff != "" {
				t.Errorf("Omitted (-want +got):\n%s", diff)
			}
		})
	}
	d, err := b.Declare(ctx, ask("weather"), &DeclareOptions{Selection: &Selection{Limit: 5}})
	if err != nil || d.Report.Ranked != nil {
		t.Errorf("Declare with room for every tool: Ranked = %v, %v; want nil", d.Report.Ranked, err)
	}
}
