package mcpconn

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/mcp"
	"go.uber.org/goleak"

	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
)

// mcptest is the path of the stdio test server built by TestMain.
var mcptest string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mcpconn-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if mcptest, err = testserver.BuildStdio(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	// Shorter grace periods keep fault tests fast; the logic is the same.
	stdinGrace, termGrace = 300*time.Millisecond, 300*time.Millisecond
	goleak.VerifyTestMain(m, append(testserver.IgnoreServerGoroutines(), goleak.Cleanup(func(code int) { _ = os.RemoveAll(dir); os.Exit(code) }))...)
}

// testTimeout is the Timeout of test specs: generous, so that a loaded
// machine never fails a connection or request that is not about timing.
// A test of a short timeout sets it once connected, or on a server that
// never answers.
const testTimeout = time.Minute

// fast bounds what must end without waiting for testTimeout (a failure
// found at once, a process stopped after its grace periods): well under
// testTimeout, and far above what any machine needs.
const fast = 20 * time.Second

// stdioSpec is a spec for the test server with the given flags. Its
// server/discover probe waits up to 3 s: on a loaded machine a process may
// take longer than the default bound to answer, and a server of both eras
// would then be spoken to in the legacy one (correct, but not what most
// tests expect). Tests of the bound itself reset DiscoverProbe.
func stdioSpec(args ...string) Spec {
	return Spec{Name: "stdio-test", Kind: Stdio, Command: mcptest, Args: args, Timeout: testTimeout, DiscoverProbe: 3 * time.Second}
}

// testHTTP is an in-process test server behind SSE or streamable HTTP.
type testHTTP struct {
	spec Spec
	*testserver.HTTP
}

// httpServer starts the test server in-process behind kind (SSE or
// StreamableHTTP) and returns its spec. Everything stops at the test's end.
func httpServer(t *testing.T, kind Kind, o testserver.Options) testHTTP {
	t.Helper()
	if kind != SSE && kind != StreamableHTTP {
		t.Fatalf("httpServer(%v): not an HTTP kind", kind)
	}
	h := testserver.ServeHTTP(t, o, kind == SSE)
	return testHTTP{Spec{Name: kind.String() + "-test", Kind: kind, Timeout: testTimeout, URL: h.URL}, h}
}

// specFor returns a spec reaching a test server with o over kind.
func specFor(t *testing.T, kind Kind, o testserver.Options) Spec {
	t.Helper()
	if kind == Stdio {
		args := []string{}
		if o.Tools > 0 {
			args = append(args, fmt.Sprintf("-tools=%d", o.Tools))
		}
		if o.PageSize > 0 {
			args = append(args, fmt.Sprintf("-page=%d", o.PageSize))
		}
		return stdioSpec(args...)
	}
	return httpServer(t, kind, o).spec
}

