package mcpbridge

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
)

// execOne runs one call of the function name through Execute, bounded by a
// minute.
func execOne(t *testing.T, b *Bridge, name string, args map[string]any) *CallResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return b.Execute(ctx, &genai.FunctionCall{Name: name, Args: args})
}

// TestTasks: through the public API, a tool that runs as a task returns
// its result, a task that never ends fails with ErrTimeout at MaxCallTime
// (not at the request timeout), and a server that loses its tasks gives
// ErrTransport saying so; over stdio and streamable HTTP.
func TestTasks(t *testing.T) {
	for _, tr := range []Transport{TransportStdio, TransportHTTP} {
		t.Run(string(tr), func(t *testing.T) {
			srv := stdioServer("tasks", "-tasks", "-era=legacy")
			lost := stdioServer("lost", "-tasks", "-lose-tasks", "-era=legacy")
			if tr == TransportHTTP {
				srv, _ = httpServer(t, "tasks", tr, testserver.Options{Era: testserver.EraLegacy, Tasks: testserver.Tasks{On: true, Done: t.Context().Done()}})
				lost, _ = httpServer(t, "lost", tr, testserver.Options{Era: testserver.EraLegacy, Tasks: testserver.Tasks{On: true, Lose: true}})
			}
			srv.Trust, lost.Trust = true, true
			// Each request of a task is quick; the whole task may take
			// longer than the request timeout.
			srv.Timeout, srv.MaxCallTime = time.Second, 2500*time.Millisecond
			b := newBridge(t, nil, srv, lost)
			discover(t, b)

			r := execOne(t, b, "slow_task", map[string]any{"ms": 1500})
			if r.Err != nil || !strings.Contains(r.ReturnDisplay, "done after 1500") {
				t.Errorf("slow_task (1.5 s, timeout 1 s) = %q, %v; want its result", r.ReturnDisplay, r.Err)
			}
			r = execOne(t, b, "endless_task", nil)
			if !errors.Is(r.Err, ErrTimeout) || !strings.Contains(r.Err.Error(), "2.5s") {
				t.Errorf("endless_task = %v, want ErrTimeout naming MaxCallTime", r.Err)
			}
			r = execOne(t, b, "lost__slow_task", map[string]any{"ms": 100})
			if !errors.Is(r.Err, ErrTransport) || !strings.Contains(r.Err.Error(), "lost the task") {
				t.Errorf("slow_task on a server that loses tasks = %v, want ErrTransport saying the task was lost", r.Err)
			}
		})
	}
}

// TestProgressKeepsCallAlive: through the public API, a call reporting
// progress outlives the request timeout; without a progress callback the
// same call times out. The timeout is 12 reports long, so that a machine
// that stalls the processes for 2.5 s does not fail the first call (a
// report every 0.5 s against 2 s failed a run under a load of 21).
func TestProgressKeepsCallAlive(t *testing.T) {
	srv := stdioServer("p", "-offers")
	srv.Trust, srv.Timeout = true, 3*time.Second
	var mu sync.Mutex
	var reports []Progress
	b := newBridge(t, &Options{OnProgress: func(p Progress) {
		mu.Lock()
		defer mu.Unlock()
		reports = append(reports, p)
	}}, srv)
	discover(t, b)
	args := map[string]any{"steps": 16, "every": 250}
	r := execOne(t, b, "progress", args)
	if r.Err != nil {
		t.Fatalf("progress (4 s, timeout 3 s, a report every 0.25 s) = %v, want its result", r.Err)
	}
	mu.Lock()
	if len(reports) != 16 || reports[15].Message != "step 16" {
		t.Errorf("progress reports = %+v, want 16 ending with step 16", reports)
	}
	mu.Unlock()

	quiet := newBridge(t, nil, srv)
	discover(t, quiet)
	if r := execOne(t, quiet, "progress", args); !errors.Is(r.Err, ErrTimeout) {
		t.Errorf("progress without a progress callback = %v, want ErrTimeout", r.Err)
	}
}
