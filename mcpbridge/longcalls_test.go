package mcpbridge

import (
	"context"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/geminitest"
)

// TestLongCallsDeliverLater: a long call answers "started" at once, the
// run ends, and the result reaches the model in the next run's request.
func TestLongCallsDeliverLater(t *testing.T) {
	b := newBridge(t, nil, mcptestExec("main"))
	discover(t, b)
	ctx := context.Background()
	release, ended := make(chan struct{}), make(chan *CallResult, 1)
	long := &LongCalls{Names: []string{"build"}, OnDone: func(r *CallResult) { ended <- r }}
	defer long.Close()
	build := HostFunction{
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
	opts := &RunOptions{HostFunctions: []HostFunction{build}, LongCalls: long}
	res, err := b.Run(ctx, models, e2eModel, prompt(), nil, opts)
	if err != nil || res.Response.Text() != "I started the build." {
		t.Fatalf("first Run() = %v, want the model to say it started", err)
	}
	if long.Running() != 1 {
		t.Errorf("Running() = %d while the build runs, want 1", long.Running())
	}
	close(release)
	if r := <-ended; r.Err != nil || r.ID != "call-1" {
		t.Fatalf("background result = %+v, want success of call-1", r)
	}
	if long.Pending() != 1 {
		t.Errorf("Pending() = %d, want 1", long.Pending())
	}
	history := append(res.History, genai.NewContentFromText("is it done?", genai.RoleUser))
	res2, err := b.Run(ctx, models, e2eModel, history, nil, opts)
	if err != nil || res2.Response.Text() != "The report is ready." {
		t.Fatalf("second Run() = %v", err)
	}
	if long.Pending() != 0 {
		t.Errorf("Pending() = %d after delivery, want 0", long.Pending())
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

func TestLongCallsClose(t *testing.T) {
	b := newBridge(t, nil, mcptestExec("main"))
	discover(t, b)
	ctx := context.Background()
	started, ended := make(chan struct{}), make(chan *CallResult, 1)
	long := &LongCalls{Names: []string{"wait"}, OnDone: func(r *CallResult) { ended <- r }}
	wait := HostFunction{
		Declaration: &genai.FunctionDeclaration{Name: "wait"},
		Handler: func(ctx context.Context, _ map[string]any) (any, error) {
			close(started)
			<-ctx.Done()
			return nil, context.Cause(ctx)
		},
	}
	srv := geminitest.New(t, nil, geminitest.Calls(geminitest.Call{Name: "wait"}), geminitest.Text("ok"))
	cctx, cancel := context.WithCancel(ctx)
	res, err := b.Run(cctx, srv.Client(ctx).Models, e2eModel, prompt(), nil, &RunOptions{HostFunctions: []HostFunction{wait}, LongCalls: long})
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
	_ = long.Close()
	if r := <-ended; r.Err == nil || !strings.Contains(r.Err.Error(), "closed") {
		t.Errorf("result after Close = %v, want the closed error", r.Err)
	}
	if long.Running() != 0 {
		t.Errorf("Running() = %d after Close", long.Running())
	}
}