func dialT(t *testing.T, s Spec) *Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	c, err := Dial(ctx, s)
	if err != nil {
		t.Fatalf("Dial(%s) = %v, want nil", s.Name, err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func toolNames(tools []Tool) []string {
	var n []string
	for _, t := range tools {
		n = append(n, t.Name)
	}
	sort.Strings(n)
	return n
}

var kinds = []Kind{Stdio, SSE, StreamableHTTP}

func TestDiscoveryAllTransports(t *testing.T) {
	for _, kind := range kinds {
		t.Run(kind.String(), func(t *testing.T) {
			c := dialT(t, specFor(t, kind, testserver.Options{Tools: 2}))
			if name, version := c.ServerInfo(); name != "mcptest" || version != "1.2.3" {
				t.Errorf("ServerInfo() = %q, %q, want mcptest, 1.2.3", name, version)
			}
			if got, want := c.Instructions(), "test server mcptest"; got != want {
				t.Errorf("Instructions() = %q, want %q", got, want)
			}
			if got := c.ProtocolVersion(); got != mcp.LATEST_PROTOCOL_VERSION {
				t.Errorf("ProtocolVersion() = %q, want %q (the test server speaks both eras)", got, mcp.LATEST_PROTOCOL_VERSION)
			}
			ctx := context.Background()
			tools, err := c.ListTools(ctx)
			if err != nil {
				t.Fatalf("ListTools() = %v", err)
			}
			for _, want := range []string{"tool_00", "tool_01", "echo", "raw", "add_tool", "env", "sleep", "weird"} {
				if !slices.Contains(toolNames(tools), want) {
					t.Errorf("ListTools() names = %v, missing %q", toolNames(tools), want)
				}
			}
			echo := tools[slices.IndexFunc(tools, func(t Tool) bool { return t.Name == "echo" })]
			if echo.Annotations.ReadOnlyHint == nil || !*echo.Annotations.ReadOnlyHint || echo.Annotations.Title != "Echo" {
				t.Errorf("echo annotations = %+v, want readOnlyHint true, title Echo", echo.Annotations)
			}
			raw, err := c.CallTool(ctx, "echo", map[string]any{"text": "hi"})
			if err != nil {
				t.Fatalf("CallTool(echo) = %v", err)
			}
			var res struct {
				Content []struct{ Type, Text string }
			}
			if err := json.Unmarshal(raw, &res); err != nil || len(res.Content) != 1 || res.Content[0].Text != `{"text":"hi"}` {
				t.Errorf("CallTool(echo) = %s (%v), want one text block {\"text\":\"hi\"}", raw, err)
			}
			resources, err := c.ListResources(ctx)
			if err != nil || len(resources) != 1 || !strings.Contains(string(resources[0]), "test://hello") {
				t.Errorf("ListResources() = %s, %v, want test://hello", resources, err)
			}
			rr, err := c.ReadResource(ctx, "test://hello")
			if err != nil || !strings.Contains(string(rr), "hello world") {
				t.Errorf("ReadResource() = %s, %v, want hello world", rr, err)
			}
		})
	}
}

func TestPaging(t *testing.T) {
	for _, kind := range kinds {
		t.Run(kind.String(), func(t *testing.T) {
			c := dialT(t, specFor(t, kind, testserver.Options{Tools: 7, PageSize: 2}))
			tools, err := c.ListTools(context.Background())
			if err != nil {
				t.Fatalf("ListTools() = %v", err)
			}
			var numbered []string
			for _, n := range toolNames(tools) {
				if strings.HasPrefix(n, "tool_") {
					numbered = append(numbered, n)
				}
			}
			want := []string{"tool_00", "tool_01", "tool_02", "tool_03", "tool_04", "tool_05", "tool_06"}
			if diff := cmp.Diff(want, numbered); diff != "" {
				t.Errorf("ListTools() numbered tools (-want +got):\n%s", diff)
			}
			if len(tools) < 13 {
				t.Errorf("ListTools() = %d tools, want at least 13 over 7 pages", len(tools))
			}
		})
	}
}

func TestRawSchemaSurvives(t *testing.T) {
	for _, kind := range kinds {
		t.Run(kind.String(), func(t *testing.T) {
			c := dialT(t, specFor(t, kind, testserver.Options{}))
			tools, err := c.ListTools(context.Background())
			if err != nil {
				t.Fatalf("ListTools() = %v", err)
			}
			i := slices.IndexFunc(tools, func(t Tool) bool { return t.Name == "raw" })
			if i < 0 {
				t.Fatalf("ListTools() = %v, no raw tool", toolNames(tools))
			}
			var got, want map[string]any
			if err := json.Unmarshal(tools[i].InputSchema, &got); err != nil {
				t.Fatalf("InputSchema %s: %v", tools[i].InputSchema, err)
			}
			if err := json.Unmarshal([]byte(testserver.RawSchema), &want); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("raw InputSchema (-want +got):\n%s", diff)
			}
			for _, k := range []string{"anyOf", "$schema", "description"} {
				if _, ok := got[k]; !ok {
					t.Errorf("raw InputSchema lacks %q: %s", k, tools[i].InputSchema)
				}
			}
		})
	}
}

func TestToolsListChanged(t *testing.T) {
	for _, kind := range kinds {
		t.Run(kind.String(), func(t *testing.T) {
			s := specFor(t, kind, testserver.Options{})
			changed := make(chan struct{}, 10)
			s.OnToolsChanged = func() { changed <- struct{}{} }
			c := dialT(t, s)
			ctx := context.Background()
			if _, err := c.ListTools(ctx); err != nil {
				t.Fatalf("ListTools() = %v", err)
			}
			if _, err := c.CallTool(ctx, "add_tool", map[string]any{"name": "brand_new"}); err != nil {
				t.Fatalf("CallTool(add_tool) = %v", err)
			}
			select {
			case <-changed:
			case <-time.After(fast):
				t.Fatalf("OnToolsChanged not called within %v", fast)
			}
			tools, err := c.ListTools(ctx)
			if err != nil {
				t.Fatalf("ListTools() = %v", err)
			}
			if !slices.Contains(toolNames(tools), "brand_new") {
				t.Errorf("ListTools() after list_changed = %v, want brand_new", toolNames(tools))
			}
		})
	}
}

// TestToolsListChangedOutOfBand changes the tools outside any request, so
// the notification can only arrive on a listening stream.
func TestToolsListChangedOutOfBand(t *testing.T) {
	for _, kind := range []Kind{SSE, StreamableHTTP} {
		t.Run(kind.String(), func(t *testing.T) {
			h := httpServer(t, kind, testserver.Options{})
			s, srv := h.spec, h.MCP
			changed := make(chan struct{}, 10)
			s.OnToolsChanged = func() { changed <- struct{}{} }
			c := dialT(t, s)
			ctx := context.Background()
			deadline := time.Now().Add(fast)
			// The listening stream opens in the background after initialize:
			// add tools until one notification arrives.
			for i := 0; ; i++ {
				name := fmt.Sprintf("oob_%d", i)
				srv.AddTool(mcp.NewTool(name), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return mcp.NewToolResultText(name), nil
				})
				select {
				case <-changed:
				case <-time.After(100 * time.Millisecond):
					if time.Now().After(deadline) {
						t.Fatalf("OnToolsChanged not called within %v", fast)
					}
					continue
				}
				break
			}
			tools, err := c.ListTools(ctx)
			if err != nil {
				t.Fatalf("ListTools() = %v", err)
			}
			if !slices.Contains(toolNames(tools), "oob_0") {
				t.Errorf("ListTools() after list_changed = %v, want oob_0", toolNames(tools))
			}
		})
	}
}

