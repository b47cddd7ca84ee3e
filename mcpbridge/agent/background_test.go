package agent

import (
	"context"
	"errors"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/geminitest"
	"github.com/mcpgenai/bridge/mcpbridge"
)

// TestBackgroundDeliverLater: a background call answers "started" at
// once, the run ends, and the result reaches the model in the next run's
// request.
func TestBackgroundDeliverLater(t *testing.T) {
	b := discovered(t, nil, mcptestExec("main"))
	ctx := context.Background()
	release, ended := make(chan struct{}), make(chan *mcpbridge.CallResult, 1)
	build := mcpbridge.HostFunction{
		Declaration: &genai.FunctionDeclaration{Name: "build", Description: "builds the report"},
		Handler: func(ctx context.Context, _ map[string]any) (any, error) {
			<-release
			return "report ready", nil
		},
	}
	const delivered = `The background call build (id call-1) has finished: {"output":"report ready"}`
	srv := geminitest.New(t, nil,
		geminitest.Calls(geminitest.Call{Name: "build"}),
		func(req *geminitest.Request) geminitest.Response {
			fr := req.FunctionResponses()
			if out, _ := fr[0].Response["output"].(map[string]any); out["status"] != "started" {
				t.Errorf("the long call answered %v, want status started", fr[0].Response)
			}
			return geminitest.Response{Parts: []*genai.Part{{Text: "I started the build."}}}
		},
		func(req *geminitest.Request) geminitest.Response {
			last := req.LastContent()
			if last.Role != genai.RoleUser || len(last.Parts) != 2 || last.Parts[1].Text != delivered {
				t.Errorf("last user turn = %+v, want the question and then %q", last.Parts, delivered)
			}
			return geminitest.Response{Parts: []*genai.Part{{Text: "The report is ready."}}}
		},
	)
	models := srv.Client(ctx).Models
	var results []*mcpbridge.CallResult
	a := newAgent(t, b, &Options{Functions: []mcpbridge.HostFunction{build}, Background: []string{"build"},
		OnBackgroundDone: func(r *mcpbridge.CallResult) { ended <- r },
		OnResult:         func(r *mcpbridge.CallResult) { results = append(results, r) }})
	res, err := a.Run(ctx, models, e2eModel, prompt(), nil)
	if err != nil || res.Response.Text() != "I started the build." {
		t.Fatalf("first Run() = %v, want the model to say it started", err)
	}
	if a.Running() != 1 {
		t.Errorf("Running() = %d while the build runs, want 1", a.Running())
	}
	if len(results) != 1 || results[0].Name != "build" || !strings.Contains(results[0].ReturnDisplay, "started") {
		t.Errorf("OnResult got %v, want the build's started answer", results)
	}
	close(release)
	if r := <-ended; r.Err != nil || r.ID != "call-1" {
		t.Fatalf("background result = %+v, want success of call-1", r)
	}
	if a.Pending() != 1 {
		t.Errorf("Pending() = %d, want 1", a.Pending())
	}
	history := append(res.History, genai.NewContentFromText("is it done?", genai.RoleUser))
	res2, err := a.Run(ctx, models, e2eModel, history, nil)
	if err != nil || res2.Response.Text() != "The report is ready." {
		t.Fatalf("second Run() = %v", err)
	}
	if a.Pending() != 0 {
		t.Errorf("Pending() = %d after delivery, want 0", a.Pending())
	}
	if len(history[len(history)-1].Parts) != 1 {
		t.Error("delivery modified the caller's history")
	}
	for _, r := range srv.Requests() {
		if r.Rejection != "" {
			t.Errorf("the fake refused: %s", r.Rejection)
		}
	}
}

// TestBackgroundClose: a background call outlives its run's context and
// ends at the Agent's Close with ErrClosed; a call started after Close
// fails at once.
func TestBackgroundClose(t *testing.T) {
	b := discovered(t, nil, mcptestExec("main"))
	ctx := context.Background()
	started, ended := make(chan struct{}), make(chan *mcpbridge.CallResult, 1)
	wait := mcpbridge.HostFunction{
		Declaration: &genai.FunctionDeclaration{Name: "wait"},
		Handler: func(ctx context.Context, _ map[string]any) (any, error) {
			close(started)
			<-ctx.Done()
			return nil, context.Cause(ctx)
		},
	}
	srv := geminitest.New(t, nil, geminitest.Calls(geminitest.Call{Name: "wait"}), geminitest.Text("ok"))
	cctx, cancel := context.WithCancel(ctx)
	a := New(b, &Options{Functions: []mcpbridge.HostFunction{wait}, Background: []string{"wait"},
		OnBackgroundDone: func(r *mcpbridge.CallResult) { ended <- r }})
	defer a.Close()
	res, err := a.Run(cctx, srv.Client(ctx).Models, e2eModel, prompt(), nil)
	cancel() // the run's end does not end a background call
	if err != nil || res.Response.Text() != "ok" {
		t.Fatalf("Run() = %v", err)
	}
	<-started
	select {
	case r := <-ended:
		t.Fatalf("the background call ended with its run: %+v", r)
	default:
	}
	_ = a.Close()
	if r := <-ended; r.Err == nil || !errors.Is(r.Err, ErrClosed) {
		t.Errorf("result after Close = %v, want ErrClosed", r.Err)
	}
	if a.Running() != 0 {
		t.Errorf("Running() = %d after Close", a.Running())
	}
	if r := a.bg.start(ctx, &genai.FunctionCall{ID: "late", Name: "wait"}, nil, nil); r.Err == nil ||
		r.Err.Error() != `function "wait": the background calls were closed` || r.ID != "late" {
		t.Errorf("a background call after Close = %v, want it refused at once", r.Err)
	}
}
