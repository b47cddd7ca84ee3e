package clienttasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/mcpgenai/bridge/mcpbridge/internal/rpcerr"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type created struct {
	Task struct {
		TaskID string `json:"taskId"`
		Status string `json:"status"`
		TTL    int64  `json:"ttl"`
	} `json:"task"`
}

func start(t *testing.T, s *Store, server, params string, run func(context.Context) (json.RawMessage, error)) created {
	t.Helper()
	raw, err := s.Start(context.Background(), server, json.RawMessage(params), run)
	if err != nil {
		t.Fatalf("Start() = %v", err)
	}
	var c created
	if err := json.Unmarshal(raw, &c); err != nil || c.Task.TaskID == "" || c.Task.Status != "working" {
		t.Fatalf("Start() = %s, %v; want a working task", raw, err)
	}
	return c
}

// coded is a run's error with a JSON-RPC code of its own.
type coded struct{}

func (coded) Error() string { return "user rejected" }
func (coded) RPCCode() int  { return -1 }

// TestStore: the time to live asked for is bounded; a failed run's error
// keeps its code for tasks/result; each server sees its own tasks only,
// and at most MaxPerServer at a time.
func TestStore(t *testing.T) {
	s := New()
	defer s.Close()
	ctx := context.Background()
	huge := start(t, s, "a", `{"task":{"ttl":9223372036854775807}}`, func(context.Context) (json.RawMessage, error) { return json.RawMessage(`{}`), nil })
	if huge.Task.TTL != MaxTTL.Milliseconds() {
		t.Errorf("ttl = %d, want MaxTTL %d", huge.Task.TTL, MaxTTL.Milliseconds())
	}
	none := start(t, s, "a", `{"task":{}}`, func(context.Context) (json.RawMessage, error) { return json.RawMessage(`{}`), nil })
	if none.Task.TTL != DefaultTTL.Milliseconds() {
		t.Errorf("ttl = %d, want DefaultTTL", none.Task.TTL)
	}
	failed := start(t, s, "a", `{"task":{}}`, func(context.Context) (json.RawMessage, error) { return nil, coded{} })
	_, err := s.Handle(ctx, "a", "tasks/result", json.RawMessage(`{"taskId":"`+failed.Task.TaskID+`"}`))
	var rc rpcerr.Coder
	if !errors.As(err, &rc) || rc.RPCCode() != -1 || err.Error() != "user rejected" {
		t.Errorf("tasks/result of a failed task = %v, want the run's error with its code", err)
	}
	if _, err := s.Handle(ctx, "b", "tasks/get", json.RawMessage(`{"taskId":"`+failed.Task.TaskID+`"}`)); err == nil || !strings.Contains(err.Error(), "unknown task") {
		t.Errorf("server b read a's task: %v, want unknown task", err)
	}
	if raw, err := s.Handle(ctx, "b", "tasks/list", nil); err != nil || string(raw) != `{"tasks":[]}` {
		t.Errorf("server b's tasks/list = %s, %v; want none", raw, err)
	}
	for i := 3; i < MaxPerServer; i++ {
		start(t, s, "a", `{"task":{}}`, func(context.Context) (json.RawMessage, error) { return json.RawMessage(`{}`), nil })
	}
	_, err = s.Start(ctx, "a", json.RawMessage(`{"task":{}}`), func(context.Context) (json.RawMessage, error) { return nil, nil })
	var e *rpcerr.Error
	if !errors.As(err, &e) || e.Code != rpcerr.Limited || !strings.Contains(e.Message, fmt.Sprint(MaxPerServer)) {
		t.Errorf("Start() past MaxPerServer = %v, want a -32000 error naming the bound", err)
	}
	start(t, s, "b", `{"task":{}}`, func(context.Context) (json.RawMessage, error) { return json.RawMessage(`{}`), nil })
}

// TestCloseEndsTasks: Close cancels a running task, waits for it, and
// Start fails afterwards.
func TestCloseEndsTasks(t *testing.T) {
	s := New()
	running := make(chan struct{})
	start(t, s, "a", `{"task":{}}`, func(ctx context.Context) (json.RawMessage, error) {
		close(running)
		<-ctx.Done()
		return nil, ctx.Err()
	})
	<-running
	s.Close()
	if _, err := s.Start(context.Background(), "a", nil, func(context.Context) (json.RawMessage, error) { return nil, nil }); err == nil {
		t.Error("Start() after Close = nil error")
	}
}
