package mcpconn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpgenai/bridge/mcpbridge/internal/tasks"
	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
)

// tasks26Spec reaches the hand-written 2026-07-28 task server over kind;
// srv is nil over stdio (the server runs in its own process).
func tasks26Spec(t *testing.T, kind Kind) (Spec, *testserver.Tasks26) {
	t.Helper()
	if kind == Stdio {
		return stdioSpec("-tasks26"), nil
	}
	srv := testserver.NewTasks26()
	return Spec{Name: "tasks26", Kind: StreamableHTTP, URL: testserver.ServeTasks26HTTP(t, srv), Timeout: testTimeout}, srv
}

// asker is a Spec.Elicit that answers every form with the name "Ada" and
// counts the questions.
type asker struct {
	mu    sync.Mutex
	asked []string
}

func (a *asker) elicit(_ context.Context, p mcp.ElicitationParams) (mcp.ElicitationResponse, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asked = append(a.asked, p.Message)
	return mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept, Content: map[string]any{"name": "Ada"}}, nil
}

func (a *asker) questions() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.asked...)
}

// TestTasks26: on 2026-07-28 the client declares the tasks extension (the
// server refuses calls that do not), and a call the server turns into a
// task is polled to its end: completed (status messages as progress),
// completed at once, needing input (the form asked once although the
// server lists it again after the answer, the roots given), asking the
// host's model (sampling), created after
// a multi round-trip request, failed, lost, or a result with no task at
// all; a task in answer to resources/read is refused.
func TestTasks26(t *testing.T) {
	for _, kind := range taskTargets {
		t.Run(kind.String(), func(t *testing.T) {
			s, _ := tasks26Spec(t, kind)
			a := &asker{}
			s.Elicit = a.elicit
			s.Roots = func(context.Context) ([]mcp.Root, error) { return []mcp.Root{{URI: "file:///work", Name: "work"}}, nil }
			s.Sample = func(_ context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
				if method != "sampling/createMessage" || !strings.Contains(string(params), "2+2?") {
					return nil, fmt.Errorf("unexpected %s %s", method, params)
				}
				return json.RawMessage(`{"role":"assistant","content":{"type":"text","text":"4"},"model":"m"}`), nil
			}
			c := dialT(t, s)
			if !IsModern(c.ProtocolVersion()) {
				t.Fatalf("protocol %q, want 2026-07-28", c.ProtocolVersion())
			}

			var mu sync.Mutex
			var reports []string
			ctx := WithProgress(t.Context(), func(_, _ float64, msg string) {
				mu.Lock()
				defer mu.Unlock()
				reports = append(reports, msg)
			})
			raw, err := c.CallTool(ctx, "work", map[string]any{"ms": 150})
			if err != nil || !strings.Contains(string(raw), "worked 150 ms") || strings.Contains(string(raw), `"task"`) {
				t.Fatalf("CallTool(work) = %s, %v; want the task's result", raw, err)
			}
			mu.Lock()
			if len(reports) == 0 || !strings.HasPrefix(reports[0], "step ") {
				t.Errorf("status reports %q, want the task's steps", reports)
			}
			mu.Unlock()

			for tool, want := range map[string]string{"inline": "done at once", "sync": "no task"} {
				if raw, err := c.CallTool(t.Context(), tool, nil); err != nil || !strings.Contains(string(raw), want) {
					t.Errorf("CallTool(%s) = %s, %v; want %q", tool, raw, err, want)
				}
			}

			raw, err = c.CallTask(t.Context(), "ask", nil)
			if err != nil || !strings.Contains(string(raw), "hello Ada; roots file:///work") {
				t.Fatalf("CallTask(ask) = %s, %v; want the greeting", raw, err)
			}
			if q := a.questions(); len(q) != 1 || q[0] != "your name?" {
				t.Errorf("questions asked %q, want one, the server's", q)
			}
			raw, err = c.CallTool(t.Context(), "think", nil)
			if err != nil || !strings.Contains(string(raw), "the model said 4") {
				t.Fatalf("CallTool(think) = %s, %v; want the model's answer", raw, err)
			}
			// A multi round-trip request, then a task.
			raw, err = c.CallTool(t.Context(), "gate", nil)
			if err != nil || !strings.Contains(string(raw), "worked 100 ms") {
				t.Fatalf("CallTool(gate) = %s, %v; want the task's result after the question", raw, err)
			}
			if q := a.questions(); len(q) != 2 || q[1] != "go ahead?" {
				t.Errorf("questions asked %q, want the gate's second", q)
			}

			_, err = c.CallTool(t.Context(), "fail", nil)
			if !errors.Is(err, tasks.ErrFailed) || !strings.Contains(err.Error(), "the disk is full") {
				t.Errorf("CallTool(fail) = %v, want ErrFailed with the server's error", err)
			}
			_, err = c.CallTool(t.Context(), "lost", nil)
			if !errors.Is(err, tasks.ErrLost) || !strings.Contains(err.Error(), "unknown task") {
				t.Errorf("CallTool(lost) = %v, want ErrLost with the server's words", err)
			}
			// Only tools/call may become a task.
			if raw, err := c.ReadResource(t.Context(), "file:///x"); err == nil || !strings.Contains(err.Error(), `resultType "task"`) {
				t.Errorf("ReadResource answered with a task = %s, %v; want an invalid answer", raw, err)
			}
		})
	}
}

