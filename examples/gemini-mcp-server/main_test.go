package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mcpgenai/bridge/geminitest"
	"go.uber.org/goleak"
)

// binDir holds the program built by the end-to-end tests.
var binDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "gemini-mcp-server-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	goleak.VerifyTestMain(m,
		// genai's dependencies start this worker when they load.
		goleak.IgnoreTopFunction("go.opencensus.io/stats/view.(*worker).start"),
		goleak.Cleanup(func(code int) { os.RemoveAll(dir); os.Exit(code) }),
	)
}

var (
	buildOnce sync.Once
	buildErr  error
)

// program builds this program once and returns the executable's path.
func program(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the program")
	}
	path := filepath.Join(binDir, "gemini-mcp-server")
	buildOnce.Do(func() {
		out, err := exec.Command("go", "build", "-o", path, ".").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return path
}

// fakeEnv is the environment that points the program's genai client at srv.
func fakeEnv(srv *geminitest.Server) []string {
	return []string{
		"GEMINI_API_KEY=test", "GOOGLE_API_KEY=", "GOOGLE_GENAI_USE_VERTEXAI=", "GOOGLE_GENAI_USE_ENTERPRISE=",
		"GOOGLE_GEMINI_BASE_URL=" + srv.URL(),
	}
}

func TestFlags(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantErr  string // the whole of stderr
	}{
		{name: "bad backend", args: []string{"-backend", "web"}, wantCode: 2,
			wantErr: "gemini-mcp-server: -backend \"web\": want api or cli\n"},
		{name: "negative timeout", args: []string{"-timeout", "-1s"}, wantCode: 2,
			wantErr: "gemini-mcp-server: -timeout -1s: must not be negative\n"},
		{name: "no sessions", args: []string{"-max-sessions", "0"}, wantCode: 2,
			wantErr: "gemini-mcp-server: -max-sessions 0: must be at least 1\n"},
		{name: "unknown flag", args: []string{"-verbose"}, wantCode: 2,
			wantErr: "gemini-mcp-server: flag provided but not defined: -verbose\n"},
		{name: "argument", args: []string{"hello"}, wantCode: 2,
			wantErr: "gemini-mcp-server: unexpected argument \"hello\"\n"},
		{name: "no key", args: nil, wantCode: 1,
			wantErr: "gemini-mcp-server: no API key: set GEMINI_API_KEY or GOOGLE_API_KEY, or use -backend cli\n"},
	}
	for _, v := range []string{"GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_GENAI_USE_ENTERPRISE"} {
		t.Setenv(v, "")
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(t.Context(), tt.args, strings.NewReader(""), &stdout, &stderr)
			if code != tt.wantCode || stderr.String() != tt.wantErr || stdout.Len() != 0 {
				t.Errorf("run(%q) = %d, stderr %q, stdout %q, want %d, stderr %q, no stdout",
					tt.args, code, stderr.String(), stdout.String(), tt.wantCode, tt.wantErr)
			}
		})
	}
	t.Run("help", func(t *testing.T) {
		var stdout, stderr bytes.Buffer
		code := run(t.Context(), []string{"-h"}, strings.NewReader(""), &stdout, &stderr)
		if code != 0 || !strings.Contains(stderr.String(), "-backend") {
			t.Errorf("run(-h) = %d, stderr %q, want 0 and the flags", code, stderr.String())
		}
	})
}

