package agent

import (
	"context"
	"strings"
	"sync"
	"testing"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/geminitest"
	"github.com/mcpgenai/bridge/mcpbridge"
	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
)

// taskBridge is a Bridge with the task tools of an in-process server that
// offers task-augmented calls: slow_task (taskSupport required) and
// maybe_task (optional).
func taskBridge(t *testing.T) *mcpbridge.Bridge {
	t.Helper()
	return discovered(t, nil, inProcess(t, "tasks", testserver.Options{Era: testserver.EraLegacy, Bare: true,
		Tasks: testserver.Tasks{On: true, Done: t.Context().Done()}}))
}

// TestLiveTaskToolNonBlocking: a tool that runs only as an MCP task is
// declared NON_BLOCKING without the host naming it, its result comes
// later with the host's scheduling; an optional task tool stays blocking,
// and a host can keep a task tool blocking.
func TestLiveTaskToolNonBlocking(t *testing.T) {
	b := taskBridge(t)
	ctx := context.Background()
	srv := geminitest.New(t, nil,
		geminitest.Reply(geminitest.Response{Parts: []*genai.Part{
			{Text: "Started it."},
			{FunctionCall: &genai.FunctionCall{Name: "slow_task", Args: map[string]any{"ms": 50}}},
		}}),
		func(req *geminitest.Request) geminitest.Response {
			fr := req.FunctionResponses()
			if len(fr) != 1 || fr[0].Name != "slow_task" || fr[0].Scheduling != genai.FunctionResponseSchedulingInterrupt {
				return geminitest.Response{Parts: []*genai.Part{{Text: "wrong response"}}}
			}
			return geminitest.Response{Parts: []*genai.Part{{Text: "Finished: " + outputOf(req, 0)}}}
		})
	var mu sync.Mutex
	var scheduled []string
	lt, err := newAgent(t, b, &Options{Scheduling: func(r *mcpbridge.CallResult) genai.FunctionResponseScheduling {
		mu.Lock()
		defer mu.Unlock()
		scheduled = append(scheduled, r.Name)
		return genai.FunctionResponseSchedulingInterrupt
	}}).Live(ctx, nil)
	if err != nil {
		t.Fatalf("Live() = %v", err)
	}
	defer lt.Close()
	ls := &lockedSession{s: liveConnect(t, srv, lt)}
	ls.say(t, "run the slow task")
	if first, _ := untilText(t, ctx, lt, ls); first != "Started it." {
		t.Fatalf("first turn = %q", first)
	}
	later, _ := untilText(t, ctx, lt, ls)
	if !strings.HasPrefix(later, "Finished: ") || !strings.Contains(later, "done after 50") {
		t.Errorf("later turn = %q, want the task's result delivered with INTERRUPT", later)
	}
	mu.Lock()
	if len(scheduled) != 1 || scheduled[0] != "slow_task" {
		t.Errorf("Scheduling was asked for %v, want slow_task", scheduled)
	}
	mu.Unlock()
	setup := srv.Requests()[0]
	if d := setup.Declaration("slow_task"); d == nil || d.Behavior != genai.BehaviorNonBlocking {
		t.Errorf("setup declares slow_task as %+v, want NON_BLOCKING", d)
	}
	if d := setup.Declaration("maybe_task"); d == nil || d.Behavior != "" {
		t.Errorf("setup declares maybe_task (optional) as %+v, want blocking", d)
	}
	if tool, ok := b.Tool("slow_task"); !ok || tool.TaskSupport != "required" {
		t.Errorf("Tool(slow_task).TaskSupport = %+v, want required", tool)
	}
	if tool, ok := b.Tool("maybe_task"); !ok || tool.TaskSupport != "optional" {
		t.Errorf("Tool(maybe_task).TaskSupport = %+v, want optional", tool)
	}

	// Opting out.
	kept, err := newAgent(t, b, &Options{Foreground: []string{"slow_task"}}).Live(ctx, nil)
	if err != nil {
		t.Fatalf("Live(Foreground) = %v", err)
	}
	defer kept.Close()
	for _, tool := range kept.Config().Tools {
		for _, d := range tool.FunctionDeclarations {
			if want := map[string]genai.Behavior{"endless_task": genai.BehaviorNonBlocking}[d.Name]; d.Behavior != want {
				t.Errorf("with Foreground slow_task, %s is declared %q, want %q", d.Name, d.Behavior, want)
			}
		}
	}
	for _, opts := range []*Options{
		{Foreground: []string{"nope"}},
		{Foreground: []string{"slow_task"}, Background: []string{"slow_task"}},
	} {
		if _, err := newAgent(t, b, opts).Live(ctx, nil); err == nil {
			t.Errorf("Live(%+v) = nil, want an error", opts)
		}
	}
}