// TestTasks26Cancel: a task is cancelled (tasks/cancel, seen by the
// server) when the caller gives up, when MaxCallTime passes, and when it
// asks for input the host cannot give; the connection works on.
func TestTasks26Cancel(t *testing.T) {
	for _, kind := range taskTargets {
		t.Run(kind.String(), func(t *testing.T) {
			s, srv := tasks26Spec(t, kind)
			s.MaxCallTime = time.Second
			c := dialT(t, s)
			seen := func(what string) {
				t.Helper()
				if srv == nil {
					return // over stdio the server is another process
				}
				select {
				case <-srv.Cancelled:
				case <-time.After(fast):
					t.Fatalf("%s: the server never saw the task cancelled", what)
				}
			}

			// The caller gives up once the task exists: at its first
			// status message (a fixed delay could end the tools/call
			// itself on a loaded machine, before any task id is known).
			ctx, stop := context.WithCancel(t.Context())
			defer stop()
			ctx = WithProgress(ctx, func(float64, float64, string) { stop() })
			if _, err := c.CallTool(ctx, "endless", nil); !errors.Is(err, context.Canceled) {
				t.Fatalf("CallTool(endless) with the caller giving up = %v, want context.Canceled", err)
			}
			seen("caller gave up")

			_, err := c.CallTool(t.Context(), "endless", nil)
			if !errors.Is(err, tasks.ErrTooLong) || !strings.Contains(err.Error(), "1s") {
				t.Fatalf("CallTool(endless) = %v, want ErrTooLong naming the limit", err)
			}
			seen("MaxCallTime")

			_, err = c.CallTool(t.Context(), "ask", nil)
			if !errors.Is(err, tasks.ErrInputUnsupported) {
				t.Fatalf("CallTool(ask) with no elicitation handler = %v, want ErrInputUnsupported", err)
			}
			seen("input nobody can give")

			if raw, err := c.CallTool(t.Context(), "sync", nil); err != nil || !strings.Contains(string(raw), "no task") {
				t.Errorf("CallTool(sync) after the tasks = %s, %v", raw, err)
			}
		})
	}
}

// TestTasksExtensionOnlyModern: the initialize handshake of 2025-11-25
// does not declare the extension, which that revision does not define;
// other extensions stay.
func TestTasksExtensionOnlyModern(t *testing.T) {
	for _, other := range []bool{false, true} {
		ext := extensionCapabilities()
		if other {
			ext["x.example/other"] = map[string]any{}
		}
		req := transport.JSONRPCRequest{Method: "initialize", Params: struct {
			ProtocolVersion string                 `json:"protocolVersion"`
			Capabilities    mcp.ClientCapabilities `json:"capabilities"`
		}{"2025-11-25", mcp.ClientCapabilities{Extensions: ext, Roots: &struct {
			ListChanged bool `json:"listChanged,omitempty"`
		}{true}}}}
		got, err := json.Marshal(rewriteRequest(t.Context(), req).Params)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(got), TasksExtension) || !strings.Contains(string(got), `"roots":{"listChanged":true}`) ||
			strings.Contains(string(got), "x.example/other") != other || !strings.Contains(string(got), `"protocolVersion":"2025-11-25"`) {
			t.Errorf("initialize params = %s; want the same without the tasks extension", got)
		}
	}
}
