package mcpbridge

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/geminitest"
	"github.com/mcpgenai/bridge/mcpbridge/internal/result"
	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
	"github.com/mcpgenai/bridge/schema"
)

// fixtureServers configures 600 tools of published servers (their names
// and schemas, kept under schema/testdata/servers) on four mcp-go test
// servers: "office" over stdio and "office-eu" over streamable HTTP offer
// @softeria/ms-365-mcp-server's 188 tools each (the second's names are
// prefixed), "assist" the 74 tools of the six other servers, "office-us"
// the first 150 of ms-365's again.
func fixtureServers(t *testing.T) []ServerConfig {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "schema", "testdata", "servers"))
	if err != nil {
		t.Fatal(err)
	}
	read := func(name string) []testserver.FixtureTool {
		tools, err := testserver.ReadFixture(filepath.Join(dir, name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		return tools
	}
	office := read("ms-365-mcp-server")
	var others []testserver.FixtureTool
	for _, n := range []string{"line-bot-mcp-server", "playwright-mcp", "server-everything", "server-filesystem", "server-memory", "server-sequential-thinking"} {
		others = append(others, read(n)...)
	}
	// The test server's own tools are left out ("echo" is server-everything's
	// on "assist").
	own := []string{"add_tool", "crash", "env", "raw", "sleep", "weird"}
	servers := []ServerConfig{
		stdioServer("office", "-name=office", "-bare", "-fixture="+filepath.Join(dir, "ms-365-mcp-server.json")),
		serverFor(t, "office-eu", TransportHTTP, testserver.Options{Bare: true, Fixture: office}),
		serverFor(t, "assist", TransportHTTP, testserver.Options{Bare: true, Fixture: others}),
		serverFor(t, "office-us", TransportHTTP, testserver.Options{Bare: true, Fixture: office[:600-2*len(office)-len(others)]}),
	}
	for i := range servers {
		servers[i].Trust = true
		servers[i].Timeout = 30 * time.Second
		servers[i].ExcludeTools = own
		if servers[i].Name != "assist" {
			servers[i].ExcludeTools = append(slices.Clone(own), "echo")
		}
	}
	return servers
}

// TestPlainLoop600Tools is the first user of the mission: a host with its
// own plain genai loop (GenerateContent in a for loop, no agent package)
// over 600 tools of real servers' schemas. Each request is declared with
// Declare for the conversation so far and stays within the target's
// limit (512, or 128 for Vertex AI) while declaring the tool the
// conversation names; a declaration the API rejects with a 400 is healed
// (Heal, then a fresh Declare) and left out of every later request; the
// model's call runs against its server.
func TestPlainLoop600Tools(t *testing.T) {
	for _, target := range []schema.Target{schema.Gemini, schema.Vertex} {
		t.Run(target.String(), func(t *testing.T) {
			b := newBridge(t, &Options{Target: target}, fixtureServers(t)...)
			discover(t, b)
			if n := len(b.Tools()); n != 600 {
				t.Fatalf("registered %d tools, want 600", n)
			}
			for _, s := range b.Status().Servers {
				if s.State != Connected {
					t.Fatalf("%s = %v (%s), want CONNECTED", s.Name, s.State, s.Error)
				}
			}
			limit := target.MaxDeclarations()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			const wanted = "list-mail-messages" // of office: the conversation asks for it
			history := []*genai.Content{genai.NewContentFromText("List the mail messages in my inbox that mention the invoice.", genai.RoleUser)}

			// The declaration the API will refuse: another mail tool the
			// first request carries.
			first, err := b.Declare(ctx, history, nil)
			if err != nil {
				t.Fatal(err)
			}
			var rejected string
			for _, d := range first.Tools[0].FunctionDeclarations {
				if d.Name != wanted && strings.Contains(d.Name, "mail") {
					rejected = d.Name
					break
				}
			}
			if rejected == "" {
				t.Fatal("the first request declares no other mail tool")
			}
			t.Logf("%d of 600 declared; the API will refuse %s", first.Report.Declared, rejected)
			rule := func(d *genai.FunctionDeclaration) (string, string) {
				if d.Name == rejected {
					return "parameters", "schema produces a constraint that has too many states for serving"
				}
				return "", ""
			}

			var served string
			srv := geminitest.New(t, &geminitest.Options{VertexAI: target == schema.Vertex, DeclarationRules: []geminitest.DeclarationRule{rule}},
				func(req *geminitest.Request) geminitest.Response {
					if req.Declaration(wanted) == nil {
						return geminitest.Text("the request lacks " + wanted)(req)
					}
					return geminitest.Calls(geminitest.Call{Name: wanted, Args: map[string]any{"top": 5, "search": `"invoice"`}})(req)
				},
				func(req *geminitest.Request) geminitest.Response {
					served = outputText(req)
					return geminitest.Text("Two messages mention the invoice.")(req)
				},
			)
			res, err := hostLoop(ctx, b, srv.Client(ctx).Models, history, nil, nil, false)
			if err != nil {
				t.Fatalf("the host's loop = %v", err)
			}
			if got := res.Response.Text(); got != "Two messages mention the invoice." {
				t.Errorf("answer = %q, want the model's after the call", got)
			}

			reqs := srv.Requests()
			if len(reqs) != 3 || reqs[0].Rejection == "" || reqs[1].Rejection != "" || reqs[2].Rejection != "" {
				t.Fatalf("the fake saw %d requests, want the first refused, then two accepted", len(reqs))
			}
			for i, req := range reqs {
				if n := len(req.Declarations()); n > limit || n == 0 {
					t.Errorf("request %d declares %d functions, want 1 to %d", i+1, n, limit)
				}
				if req.Declaration(wanted) == nil {
					t.Errorf("request %d lacks %s, which the conversation names", i+1, wanted)
				}
				if got := req.Declaration(rejected) != nil; got != (i == 0) {
					t.Errorf("request %d declares %s: %v, want only the first, which the API refused", i+1, rejected, got)
				}
			}
			for i, r := range res.Requests { // every report is of a request sent after the drop
				if r.Declared > limit || r.Declared+len(r.Omitted) != 599 {
					t.Errorf("report %d: %d declared, %d omitted; want at most %d of the 599 left", i+1, r.Declared, len(r.Omitted), limit)
				}
			}
			dropped := res.Requests[0].Rejected
			if len(dropped) != 1 || dropped[0].Name != rejected || !strings.Contains(dropped[0].Reason, "too many states") {
				t.Errorf("the first report's Rejected = %+v, want %s", dropped, rejected)
			}

			// The call ran at its server, with the model's arguments.
			if len(res.Results) != 1 {
				t.Fatalf("%d calls ran, want 1", len(res.Results))
			}
			r := res.Results[0]
			var got struct {
				Tool string         `json:"tool"`
				Args map[string]any `json:"args"`
			}
			if err := json.Unmarshal([]byte(result.JoinText(r.LLMContent)), &got); err != nil || r.Err != nil {
				t.Fatalf("the call's result = %q, %v", result.JoinText(r.LLMContent), r.Err)
			}
			if diff := cmp.Diff(map[string]any{"top": 5.0, "search": `"invoice"`}, got.Args); diff != "" ||
				got.Tool != wanted || r.Server != "office" || r.ServerTool != wanted {
				t.Errorf("the server %s ran %s with (-want +got):\n%s", r.Server, got.Tool, diff)
			}
			if !strings.Contains(served, `"tool":"list-mail-messages"`) {
				t.Errorf("the model read %q, want the server's answer", served)
			}
		})
	}
}

// outputText returns the output text of req's first function response.
func outputText(req *geminitest.Request) string {
	rs := req.FunctionResponses()
	if len(rs) == 0 {
		return ""
	}
	s, _ := rs[0].Response["output"].(string)
	return s
}
