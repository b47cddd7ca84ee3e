package mcpbridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/mcpbridge/internal/result"
	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
	"github.com/mcpgenai/bridge/registry"
)

// modernServer configures testdata/npm/modern-server.mjs, a server of our
// own built on the pinned TypeScript SDK v2 (@modelcontextprotocol/server),
// which speaks protocol revision 2026-07-28, started with flags. Like npmBin
// it skips the test when the SDK is not installed, or fails it when npm
// servers are required.
func modernServer(t *testing.T, name string, flags ...string) ServerConfig {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("testdata", "npm"))
	if err != nil {
		t.Fatal(err)
	}
	sdk := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "server", "package.json")
	if _, err := os.Stat(sdk); err != nil {
		msg := fmt.Sprintf("@modelcontextprotocol/server not installed (%v); install with: %s", err, testserver.NPMInstall)
		if os.Getenv("CI") == "true" || os.Getenv("MCPBRIDGE_REQUIRE_NPM") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node not found for %s: %v", name, err)
	}
	args := append([]string{filepath.Join(dir, "modern-server.mjs")}, flags...)
	return ServerConfig{Name: name, Command: node, Args: args, Timeout: nodeTimeout, Trust: true}
}

// TestNPMModernServer: a third-party implementation of 2026-07-28 (the
// TypeScript SDK v2), over stdio and streamable HTTP, is reached in the
// revision the setting and the server's start-up time lead to; in either,
// its tools are listed with their schemas as served, a call has its
// arguments restored, cancellation reaches the server, and a tool added at
// run time is announced.
func TestNPMModernServer(t *testing.T) {
	tests := []struct {
		name     string
		flags    []string
		protocol string // the ServerConfig.Protocol setting
		want     string // the protocol Status reports
		probe    time.Duration
	}{
		// The server answers the bounded server/discover probe in time, or
		// refuses the handshake that follows a late answer and is asked
		// again.
		{"2026 only", []string{"--modern-only"}, "", "2026-07-28", 0},
		// Certainly late: the handshake is refused and server/discover is
		// asked again without the bound.
		{"2026 only, slow start", []string{"--modern-only", "--delay=600"}, "", "2026-07-28", 0},
		{"both eras, modern setting", []string{"--delay=600"}, "modern", "2026-07-28", 0},
		// A server of both revisions that misses the probe is spoken to
		// with the handshake (a rough edge the README names).
		{"both eras, slow start", []string{"--delay=600"}, "", "2025-11-25", 0},
		{"both eras, legacy setting", nil, "legacy", "2025-11-25", 0},
		{"http, 2026 only", []string{"--http", "--modern-only"}, "", "2026-07-28", 0},
		// The server answers server/discover (a probe bounded as if the
		// era were known: the default 300 ms may pass on a loaded machine
		// before Node answers, and a server of both eras then gets the
		// handshake, as "both eras, slow start" shows).
		{"http, both eras", []string{"--http"}, "", "2026-07-28", 10 * time.Second},
		// The SDK serves the 2025 era over HTTP statelessly: GET is refused
		// with 405, so no list_changed can arrive.
		{"http, both eras, legacy setting", []string{"--http"}, "legacy", "2025-11-25", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := modernServer(t, "modern", tc.flags...)
			srv.Protocol = tc.protocol
			tr := TransportStdio
			if slices.Contains(tc.flags, "--http") {
				srv.HTTPURL = startHTTPServer(t, srv.Command, srv.Args...) + "/mcp"
				srv.Command, srv.Args, tr = "", nil, TransportHTTP
			}
			checkModernServer(t, srv, tr, tc.want, tc.probe)
		})
	}
}

