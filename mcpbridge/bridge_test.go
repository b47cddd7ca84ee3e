package mcpbridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpgenai/bridge/mcpbridge/internal/mcpconn"
	"github.com/mcpgenai/bridge/mcpbridge/internal/result"
	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
	"github.com/mcpgenai/bridge/schema"
)

// mcptest is the path of the stdio test server built by TestMain.
var mcptest string

func TestMain(m *testing.M) {
	if spec := os.Getenv(replicaEnv); spec != "" {
		os.Exit(replicaMain(spec)) // a replica of replica_test.go
	}
	testserver.Main(m, &mcptest)
}

// quiet is the logger of test bridges; set MCPBRIDGE_TEST_LOG=1 to see it.
func quiet() *slog.Logger {
	if os.Getenv("MCPBRIDGE_TEST_LOG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.DiscardHandler)
}

// stdioServer configures the test server program with flags.
func stdioServer(name string, flags ...string) ServerConfig {
	return ServerConfig{Name: name, Command: mcptest, Args: flags, Timeout: 10 * time.Second}
}

// mcptestExec is the trusted stdio test server with the exec tools.
func mcptestExec(name string) ServerConfig {
	c := stdioServer(name, "-name="+name, "-exec")
	c.Trust = true
	return c
}

// httpServer runs the test server in-process behind SSE or streamable HTTP
// (tr) and returns its configuration; it stops at the test's end.
func httpServer(t *testing.T, name string, tr Transport, o testserver.Options) (ServerConfig, *testserver.HTTP) {
	t.Helper()
	cfg := ServerConfig{Name: name, Timeout: 10 * time.Second}
	switch tr {
	case TransportSSE:
		h := testserver.ServeHTTP(t, o, true)
		cfg.URL, cfg.Type = h.URL, "sse"
		return cfg, h
	case TransportHTTP:
		h := testserver.ServeHTTP(t, o, false)
		cfg.HTTPURL = h.URL
		return cfg, h
	}
	t.Fatalf("httpServer(%v): not an HTTP transport", tr)
	return cfg, nil
}

// serverFor configures a test server with o reached over tr.
func serverFor(t *testing.T, name string, tr Transport, o testserver.Options) ServerConfig {
	t.Helper()
	if tr == TransportStdio {
		flags := []string{"-name=" + name}
		if o.Tools > 0 {
			flags = append(flags, fmt.Sprintf("-tools=%d", o.Tools))
		}
		if o.PageSize > 0 {
			flags = append(flags, fmt.Sprintf("-page=%d", o.PageSize))
		}
		if o.Offers {
			flags = append(flags, "-offers")
		}
		return stdioServer(name, flags...)
	}
	cfg, _ := httpServer(t, name, tr, o)
	return cfg
}

var transports = []Transport{TransportStdio, TransportSSE, TransportHTTP}

// newBridge returns a Bridge for servers, closed at the test's end.
func newBridge(t *testing.T, opts *Options, servers ...ServerConfig) *Bridge {
	t.Helper()
	return newBridgeHooks(t, opts, testHooks{}, servers...)
}

// newBridgeHooks is newBridge with hooks.
func newBridgeHooks(t *testing.T, opts *Options, hooks testHooks, servers ...ServerConfig) *Bridge {
	t.Helper()
	if opts == nil {
		opts = &Options{}
	}
	if opts.Logger == nil {
		opts.Logger = quiet()
	}
	b, err := newWithHooks(&Config{Servers: servers}, opts, hooks)
	if err != nil {
		t.Fatalf("New() = %v, want nil", err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return b
}

// discover runs Discover within a minute: a guard against a hang, as long
// as nodeTimeout, so that a Node server slow to start on a loaded machine
// meets its own Timeout first.
func discover(t *testing.T, b *Bridge) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := b.Discover(ctx); err != nil {
		t.Fatalf("Discover() = %v, want nil", err)
	}
}

func toolNamesOf(tools []*Tool) []string {
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Name
	}
	return names
}

// call calls tool on server within 10 s and returns the text of the first
// content block.
func call(t *testing.T, b *Bridge, server, tool string, args any) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	raw, err := b.callTool(ctx, server, tool, args)
	if err != nil {
		return "", err
	}
	var res struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal(raw, &res); err != nil || len(res.Content) == 0 {
		t.Fatalf("callTool(%s, %s) = %s, want content (%v)", server, tool, raw, err)
	}
	return res.Content[0].Text, nil
}

