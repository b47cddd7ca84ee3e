package mcpconn

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgenai/bridge/mcpbridge/internal/tasks"
	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
)

// taskTargets are the transports a 2025-11-25 task is tried over.
var taskTargets = []Kind{Stdio, StreamableHTTP}

// taskSpec reaches a legacy test server with the task tools over kind.
func taskSpec(t *testing.T, kind Kind, tk testserver.Tasks) Spec {
	t.Helper()
	if kind == Stdio {
		args := []string{"-tasks", "-era=legacy"}
		if tk.Lose {
			args = append(args, "-lose-tasks")
		}
		return stdioSpec(args...)
	}
	if tk.Done == nil {
		tk.Done = t.Context().Done() // no task of the test outlives it
	}
	return httpServer(t, kind, testserver.Options{Era: testserver.EraLegacy, Tasks: tk}).spec
}

// TestTask: a tool that must run as a task is called as one, polled to its
// end and its result returned; a tool that may is called as one too; the
// tools list says which.
func TestTask(t *testing.T) {
	for _, kind := range taskTargets {
		t.Run(kind.String(), func(t *testing.T) {
			c := dialT(t, taskSpec(t, kind, testserver.Tasks{On: true}))
			tools, err := c.ListTools(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			support := map[string]string{}
			for _, tl := range tools {
				support[tl.Name] = tl.TaskSupport
			}
			for name, want := range map[string]string{"slow_task": "required", "maybe_task": "optional", "echo": ""} {
				if support[name] != want {
					t.Errorf("TaskSupport of %s = %q, want %q", name, support[name], want)
				}
			}
			raw, err := c.CallTask(t.Context(), "slow_task", map[string]any{"ms": 200})
			if err != nil || !strings.Contains(string(raw), "done after 200") {
				t.Fatalf("CallTask(slow_task) = %s, %v; want the task's result", raw, err)
			}
			raw, err = c.CallTask(t.Context(), "maybe_task", nil)
			if err != nil || !strings.Contains(string(raw), `"ran"`) {
				t.Fatalf("CallTask(maybe_task) = %s, %v; want its result", raw, err)
			}
			// Without asking for a task, a required one is refused.
			if raw, err := c.CallTool(t.Context(), "slow_task", nil); err == nil && !strings.Contains(string(raw), "isError") {
				t.Errorf("CallTool(slow_task) = %s, nil; want a refusal", raw)
			}
		})
	}
}

// TestTaskFaults: a task that never ends is cancelled at MaxCallTime or
// when the caller gives up, and the server sees the cancellation; a server
// that loses the task id gives ErrLost. Nothing keeps running (goleak).
func TestTaskFaults(t *testing.T) {
	for _, kind := range taskTargets {
		t.Run(kind.String()+"/endless", func(t *testing.T) {
			cancelled := make(chan struct{}, 4)
			s := taskSpec(t, kind, testserver.Tasks{On: true, OnCancelled: func() { cancelled <- struct{}{} }, Done: t.Context().Done()})
			s.MaxCallTime = 1500 * time.Millisecond
			c := dialT(t, s)
			raw, err := c.CallTask(t.Context(), "endless_task", nil)
			if !errors.Is(err, tasks.ErrTooLong) {
				t.Fatalf("CallTask(endless_task) = %s, %v; want ErrTooLong", raw, err)
			}
			if !strings.Contains(err.Error(), "1.5s") {
				t.Errorf("error %q does not name the limit", err)
			}
			if kind != Stdio {
				waitCancelled(t, cancelled)
			}

			ctx, stop := context.WithCancel(t.Context())
			time.AfterFunc(300*time.Millisecond, stop)
			if _, err := c.CallTask(ctx, "endless_task", nil); !errors.Is(err, context.Canceled) {
				t.Fatalf("CallTask(endless_task) with the caller giving up = %v, want context.Canceled", err)
			}
			if kind != Stdio {
				waitCancelled(t, cancelled)
			}
			// The connection still works.
			if _, err := c.CallTool(t.Context(), "echo", nil); err != nil {
				t.Errorf("CallTool(echo) after the tasks = %v", err)
			}
		})
		if kind != Stdio {
			t.Run(kind.String()+"/ttl0", func(t *testing.T) {
				c := dialT(t, taskSpec(t, kind, testserver.Tasks{On: true, ZeroTTL: true}))
				raw, err := c.CallTask(t.Context(), "slow_task", map[string]any{"ms": 2000})
				if !errors.Is(err, tasks.ErrExpired) && !errors.Is(err, tasks.ErrLost) {
					t.Fatalf("CallTask on a server granting a ttl of 0 = %s, %v; want ErrExpired or ErrLost", raw, err)
				}
				t.Logf("ttl 0: %v", err)
				if _, err := c.CallTool(t.Context(), "echo", nil); err != nil {
					t.Errorf("CallTool(echo) after the task = %v", err)
				}
			})
		}
		t.Run(kind.String()+"/lost", func(t *testing.T) {
			c := dialT(t, taskSpec(t, kind, testserver.Tasks{On: true, Lose: true}))
			raw, err := c.CallTask(t.Context(), "slow_task", map[string]any{"ms": 100})
			if !errors.Is(err, tasks.ErrLost) || !strings.Contains(err.Error(), "task not found") {
				t.Fatalf("CallTask on a server that loses tasks = %s, %v; want ErrLost with the server's words", raw, err)
			}
		})
	}
}

func waitCancelled(t *testing.T, cancelled <-chan struct{}) {
	t.Helper()
	select {
	case <-cancelled:
	case <-time.After(fast):
		t.Fatal("the server never saw the task cancelled")
	}
}

// TestTaskStatus: a task's status message reaches the progress function;
// a call asking for progress still gets the task's result.
func TestTaskStatus(t *testing.T) {
	c := dialT(t, taskSpec(t, StreamableHTTP, testserver.Tasks{On: true}))
	var mu sync.Mutex
	var got []report
	ctx := WithProgress(t.Context(), func(p, total float64, msg string) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, report{p, total, msg})
	})
	raw, err := c.CallTask(ctx, "slow_task", map[string]any{"ms": 100})
	if err != nil || !strings.Contains(string(raw), "done after 100") {
		t.Fatalf("CallTask(slow_task) with progress = %s, %v", raw, err)
	}
	// mcp-go's server sets no status message: nothing to report, and
	// nothing reported in its place.
	mu.Lock()
	defer mu.Unlock()
	for _, r := range got {
		if r.Message == "" {
			t.Errorf("an empty status message was reported: %+v", r)
		}
	}
}

