package agent

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/confirm"
	"github.com/mcpgenai/bridge/geminitest"
	"github.com/mcpgenai/bridge/mcpbridge"
	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
)

// fr builds the function response the fake should receive.
func fr(id, name string, response map[string]any, parts ...*genai.FunctionResponsePart) *genai.FunctionResponse {
	return &genai.FunctionResponse{ID: id, Name: name, Response: response, Parts: parts}
}

func output(v any) map[string]any     { return map[string]any{"output": v} }
func errorOf(s string) map[string]any { return map[string]any{"error": s} }

// outputOf returns the output text of the i-th function response of req.
func outputOf(req *geminitest.Request, i int) string {
	rs := req.FunctionResponses()
	if i >= len(rs) {
		return ""
	}
	s, _ := rs[i].Response["output"].(string)
	return s
}

// prefixed marks an expected error text that only has to start the actual
// one (the rest is an underlying error worded by the transport).
const prefixed = " …"

// sentResponses returns the function responses of every request after the
// first (what the bridge sent back), with errors cut where want marks them
// as prefixes.
func sentResponses(reqs []*geminitest.Request, want [][]*genai.FunctionResponse) [][]*genai.FunctionResponse {
	var got [][]*genai.FunctionResponse
	for i, req := range reqs[1:] {
		rs := req.FunctionResponses()
		for j, r := range rs {
			if i >= len(want) || j >= len(want[i]) {
				continue
			}
			w, _ := want[i][j].Response["error"].(string)
			g, _ := r.Response["error"].(string)
			if p := strings.TrimSuffix(w, prefixed); p != w && strings.HasPrefix(g, p) {
				r.Response = errorOf(w)
			}
		}
		got = append(got, rs)
	}
	return got
}

type e2eCase struct {
	name    string
	servers []mcpbridge.ServerConfig
	policy  *confirm.Policy
	opts    *geminitest.Options
	// script returns the fake model's turns; b is the discovered Bridge.
	script func(t *testing.T, b *mcpbridge.Bridge) []geminitest.Turn
	// want are the function responses of the second, third ... request.
	want     [][]*genai.FunctionResponse
	wantText string // the final answer
}

// runE2E runs tc: discovery, Run against the fake, and the checks.
func runE2E(t *testing.T, tc e2eCase) {
	t.Helper()
	b := discovered(t, &mcpbridge.Options{Policy: tc.policy, ReconnectInterval: -1}, tc.servers...)
	srv := geminitest.New(t, tc.opts, tc.script(t, b)...)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	history := []*genai.Content{genai.NewContentFromText("Do the task.", genai.RoleUser)}
	config := &genai.GenerateContentConfig{Temperature: genai.Ptr[float32](0)}
	var shown []string
	res, err := newAgent(t, b, &Options{
		OnResult: func(r *mcpbridge.CallResult) { shown = append(shown, r.ReturnDisplay) }, // one at a time
	}).Run(ctx, srv.Client(ctx).Models, e2eModel, history, config)
	if err != nil {
		for _, r := range srv.Requests() {
			if r.Rejection != "" {
				t.Logf("rejected request: %s", r.Rejection)
			}
		}
		t.Fatalf("Run() = %v, want nil", err)
	}
	if got := res.Response.Text(); got != tc.wantText {
		t.Errorf("Run() final text = %q, want %q", got, tc.wantText)
	}
	reqs := srv.Requests()
	if len(reqs) != len(tc.want)+1 || res.Turns != len(reqs) {
		t.Fatalf("Run() made %d requests (Turns %d), want %d", len(reqs), res.Turns, len(tc.want)+1)
	}
	if diff := cmp.Diff(tc.want, sentResponses(reqs, tc.want)); diff != "" {
		t.Errorf("function responses sent to the model mismatch (-want +got):\n%s", diff)
	}
	// History: the prompt, a model and a user turn per call turn, the answer.
	if n := len(res.History); n != 1+2*len(tc.want)+1 {
		t.Errorf("Run() history has %d contents, want %d", n, 1+2*len(tc.want)+1)
	}
	calls := 0
	for _, w := range tc.want {
		calls += len(w)
	}
	if len(res.Results) != calls || len(shown) != calls {
		t.Errorf("Run() results = %d, OnResult calls = %d, want %d", len(res.Results), len(shown), calls)
	}
	if len(history) != 1 || config.Tools != nil {
		t.Errorf("Run() modified its inputs: history %d contents, config.Tools %v", len(history), config.Tools)
	}
}

