package agent

import (
	"context"
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
	"github.com/mcpgenai/bridge/mcpbridge"
)

// TestRunServerInstructions: with ServerInstructions the servers'
// instructions follow the host's system instruction in every request (the
// config is not modified); the progress of a call reaches OnProgress, in
// order, and not the Bridge's own callback.
func TestRunServerInstructions(t *testing.T) {
	p := mcptestWith("p", "-offers")
	p.Trust = true
	b := discovered(t, &mcpbridge.Options{OnProgress: func(mcpbridge.Progress) { t.Error("the Bridge's OnProgress called, want the Agent's") }}, p)
	ctx := context.Background()
	var sawSystem []string
	srv := geminitest.New(t, nil,
		func(req *geminitest.Request) geminitest.Response {
			for _, part := range req.Config.SystemInstruction.Parts {
				sawSystem = append(sawSystem, part.Text)
			}
			return geminitest.Response{Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{ID: "p1", Name: "progress", Args: map[string]any{"steps": 3}}}}}
		},
		geminitest.Text("Done."),
	)
	var mu sync.Mutex
	var steps []float64
	a := newAgent(t, b, &Options{ServerInstructions: true, OnProgress: func(p mcpbridge.Progress) {
		mu.Lock()
		defer mu.Unlock()
		if p.Name == "progress" && p.ID == "p1" && p.Total == 3 {
			steps = append(steps, p.Progress)
		}
	}})
	config := &genai.GenerateContentConfig{SystemInstruction: genai.NewContentFromText("Be brief.", genai.RoleUser)}
	res, err := a.Run(ctx, srv.Client(ctx).Models, e2eModel, prompt(), config)
	if err != nil || res.Response.Text() != "Done." {
		t.Fatalf("Run() = %v", err)
	}
	if len(sawSystem) != 2 || sawSystem[0] != "Be brief." || !strings.HasPrefix(sawSystem[1], `The MCP server "p" gave these instructions`) ||
		!strings.Contains(sawSystem[1], "test server p") {
		t.Errorf("system instruction sent = %q, want the host's part, then the server's instructions", sawSystem)
	}
	if len(config.SystemInstruction.Parts) != 1 {
		t.Errorf("Run() modified config's system instruction: %d parts", len(config.SystemInstruction.Parts))
	}
	mu.Lock()
	defer mu.Unlock()
	if diff := cmp.Diff([]float64{1, 2, 3}, steps); diff != "" {
		t.Errorf("progress reports (-want +got):\n%s", diff)
	}
}

func TestWithInstructions(t *testing.T) {
	part := genai.NewPartFromText("servers")
	own := genai.NewContentFromText("Be brief.", genai.RoleUser)
	got := withInstructions(own, part)
	if len(own.Parts) != 1 || got == own {
		t.Errorf("withInstructions modified its input: %d parts", len(own.Parts))
	}
	if n := len(got.Parts); n != 2 || got.Parts[0].Text != "Be brief." || got.Parts[1] != part || got.Role != genai.RoleUser {
		t.Errorf("withInstructions() = %+v, want the host's part then the servers'", got)
	}
	if got := withInstructions(nil, part); got == nil || got.Role != genai.RoleUser || len(got.Parts) != 1 {
		t.Errorf("withInstructions(nil) = %+v, want a user content", got)
	}
	if got := withInstructions(own, nil); got != own {
		t.Errorf("withInstructions() without instructions = %p, want its input %p", got, own)
	}
}