// TestProgressKeepsAlive: a call that reports progress outlives its
// Timeout while progress keeps coming, and MaxCallTime still bounds it;
// the same call without progress times out.
func TestProgressKeepsAlive(t *testing.T) {
	s := stdioSpec("-offers")
	s.Timeout = 2 * time.Second
	s.MaxCallTime = time.Minute
	c := dialT(t, s)
	var mu sync.Mutex
	var steps int
	ctx := WithProgress(t.Context(), func(float64, float64, string) {
		mu.Lock()
		defer mu.Unlock()
		steps++
	})
	args := map[string]any{"steps": 8, "every": 500}
	raw, err := c.CallTool(ctx, "progress", args)
	if err != nil || !strings.Contains(string(raw), "token sent: true") {
		t.Fatalf("CallTool(progress) for 4 s with progress every 0.5 s and a 2 s timeout = %s, %v; want its result", raw, err)
	}
	mu.Lock()
	if steps != 8 {
		t.Errorf("%d progress reports, want 8", steps)
	}
	mu.Unlock()

	if _, err := c.CallTool(t.Context(), "progress", args); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("CallTool(progress) for 4 s without progress and a 2 s timeout = %v, want a timeout", err)
	}

	// A server that goes quiet: the timeout counts from the last report.
	_, err = c.CallTool(WithProgress(t.Context(), func(float64, float64, string) {}), "progress", map[string]any{"steps": 1, "every": 3000})
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "no progress") {
		t.Errorf("CallTool(progress) silent past Timeout = %v, want no progress named", err)
	}

	s.MaxCallTime = 1500 * time.Millisecond
	c = dialT(t, s)
	_, err = c.CallTool(ctx, "progress", args)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "limit of 1.5s") {
		t.Errorf("CallTool(progress) past MaxCallTime = %v, want the limit named", err)
	}
}