// TestStdioWire speaks raw JSON-RPC to the program over stdio and checks the
// tools/list answer byte for byte against the seed.
func TestStdioWire(t *testing.T) {
	cmd := exec.CommandContext(t.Context(), program(t), "-backend", "cli", "-gemini", "/nonexistent/gemini", "-descriptions", "original")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	msgs := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"chat","arguments":{"prompt":"hi"}}}`,
	}
	for _, m := range msgs {
		if _, err := io.WriteString(stdin, m+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	answers := make(map[float64]json.RawMessage)
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 1<<20)
	for len(answers) < 3 && sc.Scan() {
		var env struct {
			ID     float64         `json:"id"`
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal(sc.Bytes(), &env); err != nil {
			t.Fatalf("stdout line %q: %v", sc.Text(), err)
		}
		answers[env.ID] = env.Result
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Errorf("the program exited with %v after stdin closed, want 0; stderr:\n%s", err, stderr.String())
	}

	var info struct {
		ServerInfo mcp.Implementation `json:"serverInfo"`
	}
	if err := json.Unmarshal(answers[1], &info); err != nil || info.ServerInfo.Name != "gemini-mcp-server" || info.ServerInfo.Version != "1.0.0" {
		t.Errorf("initialize = %s, want serverInfo gemini-mcp-server 1.0.0", answers[1])
	}
	var list struct {
		Tools []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(answers[2], &list); err != nil {
		t.Fatalf("tools/list = %s: %v", answers[2], err)
	}
	seed := seedTools(t)
	if len(list.Tools) != len(seed) {
		t.Fatalf("tools/list = %s, want %d tools", answers[2], len(seed))
	}
	for i, w := range seed {
		if list.Tools[i].Name != w.Name || !bytes.Equal(list.Tools[i].InputSchema, w.InputSchema) {
			t.Errorf("tool %d on the wire = %s %s, want %s %s", i, list.Tools[i].Name, list.Tools[i].InputSchema, w.Name, w.InputSchema)
		}
	}
	var res map[string]any
	if err := json.Unmarshal(answers[3], &res); err != nil {
		t.Fatal(err)
	}
	text, _ := res["content"].([]any)[0].(map[string]any)["text"].(string)
	if res["isError"] != true || !strings.HasPrefix(text, "Error executing gemini: Command failed: ") {
		t.Errorf("chat with a missing CLI = %s, want isError and a Command failed text", answers[3])
	}
}

// startStdio starts the program with args as an MCP server reached through
// mcp-go's stdio client, initialized with the handshake protocol.
func startStdio(t *testing.T, env []string, args ...string) *client.Client {
	t.Helper()
	c, err := client.NewStdioMCPClient(program(t), env, args...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	initialize(t, c)
	return c
}

func initialize(t *testing.T, c *client.Client) {
	t.Helper()
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: "test", Version: "0"}
	res, err := c.Initialize(t.Context(), req)
	if err != nil {
		t.Fatalf("Initialize: %v", err)
	}
	if res.ServerInfo.Name != "gemini-mcp-server" || res.ServerInfo.Version != "1.0.0" {
		t.Errorf("server info = %+v, want gemini-mcp-server 1.0.0", res.ServerInfo)
	}
}

// checkConversation runs chat, chat-reply with its session, chat-reply
// without one and chat-reply with an unknown session through c, against
// srv scripted with three answers.
func checkConversation(t *testing.T, c *client.Client, srv *geminitest.Server) {
	t.Helper()
	text, id, isErr := callTool(t, c, "chat", map[string]any{"prompt": "Hello, who are you?", "systemPrompt": "You are terse."})
	if text != "I'm Gemini." || id == "" || isErr {
		t.Fatalf("chat = %q, %q, isError %v, want the fake's answer and a session", text, id, isErr)
	}
	text, id2, isErr := callTool(t, c, "chat-reply", map[string]any{"prompt": "Explain.", "sessionId": id, "model": "gemini-3-pro"})
	if text != "More." || id2 != id || isErr {
		t.Errorf("chat-reply = %q, %q, isError %v, want %q in session %q", text, id2, isErr, "More.", id)
	}
	text, id3, isErr := callTool(t, c, "chat-reply", map[string]any{"prompt": "Again."})
	if text != "Done." || id3 != id || isErr {
		t.Errorf("chat-reply to latest = %q, %q, isError %v, want %q in session %q", text, id3, isErr, "Done.", id)
	}
	text, _, isErr = callTool(t, c, "chat-reply", map[string]any{"prompt": "x", "sessionId": "gone"})
	if want := `Error executing gemini: unknown session "gone" (sessions are kept in memory, at most 100)`; text != want || !isErr {
		t.Errorf("chat-reply to an unknown session = %q, isError %v, want %q", text, isErr, want)
	}

	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("the fake got %d requests, want 3", len(reqs))
	}
	var models, systems []string
	for _, r := range reqs {
		models = append(models, r.Model)
		systems = append(systems, systemInstruction(r))
	}
	if diff := cmp.Diff([]string{"gemini-2.5-flash", "gemini-3-pro", "gemini-2.5-flash"}, models); diff != "" {
		t.Errorf("models (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"You are terse.", "You are terse.", "You are terse."}, systems); diff != "" {
		t.Errorf("system instructions (-want +got):\n%s", diff)
	}
	want := []string{"user: Hello, who are you?", "model: I'm Gemini.", "user: Explain.", "model: More.", "user: Again."}
	if diff := cmp.Diff(want, contents(reqs[2])); diff != "" {
		t.Errorf("contents of the last request (-want +got):\n%s", diff)
	}
}

func conversationScript() []geminitest.Turn {
	return []geminitest.Turn{geminitest.Text("I'm Gemini."), geminitest.Text("More."), geminitest.Text("Done.")}
}

func TestStdioEndToEnd(t *testing.T) {
	srv := geminitest.New(t, nil, conversationScript()...)
	c := startStdio(t, fakeEnv(srv))
	res, err := c.ListTools(t.Context(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		if diff := cmp.Diff([]string{"prompt"}, tool.InputSchema.Required); diff != "" {
			t.Errorf("%s required (-want +got):\n%s", tool.Name, diff)
		}
	}
	if diff := cmp.Diff([]string{"chat", "chat-reply"}, names); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	checkConversation(t, c, srv)
}

func TestStdioCLIBackend(t *testing.T) {
	path, runs := fakeGemini(t, `printf '{"session_id":"11111111-2222-4333-8444-555555555555","response":"from the CLI"}'`)
	c := startStdio(t, nil, "-backend", "cli", "-gemini", path, "-model", "gemini-3-flash")
	project := t.TempDir()
	text, id, isErr := callTool(t, c, "chat", map[string]any{"prompt": "hi", "cwd": project, "systemPrompt": "S"})
	if text != "from the CLI" || id != "11111111-2222-4333-8444-555555555555" || isErr {
		t.Errorf("chat = %q, %q, isError %v, want the CLI's answer and session", text, id, isErr)
	}
	got := runs()
	if len(got) != 1 {
		t.Fatalf("gemini ran %d times, want 1", len(got))
	}
	if diff := cmp.Diff([]string{"hi", "--output-format", "json", "-m", "gemini-3-flash"}, got[0].Args); diff != "" {
		t.Errorf("arguments (-want +got):\n%s", diff)
	}
	if got[0].Dir != realDir(t, project) || got[0].SystemMD != "S" {
		t.Errorf("run in %q with SYSTEM.md %q, want %q and %q", got[0].Dir, got[0].SystemMD, realDir(t, project), "S")
	}
}

func TestHTTPEndToEnd(t *testing.T) {
	srv := geminitest.New(t, nil, conversationScript()...)
	cmd := exec.Command(program(t), "-http", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), fakeEnv(srv)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := false
	t.Cleanup(func() {
		if !exited {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	lines := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stderr).ReadString('\n')
		lines <- line
	}()
	var line string
	select {
	case line = <-lines:
	case <-time.After(30 * time.Second):
		t.Fatal("the program printed no address within 30s")
	}
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "gemini-mcp-server: listening on ")
	if !ok || !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/mcp") {
		t.Fatalf("first stderr line = %q, want the address it listens on", line)
	}

	c, err := client.NewStreamableHttpClient(url)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	initialize(t, c)
	checkConversation(t, c, srv)
	if err := c.Close(); err != nil {
		t.Errorf("closing the client: %v", err)
	}

	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		exited = true
		if err != nil {
			t.Errorf("the program exited with %v after SIGINT, want 0", err)
		}
	case <-time.After(10 * time.Second):
		t.Error("the program did not exit within 10s of SIGINT")
	}
}
