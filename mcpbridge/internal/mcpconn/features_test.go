package mcpconn

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
)

// featureTargets are the transports and eras the client features are tried
// over.
var featureTargets = []struct {
	kind Kind
	era  testserver.Era
}{
	{Stdio, testserver.EraModern},
	{Stdio, testserver.EraLegacy},
	{StreamableHTTP, testserver.EraModern},
	{StreamableHTTP, testserver.EraLegacy},
}

// featureSpec reaches the features test server over kind in era.
func featureSpec(t *testing.T, kind Kind, era testserver.Era) Spec {
	t.Helper()
	if kind == Stdio {
		return stdioSpec("-features", "-era="+era.String())
	}
	return httpServer(t, kind, testserver.Options{Features: true, Era: era}).spec
}

// recorder collects what the connection's callbacks receive.
type recorder struct {
	mu      sync.Mutex
	logs    []string // "level logger data"
	updated []string
	changed int
	signal  chan struct{}
}

func newRecorder() *recorder { return &recorder{signal: make(chan struct{}, 100)} }

func (r *recorder) note(f func()) {
	r.mu.Lock()
	f()
	r.mu.Unlock()
	select {
	case r.signal <- struct{}{}:
	default:
	}
}

// until runs provoke until cond holds (checked under the lock), waiting
// for a callback between tries, and fails after fast. Provoking again
// rather than once: a notification sent within a request may be lost by
// mcp-go's streamable-HTTP server on 2026-07-28, and one sent on the
// listen stream is lost while that stream is being opened again.
func (r *recorder) until(t *testing.T, what string, provoke func(), cond func() bool) {
	t.Helper()
	deadline := time.After(fast)
	for {
		provoke()
		r.mu.Lock()
		ok := cond()
		r.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-r.signal:
		case <-time.After(200 * time.Millisecond):
		case <-deadline:
			t.Fatalf("waiting for %s: not seen within %v", what, fast)
		}
	}
}

// TestClientFeatures: roots, log messages at the level asked for,
// resource updates and list changes, completions and a URL elicitation's
// completion reach the spec's callbacks over stdio and streamable HTTP in
// both eras.
func TestClientFeatures(t *testing.T) {
	for _, tg := range featureTargets {
		t.Run(tg.kind.String()+"/"+tg.era.String(), func(t *testing.T) {
			rec := newRecorder()
			s := featureSpec(t, tg.kind, tg.era)
			s.Roots = func(context.Context) ([]mcp.Root, error) {
				return []mcp.Root{{URI: "file:///work/project", Name: "project"}}, nil
			}
			s.LogLevel = mcp.LoggingLevelWarning
			s.OnLog = func(level mcp.LoggingLevel, logger string, data any) {
				rec.note(func() { rec.logs = append(rec.logs, string(level)+" "+logger+" "+data.(string)) })
			}
			s.OnResourceUpdated = func(uri string) { rec.note(func() { rec.updated = append(rec.updated, uri) }) }
			s.OnResourcesChanged = func() { rec.note(func() { rec.changed++ }) }
			c := dialT(t, s)
			ctx := context.Background()
			text := func(tool string, args map[string]any) string {
				t.Helper()
				raw, err := c.CallTool(ctx, tool, args)
				if err != nil {
					t.Fatalf("CallTool(%s) = %v", tool, err)
				}
				var res struct {
					Content []struct{ Text string } `json:"content"`
				}
				if err := json.Unmarshal(raw, &res); err != nil || len(res.Content) == 0 {
					t.Fatalf("CallTool(%s) = %s, %v; want text", tool, raw, err)
				}
				return res.Content[0].Text
			}

			if got := text("roots", nil); !strings.Contains(got, `"uri":"file:///work/project"`) || !strings.Contains(got, `"name":"project"`) {
				t.Errorf("roots tool = %s, want the spec's root", got)
			}
			if err := c.RootsChanged(ctx); err != nil {
				t.Errorf("RootsChanged() = %v", err)
			}

			rec.until(t, "the error log message", func() {
				text("log", map[string]any{"level": "info", "message": "quiet"})
				text("log", map[string]any{"level": "error", "logger": "db", "message": "loud"})
			}, func() bool { return len(rec.logs) > 0 })
			rec.mu.Lock()
			for _, l := range rec.logs {
				if l != "error db loud" {
					t.Errorf("log message %q, want only %q (level warning set)", l, "error db loud")
				}
			}
			rec.mu.Unlock()

			if !c.OffersSubscriptions() {
				t.Fatal("OffersSubscriptions() = false, want true")
			}
			if err := c.SubscribeResource(ctx, "test://watched"); err != nil {
				t.Fatalf("SubscribeResource() = %v", err)
			}
			rec.until(t, "the resource update", func() { text("touch", map[string]any{"uri": "test://watched"}) },
				func() bool { return len(rec.updated) > 0 })
			rec.mu.Lock()
			if rec.updated[0] != "test://watched" {
				t.Errorf("updated %q, want test://watched", rec.updated[0])
			}
			rec.mu.Unlock()
			if err := c.UnsubscribeResource(ctx, "test://watched"); err != nil {
				t.Errorf("UnsubscribeResource() = %v", err)
			}

			n := 0
			rec.until(t, "resources/list_changed", func() {
				n++
				text("add_resource", map[string]any{"name": fmt.Sprint(n)})
			}, func() bool { return rec.changed > 0 })

			if !c.OffersCompletions() {
				t.Fatal("OffersCompletions() = false, want true")
			}
			raw, err := c.Complete(ctx, mcp.PromptReference{Type: "ref/prompt", Name: "colour"}, "name", "b", nil)
			if err != nil || !strings.Contains(string(raw), `"values":["blue","brown"]`) {
				t.Errorf("Complete(colour, b) = %s, %v; want blue and brown", raw, err)
			}

			done, release := c.AwaitElicitation("login-7")
			defer release()
			deadline := time.After(fast)
			for finished := false; !finished; {
				text("finish_url", map[string]any{"id": "login-7"}) // again if lost, as above
				select {
				case <-done:
					finished = true
				case <-time.After(200 * time.Millisecond):
				case <-deadline:
					t.Fatal("notifications/elicitation/complete for login-7 not seen")
				}
			}
		})
	}
}

// TestNoElicitHandler: without Spec.Elicit no elicitation capability is
// declared, and a server asking anyway gets an error, not a decline: the
// call fails instead of reading as if someone had said no.
func TestNoElicitHandler(t *testing.T) {
	for _, era := range []testserver.Era{testserver.EraModern, testserver.EraLegacy} {
		t.Run(era.String(), func(t *testing.T) {
			c := dialT(t, stdioSpec("-ask", "-era="+era.String()))
			raw, err := c.CallTool(context.Background(), "ask", map[string]any{"question": "colour?"})
			if err == nil && !strings.Contains(string(raw), `"isError":true`) {
				t.Fatalf("CallTool(ask) without a handler = %s, nil; want an error", raw)
			}
			if strings.Contains(string(raw), "declined") {
				t.Errorf("CallTool(ask) without a handler = %s; nobody declined", raw)
			}
			t.Logf("%s: %s %v", era, raw, err)
		})
	}
}