// TestRunHeals: Run sends a request that the API refuses for one Bridge
// tool's declaration again without it, and reports the drop in that
// request's report; the next Run never sends it.
func TestRunHeals(t *testing.T) {
	main := mcptestExec("main")
	main.IncludeTools = []string{"lookup", "echo", "profile"}
	b := discovered(t, nil, main)
	ctx := context.Background()
	srv := geminitest.New(t, &geminitest.Options{DeclarationRules: []geminitest.DeclarationRule{tooComplex("echo")}},
		geminitest.Calls(geminitest.Call{Name: "lookup", Args: map[string]any{"name": "ann"}}),
		geminitest.Text("found"),
		geminitest.Text("again"),
	)
	models := srv.Client(ctx).Models
	var reports []mcpbridge.RequestReport
	a := newAgent(t, b, &Options{OnRequest: func(r mcpbridge.RequestReport) { reports = append(reports, r) }})
	res, err := a.Run(ctx, models, e2eModel, prompt(), nil)
	if err != nil || res.Response.Text() != "found" || res.Turns != 2 {
		t.Fatalf("Run() = %v after %d turns, want \"found\" after 2", err, res.Turns)
	}
	const wantMsg = "* GenerateContentRequest.tools[0].function_declarations[0].parameters: schema produces a constraint that has too many states for serving\n"
	want := []mcpbridge.DroppedTool{{Server: "main", ServerTool: "echo", Name: "echo", Reason: wantMsg}}
	if diff := cmp.Diff(want, res.Requests[0].Rejected); diff != "" || len(res.Requests) != 2 || res.Requests[1].Rejected != nil {
		t.Errorf("Requests = %+v, want the first with echo rejected (-want +got):\n%s", res.Requests, diff)
	}
	if diff := cmp.Diff(res.Requests, reports); diff != "" {
		t.Errorf("OnRequest reports differ from Requests (-want +got):\n%s", diff)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 || reqs[0].Rejection != wantMsg || reqs[1].Declaration("echo") != nil || reqs[1].Declaration("lookup") == nil {
		t.Fatalf("requests = %d, want the first rejected and the retry without echo", len(reqs))
	}
	if _, err := a.Run(ctx, models, e2eModel, prompt(), nil); err != nil {
		t.Fatalf("second Run() = %v", err)
	}
	if reqs := srv.Requests(); len(reqs) != 4 || reqs[3].Declaration("echo") != nil {
		t.Errorf("second Run() sent echo again")
	}
}

// TestRunNotDiscovered: Run on a Bridge that never discovered its servers
// fails before any request.
func TestRunNotDiscovered(t *testing.T) {
	b, err := mcpbridge.New(&mcpbridge.Config{Servers: []mcpbridge.ServerConfig{mcptestExec("main")}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	srv := geminitest.New(t, nil, geminitest.Text("unused"))
	ctx := context.Background()
	res, err := newAgent(t, b, nil).Run(ctx, srv.Client(ctx).Models, e2eModel, prompt(), nil)
	if !errors.Is(err, mcpbridge.ErrNotDiscovered) || res.Turns != 0 || len(srv.Requests()) != 0 {
		t.Errorf("Run() before Discover = %v after %d turns, %d requests; want ErrNotDiscovered and none", err, res.Turns, len(srv.Requests()))
	}
}

// oneAtATime is an OnResult that records the results and fails the test
// when it is called while another call of it runs. Each call stays in for
// a while (the calls of a turn end together), so that an overlap would be
// seen; a loaded machine can only hide one, never make one up.
type oneAtATime struct {
	t       *testing.T
	running atomic.Int32
	mu      sync.Mutex
	names   []string
}

func (o *oneAtATime) onResult(r *mcpbridge.CallResult) {
	if o.running.Add(1) != 1 {
		o.t.Errorf("OnResult(%s) called while another runs", r.Name)
	}
	<-time.After(20 * time.Millisecond) // the window for another call to come in
	o.mu.Lock()
	o.names = append(o.names, r.Name)
	o.mu.Unlock()
	o.running.Add(-1)
}

// TestOnResultOneAtATime: the calls of a turn end concurrently (each
// waits for all of them at its server), but OnResult gets their results
// one at a time, once each, in Run, RunStream and Live.
func TestOnResultOneAtATime(t *testing.T) {
	gather := mcptestWith("g", "-gather")
	gather.Trust = true
	b := discovered(t, nil, gather)
	ctx := context.Background()
	calls := func() []geminitest.Call {
		var out []geminitest.Call
		for range 4 {
			out = append(out, geminitest.Call{Name: "gather", Args: map[string]any{"n": 4}})
		}
		return out
	}
	check := func(t *testing.T, o *oneAtATime) {
		o.mu.Lock()
		defer o.mu.Unlock()
		if !slices.Equal(o.names, []string{"gather", "gather", "gather", "gather"}) {
			t.Errorf("OnResult got %v, want each of the 4 results once", o.names)
		}
	}
	for _, loop := range []string{"Run", "RunStream", "Live"} {
		t.Run(loop, func(t *testing.T) {
			o := &oneAtATime{t: t}
			a := newAgent(t, b, &Options{OnResult: o.onResult})
			srv := geminitest.New(t, nil, geminitest.Calls(calls()...), geminitest.Text("done"))
			switch loop {
			case "Run":
				if _, err := a.Run(ctx, srv.Client(ctx).Models, e2eModel, prompt(), nil); err != nil {
					t.Fatal(err)
				}
			case "RunStream":
				if _, err := collect(t, a.RunStream(ctx, srv.Client(ctx).Models, e2eModel, prompt(), nil)); err != nil {
					t.Fatal(err)
				}
			case "Live":
				lt, err := a.Live(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				ls := &lockedSession{s: liveConnect(t, srv, lt)}
				ls.say(t, "gather")
				if text, _ := untilText(t, ctx, lt, ls); text != "done" {
					t.Errorf("Live answer = %q", text)
				}
				_ = lt.Close()
			}
			check(t, o)
		})
	}
}