func TestDiscoverEachTransport(t *testing.T) {
	for _, tr := range transports {
		t.Run(string(tr), func(t *testing.T) {
			b := newBridge(t, nil, serverFor(t, "srv", tr, testserver.Options{Tools: 2}))
			discover(t, b)
			want := []string{"add_tool", "echo", "env", "raw", "sleep", "tool_00", "tool_01", "weird"}
			if tr == TransportStdio {
				want = []string{"add_tool", "crash", "echo", "env", "raw", "sleep", "tool_00", "tool_01", "weird"}
			}
			if diff := cmp.Diff(want, toolNamesOf(b.Tools())); diff != "" {
				t.Errorf("Tools() names mismatch (-want +got):\n%s", diff)
			}
			st := b.Status()
			if !st.Discovered || st.Servers[0].State != Connected || st.Servers[0].Error != "" {
				t.Errorf("Status() = %+v, want COMPLETED and srv CONNECTED without error", st)
			}
			echo, ok := b.Tool("echo")
			if !ok || echo.Server != "srv" || echo.ServerTool != "echo" || echo.Description != "echoes its arguments" ||
				echo.Annotations.ReadOnlyHint == nil || !*echo.Annotations.ReadOnlyHint || echo.Declaration.Name != "echo" {
				t.Errorf("Tool(echo) = %+v, %v, want the echo tool of srv, read-only", echo, ok)
			}
			got, err := call(t, b, "srv", "echo", map[string]any{"text": "hi"})
			if err != nil || got != `{"text":"hi"}` {
				t.Errorf("callTool(echo) = %q, %v, want {\"text\":\"hi\"}", got, err)
			}
		})
	}
}

func TestDiscoverSSEFallsBackToHTTP(t *testing.T) {
	cfg, _ := httpServer(t, "srv", TransportHTTP, testserver.Options{})
	cfg.URL, cfg.HTTPURL = cfg.HTTPURL, "" // url without type: SSE first
	// The server accepts the SSE GET but never sends an endpoint event: the
	// wait for it is capped by the timeout (else 5 s), then HTTP is tried.
	cfg.Timeout = time.Second
	b := newBridge(t, nil, cfg)
	discover(t, b)
	if st := b.Status(); st.Servers[0].State != Connected {
		t.Fatalf("Status() = %+v, want srv CONNECTED after falling back to streamable HTTP", st)
	}
	if _, ok := b.Tool("echo"); !ok {
		t.Errorf("Tool(echo) = false after fallback, want true")
	}
}

func TestDiscoverPaging(t *testing.T) {
	for _, tr := range transports {
		t.Run(string(tr), func(t *testing.T) {
			b := newBridge(t, nil, serverFor(t, "paged", tr, testserver.Options{Tools: 7, PageSize: 2}))
			discover(t, b)
			var numbered []string
			for _, tool := range b.Tools() {
				if strings.HasPrefix(tool.Name, "tool_") {
					numbered = append(numbered, tool.Name)
				}
			}
			want := []string{"tool_00", "tool_01", "tool_02", "tool_03", "tool_04", "tool_05", "tool_06"}
			if diff := cmp.Diff(want, numbered); diff != "" {
				t.Errorf("numbered tools over pages of 2 (-want +got):\n%s", diff)
			}
			if tool, ok := b.Tool("weird"); !ok || tool.Server != "paged" {
				t.Errorf("Tool(weird) = %v, %v, want the last fixed tool, after the numbered pages", tool, ok)
			}
		})
	}
}

