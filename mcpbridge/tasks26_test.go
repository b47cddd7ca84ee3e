package mcpbridge

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgenai/bridge/mcpbridge/elicit"
	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
)

// TestTasks26: through the public API, on 2026-07-28 (the tasks
// extension), a call the server turns into a task returns its result
// although it outlives Timeout (the tool declares no task support: the
// server alone decides); a task that needs input asks the user once
// through ClientFeatures.Elicit and gets the roots; a task that never ends
// fails with ErrTimeout at MaxCallTime; a lost task is ErrTransport and a
// failed one ErrToolError, even past Timeout; over stdio and streamable
// HTTP.
func TestTasks26(t *testing.T) {
	for _, tr := range []Transport{TransportStdio, TransportHTTP} {
		t.Run(string(tr), func(t *testing.T) {
			srv := stdioServer("t26", "-tasks26")
			if tr == TransportHTTP {
				srv = ServerConfig{Name: "t26", HTTPURL: testserver.ServeTasks26HTTP(t, testserver.NewTasks26())}
			}
			srv.Trust = true
			srv.Timeout, srv.MaxCallTime = time.Second, 2500*time.Millisecond
			var mu sync.Mutex
			var asked []elicit.Request
			b := newBridge(t, &Options{Client: &ClientFeatures{
				Elicit: func(_ context.Context, e elicit.Request) (elicit.Response, error) {
					mu.Lock()
					defer mu.Unlock()
					asked = append(asked, e)
					return elicit.Response{Action: elicit.Accept, Content: map[string]any{"name": "Ada"}}, nil
				},
				Roots: []Root{{URI: "file:///work"}},
			}}, srv)
			discover(t, b)

			r := execOne(t, b, "work", map[string]any{"ms": 1500})
			if r.Err != nil || !strings.Contains(r.ReturnDisplay, "worked 1500 ms") {
				t.Errorf("work (1.5 s, timeout 1 s) = %q, %v; want its result", r.ReturnDisplay, r.Err)
			}
			r = execOne(t, b, "ask", nil)
			if r.Err != nil || !strings.Contains(r.ReturnDisplay, "hello Ada; roots file:///work") {
				t.Errorf("ask = %q, %v; want the greeting", r.ReturnDisplay, r.Err)
			}
			mu.Lock()
			if len(asked) != 1 || asked[0].Message != "your name?" || asked[0].Server != "t26" {
				t.Errorf("asked %+v, want the server's one question", asked)
			}
			mu.Unlock()
			r = execOne(t, b, "endless", nil)
			if !errors.Is(r.Err, ErrTimeout) || !strings.Contains(r.Err.Error(), "2.5s") {
				t.Errorf("endless = %v, want ErrTimeout naming MaxCallTime", r.Err)
			}
			r = execOne(t, b, "lost", nil)
			if !errors.Is(r.Err, ErrTransport) || !strings.Contains(r.Err.Error(), "lost the task") {
				t.Errorf("lost = %v, want ErrTransport saying the task was lost", r.Err)
			}
			// A task that fails after the tool's Timeout failed; it did
			// not time out.
			r = execOne(t, b, "fail", map[string]any{"ms": 1500})
			if !errors.Is(r.Err, ErrToolError) || !strings.Contains(r.Err.Error(), "the disk is full") {
				t.Errorf("fail (after 1.5 s, timeout 1 s) = %v, want ErrToolError with the server's error", r.Err)
			}
			// A call that is no task is still bounded by Timeout alone.
			r = execOne(t, b, "sync", nil)
			if r.Err != nil || !strings.Contains(r.ReturnDisplay, "no task") {
				t.Errorf("sync = %q, %v; want its result", r.ReturnDisplay, r.Err)
			}
		})
	}
}