func TestRunEndToEnd(t *testing.T) {
	// A call timeout short enough for the test, long enough for an
	// in-process server to connect and list its tools within it on a
	// loaded machine.
	slow := inProcess(t, "slow", testserver.Options{})
	slow.IncludeTools, slow.Timeout = []string{"sleep"}, 2*time.Second
	guarded := mcptestWith("guarded")
	guarded.IncludeTools = []string{"echo"}
	main := mcptestExec("main")
	main.ExcludeTools = []string{"sleep", "echo"}

	tests := []e2eCase{{
		name:    "two steps, the second using the first's output",
		servers: []mcpbridge.ServerConfig{mcptestExec("main")},
		opts:    &geminitest.Options{ThoughtSignatures: true},
		script: func(t *testing.T, _ *mcpbridge.Bridge) []geminitest.Turn {
			return []geminitest.Turn{
				geminitest.Calls(geminitest.Call{Name: "lookup", Args: map[string]any{"name": "alice"}}),
				func(req *geminitest.Request) geminitest.Response {
					var found struct{ ID string }
					_ = json.Unmarshal([]byte(outputOf(req, 0)), &found)
					return geminitest.Response{Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{Name: "profile", Args: map[string]any{"id": found.ID}}}}}
				},
				func(req *geminitest.Request) geminitest.Response {
					return geminitest.Response{Parts: []*genai.Part{{Text: "Found the " + outputOf(req, 0) + "."}}}
				},
			}
		},
		want: [][]*genai.FunctionResponse{
			{fr("call-1", "lookup", output(`{"id":"u-5"}`))},
			{fr("call-2", "profile", output("profile of u-5"))},
		},
		wantText: "Found the profile of u-5.",
	}, {
		name:    "parallel calls come back in order with their ids",
		servers: []mcpbridge.ServerConfig{mcptestExec("main")},
		script: func(t *testing.T, _ *mcpbridge.Bridge) []geminitest.Turn {
			return []geminitest.Turn{
				geminitest.Calls(
					geminitest.Call{ID: "z", Name: "sleep", Args: map[string]any{"ms": 200}},
					geminitest.Call{ID: "y", Name: "lookup", Args: map[string]any{"name": "bo"}},
					geminitest.Call{ID: "x", Name: "echo", Args: map[string]any{"text": "hi"}},
				),
				geminitest.Text("done"),
			}
		},
		want: [][]*genai.FunctionResponse{{
			fr("z", "sleep", output("slept")),
			fr("y", "lookup", output(`{"id":"u-2"}`)),
			fr("x", "echo", output(`{"text":"hi"}`)),
		}},
		wantText: "done",
	}, {
		name:    "numeric enum reaches the server as a number",
		servers: []mcpbridge.ServerConfig{mcptestExec("main")},
		script: func(t *testing.T, _ *mcpbridge.Bridge) []geminitest.Turn {
			return []geminitest.Turn{
				func(req *geminitest.Request) geminitest.Response {
					size := req.Declaration("pick").Parameters.Properties["size"]
					if size.Type != "STRING" || !cmp.Equal(size.Enum, []string{"1", "2", "3"}) {
						t.Errorf("declared size = %s %v, want STRING [1 2 3]", size.Type, size.Enum)
					}
					return geminitest.Response{Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{Name: "pick", Args: map[string]any{"size": "2"}}}}}
				},
				geminitest.Text("picked"),
			}
		},
		want:     [][]*genai.FunctionResponse{{fr("call-1", "pick", output("size=2 (float64)"))}},
		wantText: "picked",
	}, {
		name:    "an image reaches FunctionResponse.Parts",
		servers: []mcpbridge.ServerConfig{mcptestExec("main")},
		script: func(t *testing.T, _ *mcpbridge.Bridge) []geminitest.Turn {
			return []geminitest.Turn{geminitest.Calls(geminitest.Call{Name: "image"}), geminitest.Text("nice")}
		},
		want: [][]*genai.FunctionResponse{{fr("call-1", "image", output("tiny image"),
			&genai.FunctionResponsePart{InlineData: &genai.FunctionResponseBlob{MIMEType: "image/png", Data: testserver.Image}})}},
		wantText: "nice",
	}, {
		name:    "isError",
		servers: []mcpbridge.ServerConfig{mcptestExec("main")},
		script: func(t *testing.T, _ *mcpbridge.Bridge) []geminitest.Turn {
			return []geminitest.Turn{
				geminitest.Calls(geminitest.Call{Name: "fail", Args: map[string]any{"reason": "disk full"}}),
				geminitest.Text("it failed"),
			}
		},
		want:     [][]*genai.FunctionResponse{{fr("call-1", "fail", errorOf("failed: disk full"))}},
		wantText: "it failed",
	}, {
		name:    "invalid arguments corrected on the next turn",
		servers: []mcpbridge.ServerConfig{mcptestExec("main")},
		script: func(t *testing.T, _ *mcpbridge.Bridge) []geminitest.Turn {
			return []geminitest.Turn{
				geminitest.Calls(geminitest.Call{Name: "profile", Args: map[string]any{"id": "alice"}}),
				func(req *geminitest.Request) geminitest.Response {
					msg, _ := req.FunctionResponses()[0].Response["error"].(string)
					if !strings.Contains(msg, "pattern") {
						return geminitest.Text("no hint")(req)
					}
					return geminitest.Response{Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{Name: "profile", Args: map[string]any{"id": "u-1"}}}}}
				},
				geminitest.Text("fixed"),
			}
		},
		want: [][]*genai.FunctionResponse{
			{fr("call-1", "profile", errorOf(`invalid arguments for function "profile": at '/id': 'alice' does not match pattern '^u-[0-9]+$'`))},
			{fr("call-2", "profile", output("profile of u-1"))},
		},
		wantText: "fixed",
	}, {
		name:    "denied call",
		servers: []mcpbridge.ServerConfig{main, guarded},
		policy: &confirm.Policy{Confirmer: confirm.ConfirmerFunc(func(context.Context, confirm.Request) (confirm.Answer, error) {
			return confirm.Cancel, nil
		})},
		script: func(t *testing.T, _ *mcpbridge.Bridge) []geminitest.Turn {
			return []geminitest.Turn{
				geminitest.Calls(geminitest.Call{Name: "echo", Args: map[string]any{"text": "rm -rf"}}, geminitest.Call{Name: "lookup", Args: map[string]any{"name": "x"}}),
				geminitest.Text("ok, not doing that"),
			}
		},
		want: [][]*genai.FunctionResponse{{
			fr("call-1", "echo", errorOf(`function "echo" was not run: cancelled by the user`)),
			fr("call-2", "lookup", output(`{"id":"u-1"}`)),
		}},
		wantText: "ok, not doing that",
	}, {
		name:    "timeout",
		servers: []mcpbridge.ServerConfig{main, slow},
		script: func(t *testing.T, _ *mcpbridge.Bridge) []geminitest.Turn {
			return []geminitest.Turn{
				geminitest.Calls(geminitest.Call{Name: "sleep", Args: map[string]any{"ms": 5000}}),
				geminitest.Text("too slow"),
			}
		},
		want: [][]*genai.FunctionResponse{{
			fr("call-1", "sleep", errorOf(`function "sleep" timed out: server "slow" did not answer within 2s:`+prefixed)),
		}},
		wantText: "too slow",
	}, {
		name:    "crash mid-call, then the next call reconnects",
		servers: []mcpbridge.ServerConfig{mcptestExec("main")},
		script: func(t *testing.T, b *mcpbridge.Bridge) []geminitest.Turn {
			events, cancel := b.Subscribe()
			t.Cleanup(cancel)
			return []geminitest.Turn{
				geminitest.Calls(geminitest.Call{Name: "crash"}),
				func(req *geminitest.Request) geminitest.Response {
					// The model takes its time; meanwhile the bridge sees the death.
					timeout := time.After(10 * time.Second)
					for seen := false; !seen; {
						select {
						case e := <-events:
							seen = e.Kind == mcpbridge.EventServerState && e.State == mcpbridge.Disconnected
						case <-timeout:
							t.Error("main was not DISCONNECTED within 10 s")
							seen = true
						}
					}
					return geminitest.Response{Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{Name: "echo", Args: map[string]any{"text": "again"}}}}}
				},
				geminitest.Text("recovered"),
			}
		},
		want: [][]*genai.FunctionResponse{
			{fr("call-1", "crash", errorOf(`function "crash": call failed: mcp server "main": tools/call:`+prefixed))},
			{fr("call-2", "echo", output(`{"text":"again"}`))},
		},
		wantText: "recovered",
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { runE2E(t, tc) })
	}
}

