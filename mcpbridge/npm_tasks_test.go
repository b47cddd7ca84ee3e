package mcpbridge

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgenai/bridge/mcpbridge/elicit"
)

// TestNPMEverythingTasks: the reference server's task tool
// (simulate-research-query, which must run as a task and takes four
// seconds) and its long operation with progress, through the public API
// over stdio and streamable HTTP: the task's status messages arrive as
// progress, its question reaches the elicitation handler and its answer
// the report; the long operation outlives the request timeout while it
// reports progress.
func TestNPMEverythingTasks(t *testing.T) {
	everything := npmBin(t, "mcp-server-everything")
	for _, tr := range []Transport{TransportStdio, TransportHTTP} {
		t.Run(string(tr), func(t *testing.T) {
			srv := ServerConfig{Name: "everything", Command: everything, Args: []string{"stdio"}, Trust: true}
			if tr == TransportHTTP {
				srv = ServerConfig{Name: "everything", HTTPURL: startHTTPServer(t, everything, "streamableHttp") + "/mcp", Trust: true}
			}
			// Each request is quick; the calls below take longer.
			srv.Timeout = 3 * time.Second
			var mu sync.Mutex
			var reports []Progress
			var asked []elicit.Request
			b := newBridge(t, &Options{
				OnProgress: func(p Progress) {
					mu.Lock()
					defer mu.Unlock()
					reports = append(reports, p)
				},
				Client: &ClientFeatures{Elicit: func(_ context.Context, e elicit.Request) (elicit.Response, error) {
					mu.Lock()
					defer mu.Unlock()
					asked = append(asked, e)
					return elicit.Response{Action: elicit.Accept, Content: map[string]any{"interpretation": "snake"}}, nil
				}},
			}, srv)
			discover(t, b)

			r := execOne(t, b, "simulate-research-query", map[string]any{"topic": "tides"})
			if r.Err != nil || !strings.Contains(r.ReturnDisplay, "Research Report: tides") {
				t.Fatalf("simulate-research-query = %q, %v; want the report", r.ReturnDisplay, r.Err)
			}
			mu.Lock()
			var msgs []string
			for _, p := range reports {
				msgs = append(msgs, p.Message)
			}
			mu.Unlock()
			// Polling sees the stages the task is in at each poll, so which
			// of them arrive depends on timing; at least one must.
			if len(msgs) == 0 {
				t.Errorf("the task reported no progress; want its stages as progress messages")
			}

			r = execOne(t, b, "simulate-research-query", map[string]any{"topic": "python", "ambiguous": true})
			mu.Lock()
			n := len(asked)
			mu.Unlock()
			if r.Err != nil || n != 1 || !strings.Contains(r.ReturnDisplay, "python (snake)") {
				t.Errorf("ambiguous simulate-research-query = %q, %v after %d questions; want one question and the answer in the report", r.ReturnDisplay, r.Err, n)
			}

			mu.Lock()
			reports = nil
			mu.Unlock()
			r = execOne(t, b, "trigger-long-running-operation", map[string]any{"duration": 6, "steps": 6})
			if r.Err != nil || !strings.Contains(r.ReturnDisplay, "completed") {
				t.Errorf("trigger-long-running-operation (6 s, timeout 3 s, progress every second) = %q, %v; want it completed", r.ReturnDisplay, r.Err)
			}
			mu.Lock()
			if len(reports) != 6 {
				t.Errorf("%d progress reports, want 6", len(reports))
			}
			mu.Unlock()
		})
	}
}
