package sampling

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/mcpgenai/bridge/mcpbridge/internal/rpcerr"
	api "github.com/mcpgenai/bridge/mcpbridge/sampling"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("go.opencensus.io/stats/view.(*worker).start"))
}

// echoSampler answers with the last message's text; block makes it wait
// for its context instead.
type echoSampler struct {
	block   bool
	started chan struct{}
	mu      sync.Mutex
	seen    []*api.Request
}

func (s *echoSampler) ChooseModel(*api.Request) string { return "echo-1" }

func (s *echoSampler) Sample(ctx context.Context, req *api.Request) (*api.Result, error) {
	s.mu.Lock()
	s.seen = append(s.seen, req)
	s.mu.Unlock()
	if s.block {
		s.started <- struct{}{}
		<-ctx.Done()
		return nil, ctx.Err()
	}
	last := req.Messages[len(req.Messages)-1].Content[0].Text
	return &api.Result{Model: req.Model, StopReason: api.StopEndTurn, Content: []api.Content{{Type: api.TypeText, Text: "echo " + last}}}, nil
}

const hello = `{"messages":[{"role":"user","content":{"type":"text","text":"hello"}}],"maxTokens":100000}`

func TestHandle(t *testing.T) {
	s := &echoSampler{}
	var reviewed []string
	h := NewHandler(Config{Sampler: s, MaxOutputTokens: 10, Review: func(_ context.Context, req *api.Request, res *api.Result) error {
		if res == nil {
			reviewed = append(reviewed, "before "+req.Model)
			req.Messages[0].Content[0].Text = "edited"
			return nil
		}
		reviewed = append(reviewed, "after "+res.Content[0].Text)
		res.Content[0].Text += "!"
		return nil
	}})
	defer h.Close()
	raw, err := h.Handle(context.Background(), "a", "t", "sampling/createMessage", json.RawMessage(hello))
	want := `{"role":"assistant","content":{"type":"text","text":"echo edited!"},"model":"echo-1","stopReason":"endTurn"}`
	if err != nil || string(raw) != want {
		t.Fatalf("Handle() = %s, %v; want %s", raw, err, want)
	}
	if got := strings.Join(reviewed, "; "); got != "before echo-1; after echo edited" {
		t.Errorf("reviews = %q", got)
	}
	if r := s.seen[0]; r.MaxTokens != 10 || r.Server != "a" || r.ServerTool != "t" {
		t.Errorf("the Sampler saw maxTokens %d, server %q, tool %q; want 10, a, t", r.MaxTokens, r.Server, r.ServerTool)
	}
}