func TestDiscoverKeepsRawSchema(t *testing.T) {
	for _, target := range []schema.Target{schema.Gemini, schema.Vertex, schema.JSONSchema} {
		for _, tr := range transports {
			t.Run(target.String()+"/"+string(tr), func(t *testing.T) {
				b := newBridge(t, &Options{Target: target}, serverFor(t, "srv", tr, testserver.Options{}))
				discover(t, b)
				tool, ok := b.Tool("raw")
				if !ok {
					t.Fatal("Tool(raw) = false, want true")
				}
				if got := string(tool.InputSchema()); got != testserver.RawSchema {
					t.Errorf("InputSchema() = %s, want the exact bytes %s", got, testserver.RawSchema)
				}
				res, err := schema.Convert([]byte(testserver.RawSchema), &schema.Options{Target: target})
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(res.Declaration("raw", "tool with a raw schema"), tool.Declaration); diff != "" {
					t.Errorf("Declaration differs from converting the raw schema (-want +got):\n%s", diff)
				}
				decl, _ := json.Marshal(tool.Declaration)
				// The top-level anyOf, lost by mcp-go's decoding, must reach the
				// declaration: kept as is for parametersJsonSchema, and merged
				// into the object root, with the alternatives described, for
				// the genai.Schema targets.
				anyOfTrace := "anyOf"
				if target != schema.JSONSchema {
					anyOfTrace = "(a) or (b)"
				}
				if !strings.Contains(string(decl), "either a or b") || !strings.Contains(string(decl), anyOfTrace) {
					t.Errorf("Declaration = %s, want the top-level description and a trace of anyOf (%q) kept", decl, anyOfTrace)
				}
				if !slices.ContainsFunc(tool.Changes, func(c schema.Change) bool { return c.Keyword == "$schema" }) {
					t.Errorf("Changes = %v, want the dropped $schema reported", tool.Changes)
				}
				if vs := schema.CheckDeclaration(tool.Declaration, target); len(vs) > 0 {
					t.Errorf("CheckDeclaration(raw, %v) = %v, want none", target, vs)
				}
			})
		}
	}
}

func TestHeadersReachServer(t *testing.T) {
	for _, tr := range []Transport{TransportSSE, TransportHTTP} {
		t.Run(string(tr), func(t *testing.T) {
			cfg, hl := httpServer(t, "srv", tr, testserver.Options{})
			cfg.Headers = map[string]string{"X-Team": "blue", "Authorization": "Bearer s3cr3t-value"}
			b := newBridge(t, nil, cfg)
			discover(t, b)
			if got := hl.Header("X-Team"); len(got) == 0 || slices.ContainsFunc(got, func(v string) bool { return v != "blue" }) {
				t.Errorf("server saw X-Team = %q, want blue on every request", got)
			}
			if got := hl.Header("Authorization"); !slices.Contains(got, "Bearer s3cr3t-value") {
				t.Errorf("server saw Authorization = %q, want the configured value", got)
			}
			if txt := b.Status().String(); strings.Contains(txt, "s3cr3t") {
				t.Errorf("Status() shows the header secret:\n%s", txt)
			}
		})
	}
}

func TestStdioCwdAndEnv(t *testing.T) {
	t.Setenv("FOO_TOKEN", "parent-secret")
	t.Setenv("PLAIN_SETTING", "plain")
	dir := t.TempDir()
	wantDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		inherit bool // Config.InheritSecretEnv
		env     map[string]string
		want    map[string]any // variable -> value seen (nil: unset)
	}{
		{"secrets withheld", false, map[string]string{"CONFIGURED": "yes"},
			map[string]any{"FOO_TOKEN": nil, "PLAIN_SETTING": "plain", "CONFIGURED": "yes"}},
		{"configured secret passed", false, map[string]string{"FOO_TOKEN": "given"},
			map[string]any{"FOO_TOKEN": "given"}},
		{"inherit secrets", true, nil,
			map[string]any{"FOO_TOKEN": "parent-secret", "PLAIN_SETTING": "plain"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := stdioServer("envsrv")
			cfg.Cwd, cfg.Env = dir, tc.env
			b, err := New(&Config{Servers: []ServerConfig{cfg}, InheritSecretEnv: tc.inherit}, &Options{Logger: quiet()})
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			discover(t, b)
			for _, name := range mapsKeys(tc.want) {
				out, err := call(t, b, "envsrv", "env", map[string]any{"var": name})
				if err != nil {
					t.Fatalf("callTool(env %s) = %v", name, err)
				}
				var got struct {
					Cwd   string `json:"cwd"`
					Value string `json:"value"`
					Set   bool   `json:"set"`
				}
				if err := json.Unmarshal([]byte(out), &got); err != nil {
					t.Fatal(err)
				}
				if gotDir, _ := filepath.EvalSymlinks(got.Cwd); gotDir != wantDir {
					t.Errorf("child cwd = %q, want %q", got.Cwd, wantDir)
				}
				want := tc.want[name]
				if want == nil && got.Set {
					t.Errorf("child sees %s = %q, want it unset", name, got.Value)
				}
				if want != nil && (!got.Set || got.Value != want) {
					t.Errorf("child sees %s = %q (set %v), want %q", name, got.Value, got.Set, want)
				}
			}
		})
	}
}

func mapsKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func TestNewValidatesAndCopies(t *testing.T) {
	if _, err := New(&Config{Servers: []ServerConfig{{Name: "x"}}}, nil); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("New(no command) = %v, want ErrInvalidConfig", err)
	}
	cfg := &Config{Servers: []ServerConfig{stdioServer("a", "-name=a")}}
	b, err := New(cfg, &Options{Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	cfg.Servers[0].Name = "changed"
	cfg.Servers[0].Args[0] = "-exit-now=1"
	discover(t, b)
	if st := b.Status(); st.Servers[0].Name != "a" || st.Servers[0].State != Connected {
		t.Errorf("Status() after editing the caller's config = %+v, want server a CONNECTED", st.Servers)
	}
}

func TestCloseEndsEverything(t *testing.T) {
	b := newBridge(t, nil, stdioServer("a"), serverFor(t, "b", TransportHTTP, testserver.Options{}))
	events, cancel := b.Subscribe()
	defer cancel()
	discover(t, b)
	start := time.Now()
	if err := b.Close(); err != nil {
		t.Errorf("Close() = %v, want nil", err)
	}
	if err := b.Close(); err != nil {
		t.Errorf("second Close() = %v, want nil", err)
	}
	// Generous: stopping a stdio server may take its grace periods.
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("Close() took %v, want under 20s", d)
	}
	for range events { // drains, then ends: the channel is closed
	}
	if err := b.Discover(context.Background()); !errors.Is(err, ErrClosed) {
		t.Errorf("Discover() after Close = %v, want ErrClosed", err)
	}
	if _, err := b.callTool(context.Background(), "a", "echo", nil); !errors.Is(err, ErrClosed) {
		t.Errorf("callTool() after Close = %v, want ErrClosed", err)
	}
	for _, s := range b.Status().Servers {
		if s.State != Disconnected {
			t.Errorf("after Close, server %s is %v, want DISCONNECTED", s.Name, s.State)
		}
	}
}

func TestCloseDuringDiscovery(t *testing.T) {
	b := newBridge(t, nil, stdioServer("slow", "-never-init"), stdioServer("ok"))
	done := make(chan error, 1)
	go func() { done <- b.Discover(context.Background()) }()
	time.Sleep(200 * time.Millisecond)
	_ = b.Close()
	select {
	case err := <-done:
		if !errors.Is(err, ErrClosed) {
			t.Errorf("Discover() cut by Close = %v, want ErrClosed", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Discover() did not return within 10s of Close")
	}
}

func TestDiscoverCancelled(t *testing.T) {
	slow := stdioServer("slow", "-never-init")
	slow.Timeout = time.Minute
	b := newBridge(t, nil, slow)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if err := b.Discover(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Discover(short ctx) = %v, want DeadlineExceeded", err)
	}
	// ctx, not the server's minute, ended the connection: the error is the
	// context's, not the server's timeout.
	if st := b.Status(); !st.Discovered || st.Servers[0].State != Disconnected ||
		!strings.Contains(st.Servers[0].Error, "context deadline exceeded") || strings.Contains(st.Servers[0].Error, "timeout") {
		t.Errorf("Status() = %+v, want COMPLETED with slow DISCONNECTED by the context's deadline, not a timeout", st)
	}
}

// TestDefaults checks that each exported default is what its option's zero
// value means.
func TestDefaults(t *testing.T) {
	if got := result.TextLimit(0); got != defaultTextLimit {
		t.Errorf("result.TextLimit(0) = %d, want defaultTextLimit %d", got, defaultTextLimit)
	}
	// A zero Options.MaxMessageBytes reaches the connection as zero, where
	// mcpconn's own default applies.
	if mcpconn.DefaultMaxMessageBytes != defaultMaxMessageBytes {
		t.Errorf("mcpconn.DefaultMaxMessageBytes = %d, want defaultMaxMessageBytes %d", mcpconn.DefaultMaxMessageBytes, defaultMaxMessageBytes)
	}
	if got := (ServerConfig{}).effectiveTimeout(); got != defaultTimeout {
		t.Errorf("effectiveTimeout() of a zero Timeout = %v, want defaultTimeout %v", got, defaultTimeout)
	}
	b, err := New(&Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if b.interval != defaultReconnectInterval || b.binaryLimit != defaultBinaryLimit {
		t.Errorf("New(nil options) reconnect interval %v, binary limit %d; want %v, %d", b.interval, b.binaryLimit, defaultReconnectInterval, defaultBinaryLimit)
	}
}