// checkModernServer runs the checks of TestNPMModernServer against srv,
// which Status must show connected over tr in protocol want, its first
// server/discover bounded by probe (0: the default). list_changed
// is not checked on a 2025-era HTTP connection, which the SDK serves
// statelessly.
func checkModernServer(t *testing.T, srv ServerConfig, tr Transport, want string, probe time.Duration) {
	t.Helper()
	b := newBridgeHooks(t, nil, testHooks{discoverProbe: probe}, srv) // 0: the default
	discover(t, b)

	st := b.Status().Servers[0]
	if st.State != Connected || st.Protocol != want || st.Transport != tr {
		t.Fatalf("Status = %v, protocol %q over %v (%s), want CONNECTED, %s over %v; stderr:\n%s", st.State, st.Protocol, st.Transport, st.Error, want, tr, st.Stderr)
	}

	wantTools := []string{"add_tool", "cancellations", "echo", "pick", "wait"}
	got := toolNamesOf(b.Tools())
	slices.Sort(got)
	if diff := cmp.Diff(wantTools, got); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	pick, ok := b.Tool("pick")
	if !ok {
		t.Fatal("Tool(pick) missing")
	}
	var raw struct {
		Properties map[string]struct {
			Type string `json:"type"`
			Enum []any  `json:"enum"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(pick.InputSchema(), &raw); err != nil {
		t.Fatalf("pick's InputSchema() = %s: %v", pick.InputSchema(), err)
	}
	if size := raw.Properties["size"]; size.Type != "integer" || !cmp.Equal(size.Enum, []any{1.0, 2.0, 3.0}) {
		t.Errorf("pick's InputSchema() = %s, want the integer enum as served", pick.InputSchema())
	}
	if size := pick.Declaration.Parameters.Properties["size"]; size == nil || size.Type != genai.TypeString || !cmp.Equal(size.Enum, []string{"1", "2", "3"}) {
		t.Errorf("pick's declaration = %+v, want the enum as strings for Gemini", pick.Declaration.Parameters)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, tc := range []struct {
		call *genai.FunctionCall
		want string
	}{
		{&genai.FunctionCall{Name: "echo", Args: map[string]any{"text": "hello 2026"}}, "echo: hello 2026"},
		{&genai.FunctionCall{Name: "pick", Args: map[string]any{"size": "2"}}, "size=2 (number)"},
	} {
		r := b.Execute(ctx, tc.call)
		if r.Err != nil || result.JoinText(r.LLMContent) != tc.want {
			t.Errorf("Execute(%s %v) = %q, %v, want %q", tc.call.Name, tc.call.Args, result.JoinText(r.LLMContent), r.Err, tc.want)
		}
	}

	// A call cut by its context is cancelled at the server.
	short, stop := context.WithTimeout(ctx, 300*time.Millisecond)
	r := b.Execute(short, &genai.FunctionCall{Name: "wait"})
	stop()
	if !errors.Is(r.Err, context.DeadlineExceeded) {
		t.Errorf("Execute(wait) cut after 300ms = %v, want DeadlineExceeded", r.Err)
	}
	var count string
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		var err error
		if count, err = call(t, b, "modern", "cancellations", nil); err != nil || count == "1" || time.Now().After(deadline) {
			break
		}
	}
	if count != "1" {
		t.Errorf("cancellations after the cut call = %q, want 1; stderr:\n%s", count, b.Status().Servers[0].Stderr)
	}

	if tr == TransportHTTP && want == "2025-11-25" {
		return
	}
	events, unsubscribe := b.Subscribe()
	defer unsubscribe()
	if _, err := call(t, b, "modern", "add_tool", map[string]any{"name": "fresh"}); err != nil {
		t.Fatalf("add_tool = %v", err)
	}
	if _, ok := b.Tool("fresh"); !ok {
		waitEvent(t, events, "tools-changed adding fresh", func(e Event) bool {
			return e.Kind == EventToolsChanged && slices.ContainsFunc(e.Update.Added, func(a registry.Entry) bool { return a.Name == "fresh" })
		})
	}
	if got, err := call(t, b, "modern", "fresh", nil); err != nil || got != "fresh ran" {
		t.Errorf("call(fresh) = %q, %v, want \"fresh ran\"", got, err)
	}
}