func TestHeadersSent(t *testing.T) {
	for _, kind := range []Kind{SSE, StreamableHTTP} {
		t.Run(kind.String(), func(t *testing.T) {
			h := httpServer(t, kind, testserver.Options{})
			s, hl := h.spec, h.HTTP
			s.Headers = map[string]string{"X-Api-Key": "k123", "Authorization": "Bearer tok"}
			c := dialT(t, s)
			if _, err := c.ListTools(context.Background()); err != nil {
				t.Fatalf("ListTools() = %v", err)
			}
			for name, want := range s.Headers {
				got := hl.Header(name)
				if len(got) == 0 {
					t.Errorf("server saw header %s = none, want %q", name, want)
				}
				for _, v := range got {
					if v != want {
						t.Errorf("server saw header %s = %q, want %q", name, v, want)
					}
				}
			}
		})
	}
}

func TestStdioDirAndEnv(t *testing.T) {
	dir := t.TempDir()
	s := stdioSpec()
	s.Dir = dir
	s.Env = []string{"MCPTEST_VALUE=hello there"}
	c := dialT(t, s)
	for _, tc := range []struct {
		name, variable string
		wantSet        bool
		wantValue      string
	}{
		{"given", "MCPTEST_VALUE", true, "hello there"},
		{"not inherited", "HOME", false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw, err := c.CallTool(context.Background(), "env", map[string]any{"var": tc.variable})
			if err != nil {
				t.Fatalf("CallTool(env) = %v", err)
			}
			var res struct{ Content []struct{ Text string } }
			if err := json.Unmarshal(raw, &res); err != nil || len(res.Content) == 0 {
				t.Fatalf("CallTool(env) = %s, %v", raw, err)
			}
			var got struct {
				Cwd   string
				Value string
				Set   bool
			}
			if err := json.Unmarshal([]byte(res.Content[0].Text), &got); err != nil {
				t.Fatalf("env result %q: %v", res.Content[0].Text, err)
			}
			wantDir, _ := filepath.EvalSymlinks(dir)
			gotDir, _ := filepath.EvalSymlinks(got.Cwd)
			if gotDir != wantDir {
				t.Errorf("server cwd = %q, want %q", got.Cwd, dir)
			}
			if got.Set != tc.wantSet || got.Value != tc.wantValue {
				t.Errorf("server env %s = %q (set %v), want %q (set %v)", tc.variable, got.Value, got.Set, tc.wantValue, tc.wantSet)
			}
		})
	}
}