func TestHandleErrors(t *testing.T) {
	refuse := func(context.Context, *api.Request, *api.Result) error { return fmt.Errorf("no: %w", api.ErrRefused) }
	fail := func(context.Context, *api.Request, *api.Result) error { return errors.New("broken") }
	for _, tc := range []struct {
		name   string
		cfg    Config
		ctx    context.Context
		params string
		code   int
		msg    string
	}{
		{"refused", Config{Review: refuse}, context.Background(), hello, rpcerr.Rejected, "User rejected sampling request"},
		{"review failed", Config{Review: fail}, context.Background(), hello, rpcerr.Internal, "the client could not review the sampling request"},
		{"too large", Config{MaxRequestBytes: 10}, context.Background(), hello, rpcerr.InvalidParams, "exceeds the client's limit of 10"},
		{"invalid", Config{}, context.Background(), `{"messages":[]}`, rpcerr.InvalidParams, "no messages"},
		{"recursion", Config{}, context.WithValue(context.Background(), activeKey{}, true), hello, rpcerr.Limited, "while answering another"},
		{"unknown task", Config{}, context.Background(), `{"taskId":"x"}`, rpcerr.InvalidParams, `unknown task "x"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.Sampler = &echoSampler{}
			h := NewHandler(tc.cfg)
			defer h.Close()
			method := "sampling/createMessage"
			if tc.name == "unknown task" {
				method = "tasks/get"
			}
			_, err := h.Handle(tc.ctx, "a", "", method, json.RawMessage(tc.params))
			var re interface {
				error
				RPCCode() int
			}
			if !errors.As(err, &re) || re.RPCCode() != tc.code || !strings.Contains(re.Error(), tc.msg) {
				t.Errorf("Handle() = %v, want code %d with %q", err, tc.code, tc.msg)
			}
			// The host's reason is for the host: the server reads a fixed
			// message, and the cause stays in the error chain.
			if strings.Contains(re.Error(), "broken") || strings.Contains(re.Error(), "no:") {
				t.Errorf("Handle() = %q: the review's reason reaches the server", re.Error())
			}
		})
	}
}

// TestTasks: a request with params.task runs as a task its server polls;
// other servers never see it; tasks/cancel ends the model's context.
func TestTasks(t *testing.T) {
	h := NewHandler(Config{Sampler: &echoSampler{}})
	defer h.Close()
	ctx := context.Background()
	taskReq := json.RawMessage(`{"task":{"ttl":60000},"messages":[{"role":"user","content":{"type":"text","text":"hello"}}],"maxTokens":5}`)
	raw, err := h.Handle(ctx, "a", "", "sampling/createMessage", taskReq)
	if err != nil {
		t.Fatalf("Handle(task) = %v", err)
	}
	var created struct {
		Task struct {
			TaskID string `json:"taskId"`
			Status string `json:"status"`
			TTL    int64  `json:"ttl"`
		} `json:"task"`
	}
	if err := json.Unmarshal(raw, &created); err != nil || created.Task.TaskID == "" || created.Task.Status != "working" || created.Task.TTL != 60000 {
		t.Fatalf("Handle(task) = %s, %v; want a working task", raw, err)
	}
	id := json.RawMessage(`{"taskId":"` + created.Task.TaskID + `"}`)
	if _, err := h.Handle(ctx, "b", "", "tasks/result", id); err == nil {
		t.Error("server b read a's task, want unknown task")
	}
	if raw, _ := h.Handle(ctx, "b", "", "tasks/list", nil); string(raw) != `{"tasks":[]}` {
		t.Errorf("server b's tasks/list = %s, want none", raw)
	}
	raw, err = h.Handle(ctx, "a", "", "tasks/result", id)
	if err != nil || !strings.Contains(string(raw), `"text":"echo hello"`) || !strings.Contains(string(raw), created.Task.TaskID) {
		t.Errorf("tasks/result = %s, %v; want the answer with the related task", raw, err)
	}
	raw, err = h.Handle(ctx, "a", "", "tasks/get", id)
	if err != nil || !strings.Contains(string(raw), `"status":"completed"`) {
		t.Errorf("tasks/get = %s, %v; want completed", raw, err)
	}
	if _, err := h.Handle(ctx, "a", "", "tasks/cancel", id); err == nil {
		t.Error("tasks/cancel of a completed task = nil error, want one")
	}

	blocking := &echoSampler{block: true, started: make(chan struct{}, 1)}
	hb := NewHandler(Config{Sampler: blocking})
	raw, err = hb.Handle(ctx, "a", "", "sampling/createMessage", taskReq)
	if err != nil {
		t.Fatalf("Handle(task) = %v", err)
	}
	_ = json.Unmarshal(raw, &created)
	id = json.RawMessage(`{"taskId":"` + created.Task.TaskID + `"}`)
	<-blocking.started
	raw, err = hb.Handle(ctx, "a", "", "tasks/cancel", id)
	if err != nil || !strings.Contains(string(raw), `"status":"cancelled"`) {
		t.Errorf("tasks/cancel = %s, %v; want cancelled", raw, err)
	}
	if _, err := hb.Handle(ctx, "a", "", "tasks/result", id); err == nil || !strings.Contains(err.Error(), "was cancelled") {
		t.Errorf("tasks/result of a cancelled task = %v, want the cancellation", err)
	}
	// Close ends a task still running.
	_, err = hb.Handle(ctx, "a", "", "sampling/createMessage", taskReq)
	if err != nil {
		t.Fatalf("Handle(task) = %v", err)
	}
	<-blocking.started
	hb.Close()
}