// TestBackgroundTaskTool: in Run, a tool that runs only as an MCP task
// answers "started" without being named and its result reaches a later
// request; an optional task tool, and a task tool in Foreground, are
// waited for.
func TestBackgroundTaskTool(t *testing.T) {
	b := taskBridge(t)
	ctx := context.Background()
	ended := make(chan *mcpbridge.CallResult, 1)
	a := newAgent(t, b, &Options{OnBackgroundDone: func(r *mcpbridge.CallResult) { ended <- r }})
	srv := geminitest.New(t, nil,
		geminitest.Calls(geminitest.Call{Name: "slow_task", Args: map[string]any{"ms": 50}}, geminitest.Call{Name: "maybe_task"}),
		func(req *geminitest.Request) geminitest.Response {
			fr := req.FunctionResponses()
			out, _ := fr[0].Response["output"].(map[string]any)
			if out["status"] != "started" || outputOf(req, 1) != "ran" {
				return geminitest.Response{Parts: []*genai.Part{{Text: "wrong responses"}}}
			}
			return geminitest.Response{Parts: []*genai.Part{{Text: "It runs."}}}
		},
		geminitest.Text("It is done."),
		geminitest.Calls(geminitest.Call{Name: "slow_task", Args: map[string]any{"ms": 10}}),
		func(req *geminitest.Request) geminitest.Response {
			return geminitest.Response{Parts: []*genai.Part{{Text: "waited: " + outputOf(req, 0)}}}
		},
	)
	models := srv.Client(ctx).Models
	res, err := a.Run(ctx, models, e2eModel, prompt(), nil)
	if err != nil || res.Response.Text() != "It runs." {
		t.Fatalf("first Run() = %v, %v", res.Response.Text(), err)
	}
	if r := <-ended; r.Err != nil || r.Name != "slow_task" {
		t.Fatalf("background result = %+v", r)
	}
	history := append(res.History, genai.NewContentFromText("done?", genai.RoleUser))
	res, err = a.Run(ctx, models, e2eModel, history, nil)
	if err != nil || res.Response.Text() != "It is done." {
		t.Fatalf("second Run() = %q, %v", res.Response.Text(), err)
	}
	// The result reached the model once: in the first run's second
	// request when the task ended before it, else in the second run's.
	delivered := 0
	for _, r := range srv.Requests()[1:3] {
		for _, p := range r.LastContent().Parts {
			if strings.HasPrefix(p.Text, "The background call slow_task") && strings.Contains(p.Text, "done after 50") {
				delivered++
			}
		}
	}
	if delivered != 1 || a.Pending() != 0 {
		t.Errorf("the result was delivered %d times (%d pending), want once", delivered, a.Pending())
	}
	fg := newAgent(t, b, &Options{Foreground: []string{"slow_task"}})
	res, err = fg.Run(ctx, models, e2eModel, prompt(), nil)
	if err != nil || res.Response.Text() != "waited: done after 10" {
		t.Errorf("Run() with Foreground = %q, %v; want the task waited for", res.Response.Text(), err)
	}
	for _, r := range srv.Requests() {
		if r.Rejection != "" {
			t.Errorf("the fake refused: %s", r.Rejection)
		}
	}
}