// TestDialLatency logs how long a stdio dial takes (speed is measured by
// benchmarks, not asserted here) and checks that no dial waited out the
// server/discover probe.
func TestDialLatency(t *testing.T) {
	const n = 5
	var total time.Duration
	worst := time.Duration(0)
	for range n {
		start := time.Now()
		c, err := Dial(context.Background(), stdioSpec())
		d := time.Since(start)
		if err != nil {
			t.Fatalf("Dial() = %v", err)
		}
		version := c.ProtocolVersion()
		_ = c.Close()
		total += d
		worst = max(worst, d)
		// The test server speaks both eras: a probe answered gives the
		// 2026 protocol, one waited out would fall back to the legacy
		// handshake.
		if !IsModern(version) {
			t.Errorf("Dial() negotiated %q, want the 2026 protocol (the server/discover probe answered, not waited out)", version)
		}
	}
	t.Logf("stdio Dial latency: mean %v, worst %v over %d dials", total/n, worst, n)
}

// TestToolsChangedCoalesced: a burst of notifications gives fewer calls,
// never two at once, and none after Close. The first call is held until
// the whole burst was sent, so the burst arrives while a call runs however
// fast or slow the machine is.
func TestToolsChangedCoalesced(t *testing.T) {
	h := httpServer(t, StreamableHTTP, testserver.Options{})
	var mu sync.Mutex
	calls, running, overlap := 0, 0, false
	first, release := make(chan struct{}), make(chan struct{})
	var firstOnce, releaseOnce sync.Once
	releaseFirst := func() { releaseOnce.Do(func() { close(release) }) }
	h.spec.OnToolsChanged = func() {
		mu.Lock()
		calls++
		running++
		overlap = overlap || running > 1
		mu.Unlock()
		firstOnce.Do(func() {
			close(first)
			<-release
		})
		time.Sleep(10 * time.Millisecond) // widens the window for an overlap
		mu.Lock()
		running--
		mu.Unlock()
	}
	c, err := Dial(context.Background(), h.spec)
	if err != nil {
		t.Fatalf("Dial() = %v", err)
	}
	defer releaseFirst() // before Close, which waits for the call
	for i := range 20 {
		if _, err := c.CallTool(context.Background(), "add_tool", map[string]any{"name": fmt.Sprintf("burst_%d", i)}); err != nil {
			t.Fatalf("CallTool(add_tool) = %v", err)
		}
	}
	select {
	case <-first:
	case <-time.After(fast):
		t.Fatalf("OnToolsChanged not called within %v of 20 changes", fast)
	}
	releaseFirst()
	_ = c.Close()
	mu.Lock()
	after := calls
	mu.Unlock()
	h.MCP.AddTool(mcp.NewTool("after_close"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("x"), nil
	})
	time.Sleep(100 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	if after < 1 || after >= 20 {
		t.Errorf("OnToolsChanged calls for 20 quick changes = %d, want between 1 and 19", after)
	}
	if overlap {
		t.Errorf("OnToolsChanged ran concurrently")
	}
	if calls != after {
		t.Errorf("OnToolsChanged called %d times after Close, want 0", calls-after)
	}
}