func TestRunEndToEndServerEverything(t *testing.T) {
	everything := mcpbridge.ServerConfig{Name: "everything", Command: testserver.NPMBin(t, filepath.Join("..", "testdata", "npm"), "mcp-server-everything"), Args: []string{"stdio"},
		Timeout: 30 * time.Second, Trust: true, IncludeTools: []string{"echo", "get-sum", "get-tiny-image"}}
	// The image server-everything returns, read from its source.
	src, err := os.ReadFile(filepath.Join(filepath.Dir(everything.Command), "..", "@modelcontextprotocol",
		"server-everything", "dist", "tools", "get-tiny-image.js"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`MCP_TINY_IMAGE = "([^"]+)"`).FindSubmatch(src)
	if m == nil {
		t.Fatal("MCP_TINY_IMAGE not found in get-tiny-image.js")
	}
	image, err := base64.StdEncoding.DecodeString(string(m[1]))
	if err != nil {
		t.Fatal(err)
	}
	tests := []e2eCase{{
		name:    "two steps",
		servers: []mcpbridge.ServerConfig{everything},
		script: func(t *testing.T, _ *mcpbridge.Bridge) []geminitest.Turn {
			return []geminitest.Turn{
				geminitest.Calls(geminitest.Call{Name: "get-sum", Args: map[string]any{"a": 2, "b": 3}}),
				func(req *geminitest.Request) geminitest.Response {
					return geminitest.Response{Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{Name: "echo", Args: map[string]any{"message": outputOf(req, 0)}}}}}
				},
				geminitest.Text("done"),
			}
		},
		want: [][]*genai.FunctionResponse{
			{fr("call-1", "get-sum", output("The sum of 2 and 3 is 5."))},
			{fr("call-2", "echo", output("Echo: The sum of 2 and 3 is 5."))},
		},
		wantText: "done",
	}, {
		name:    "parallel calls and an image",
		servers: []mcpbridge.ServerConfig{everything},
		script: func(t *testing.T, _ *mcpbridge.Bridge) []geminitest.Turn {
			return []geminitest.Turn{
				geminitest.Calls(geminitest.Call{Name: "get-tiny-image"}, geminitest.Call{Name: "get-sum", Args: map[string]any{"a": 1.5, "b": 1}}),
				geminitest.Text("seen"),
			}
		},
		want: [][]*genai.FunctionResponse{{
			fr("call-1", "get-tiny-image", output("Here's the image you requested:\nThe image above is the MCP logo."),
				&genai.FunctionResponsePart{InlineData: &genai.FunctionResponseBlob{MIMEType: "image/png", Data: image}}),
			fr("call-2", "get-sum", output("The sum of 1.5 and 1 is 2.5.")),
		}},
		wantText: "seen",
	}, {
		name:    "invalid arguments corrected",
		servers: []mcpbridge.ServerConfig{everything},
		script: func(t *testing.T, _ *mcpbridge.Bridge) []geminitest.Turn {
			return []geminitest.Turn{
				geminitest.Calls(geminitest.Call{Name: "get-sum", Args: map[string]any{"a": "two", "b": 3}}),
				geminitest.Calls(geminitest.Call{Name: "get-sum", Args: map[string]any{"a": 2, "b": 3}}),
				geminitest.Text("5"),
			}
		},
		want: [][]*genai.FunctionResponse{
			{fr("call-1", "get-sum", errorOf(`invalid arguments for function "get-sum": at '/a': got string, want number`))},
			{fr("call-2", "get-sum", output("The sum of 2 and 3 is 5."))},
		},
		wantText: "5",
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { runE2E(t, tc) })
	}
}
