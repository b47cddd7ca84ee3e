package testserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Tasks choose the task tools of a server (2025-11-25 task-augmented
// tools/call); the zero value offers none.
type Tasks struct {
	// On adds the task tools and announces task-augmented tools/call:
	//   - slow_task (taskSupport required): returns "done after <ms>"
	//     after "ms" milliseconds (default 300), whatever happens;
	//   - maybe_task (optional): returns "ran" at once, as a task or not;
	//   - endless_task (required): never ends by itself (see Done).
	On bool
	// Lose makes the server answer every tasks/get with an error, as a
	// server that lost its tasks (a restart) would.
	Lose bool
	// OnCancelled is called when a client cancels a task (tasks/cancel).
	OnCancelled func()
	// OnCreated is called when a tools/call creates a task.
	OnCreated func()
	// ZeroTTL (streamable HTTP and SSE only) sets the ttl every
	// task-augmented tools/call asks for to 0 before the server reads it,
	// so each task is created with no time to live, as a server that
	// grants none would.
	ZeroTTL bool
	// Done ends endless_task's work (nil: the server's process ends it).
	// mcp-go ends the context of a task's work with the tools/call that
	// created it, so the work cannot wait for that.
	Done <-chan struct{}
}

// taskOptions returns the server options o.Tasks needs.
func taskOptions(t Tasks) []server.ServerOption {
	if !t.On {
		return nil
	}
	opts := []server.ServerOption{server.WithTaskCapabilities(true, true, true)}
	if t.OnCancelled != nil || t.OnCreated != nil {
		th := &server.TaskHooks{}
		if t.OnCancelled != nil {
			th.AddOnTaskCancelled(func(context.Context, server.TaskMetrics) { t.OnCancelled() })
		}
		if t.OnCreated != nil {
			th.AddOnTaskCreated(func(context.Context, server.TaskMetrics) { t.OnCreated() })
		}
		opts = append(opts, server.WithTaskHooks(th))
	}
	if t.Lose {
		h := &server.Hooks{}
		h.AddOnRequestInitialization(func(_ context.Context, _ any, message any) error {
			raw, _ := message.(json.RawMessage)
			var m struct {
				Method string `json:"method"`
			}
			if json.Unmarshal(raw, &m) == nil && m.Method == string(mcp.MethodTasksGet) {
				return errors.New("task not found")
			}
			return nil
		})
		opts = append(opts, server.WithHooks(h))
	}
	return opts
}

// addTaskTools adds the tools of Tasks.
func addTaskTools(s *server.MCPServer, t Tasks) {
	s.AddTaskTool(mcp.NewTool("slow_task", mcp.WithDescription("finishes after ms milliseconds, as a task"),
		mcp.WithNumber("ms"), mcp.WithTaskSupport(mcp.TaskSupportRequired)),
		func(_ context.Context, r mcp.CallToolRequest) (*mcp.CreateTaskResult, error) {
			ms := r.GetFloat("ms", 300)
			// Not a bare sleep: with Done, a test that ends first does
			// not leave the task's goroutine running behind it (ctx is
			// no help: mcp-go ends it once the task is created).
			timer := time.NewTimer(time.Duration(ms) * time.Millisecond)
			defer timer.Stop()
			select {
			case <-timer.C:
			case <-t.Done:
				return nil, errors.New("server stopped")
			}
			res := &mcp.CreateTaskResult{}
			res.Content = []mcp.Content{mcp.NewTextContent(fmt.Sprintf("done after %v", ms))}
			return res, nil
		})
	s.AddTool(mcp.NewTool("maybe_task", mcp.WithDescription("returns at once, as a task or not"),
		mcp.WithTaskSupport(mcp.TaskSupportOptional)),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("ran"), nil
		})
	s.AddTaskTool(mcp.NewTool("endless_task", mcp.WithDescription("never ends, as a task"),
		mcp.WithTaskSupport(mcp.TaskSupportRequired)),
		func(context.Context, mcp.CallToolRequest) (*mcp.CreateTaskResult, error) {
			<-t.Done
			return nil, errors.New("server stopped")
		})
}

// zeroTTL is Tasks.ZeroTTL: it rewrites the ttl of a tools/call's task
// parameters to 0 in the request bodies next reads.
func zeroTTL(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			var m map[string]any
			if json.Unmarshal(body, &m) == nil && m["method"] == string(mcp.MethodToolsCall) {
				if p, ok := m["params"].(map[string]any); ok {
					if task, ok := p["task"].(map[string]any); ok {
						task["ttl"] = 0
						if b, err := json.Marshal(m); err == nil {
							body = b
						}
					}
				}
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			r.ContentLength = int64(len(body))
		}
		next.ServeHTTP(w, r)
	})
}
