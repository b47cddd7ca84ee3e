package mcpbridge

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
)

// TestBadToolSkipped: a server listing a tool whose schema nests 5,000
// deep keeps its other tools, at once; the bad one is reported in the log.
func TestBadToolSkipped(t *testing.T) {
	var e exits
	cfg := stdioServer("s", "-handwritten=deep")
	cfg.Timeout = 30 * time.Second
	b := newBridge(t, &Options{Logger: e.logger()}, cfg)
	// Waiting for the 30s timeout would end with no tools, not these.
	discover(t, b)
	if got := strings.Join(toolNamesOf(b.Tools()), ","); got != "after,before" {
		t.Errorf("Tools() = %s, want after,before", got)
	}
	if !strings.Contains(e.logs.String(), "cannot use; skipped") || !strings.Contains(e.logs.String(), "tool=deep") {
		t.Errorf("the log does not report the skipped tool:\n%s", e.logs.String())
	}
}

// TestDeepToolReported: over streamable HTTP (JSON and SSE-framed answers)
// and SSE, a tool nested 5,000 deep is skipped while its siblings register
// at once; the skipped tool is in the status (text and JSON) and in an
// event; a call whose result nests 20,000 deep fails at once.
func TestDeepToolReported(t *testing.T) {
	for _, framing := range []string{"json", "sse", "legacy"} {
		t.Run(framing, func(t *testing.T) {
			cfg := ServerConfig{Name: "deep", Timeout: time.Minute, Trust: true}
			if url := testserver.ServeDeep(t, framing); framing == "legacy" {
				cfg.URL, cfg.Type = url, "sse"
			} else {
				cfg.HTTPURL = url
			}
			b := newBridge(t, &Options{Logger: quiet()}, cfg)
			events, cancel := b.Subscribe()
			defer cancel()
			// Waiting for the minute's timeout would end with no tools, not these.
			discover(t, b)
			if got := strings.Join(toolNamesOf(b.Tools()), ","); got != "after,before" {
				t.Errorf("Tools() = %s, want after,before", got)
			}
			want := []DroppedTool{{Server: "deep", ServerTool: "deep_tool", Reason: "schema nests deeper than 2000 levels"}}
			st := b.Status()
			if diff := cmp.Diff(want, st.Servers[0].Skipped); diff != "" {
				t.Errorf("Status().Servers[0].Skipped (-want +got):\n%s", diff)
			}
			if text := st.String(); !strings.Contains(text, "Skipped tools: deep_tool (schema nests deeper than 2000 levels)") {
				t.Errorf("the status text does not report the skipped tool:\n%s", text)
			}
			js, err := json.Marshal(st)
			if err != nil {
				t.Fatalf("json.Marshal(status) = %v", err)
			}
			if !strings.Contains(string(js), `"skipped":[{"server":"deep","tool":"deep_tool","reason":"schema nests deeper than 2000 levels"}]`) {
				t.Errorf("the status JSON does not report the skipped tool:\n%s", js)
			}
			ev := waitEvent(t, events, "tool skipped", func(e Event) bool { return e.Kind == EventToolDropped })
			if ev.Server != "deep" || ev.ServerTool != "deep_tool" || ev.Err == nil || !strings.Contains(ev.Err.Error(), "deeper than 2000 levels") {
				t.Errorf("event = %+v, want deep_tool of deep, saying why", ev)
			}
			// A call that waited for the timeout would fail with ErrTimeout.
			r := b.Execute(context.Background(), &genai.FunctionCall{Name: "after", Args: map[string]any{}})
			if r.Err == nil || !strings.Contains(r.Err.Error(), "nested more than 2000 levels deep") || errors.Is(r.Err, ErrTimeout) {
				t.Errorf("Execute() error = %v, want one saying the result nested too deeply, not a timeout", r.Err)
			}
		})
	}
}

// TestMessageBound: a server whose tools/list line never ends is
// disconnected with an error naming the limit.
func TestMessageBound(t *testing.T) {
	b := newBridge(t, &Options{MaxMessageBytes: 2 << 20}, stdioServer("s", "-handwritten=endless"))
	// Without the bound the line would be read until the timeout, whose
	// error does not name the limit.
	discover(t, b)
	st := b.Status().Servers[0]
	if st.State != Disconnected || !strings.Contains(st.Error, "over 2097152 bytes") {
		t.Errorf("server = %v %q, want DISCONNECTED naming the limit", st.State, st.Error)
	}
}
