package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"go.uber.org/goleak"

	"github.com/mcpgenai/bridge/geminitest"
)

// serverFlag makes the test binary an MCP server (see TestMain).
const serverFlag = "-mcp-test-server"

// agentFlag makes the test binary the agent program itself, on its own
// console (see TestMain).
const agentFlag = "-run-agent"

// TestMain lets the test binary stand in for an MCP server: the settings
// the tests write start os.Executable() with serverFlag.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == agentFlag {
		os.Exit(runMain(os.Args[2:]))
	}
	if len(os.Args) > 1 && (os.Args[1] == serverFlag || os.Args[1] == askFlag) {
		s := calcServer()
		if os.Args[1] == askFlag {
			s = askServer()
		}
		if err := server.ServeStdio(s); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	goleak.VerifyTestMain(m,
		// genai's dependencies start this worker when they load.
		goleak.IgnoreTopFunction("go.opencensus.io/stats/view.(*worker).start"),
	)
}

// calcServer is the MCP server "calc" of the tests: add (no annotations,
// so it is confirmed), echo (annotated read-only) and slow (runs until
// cancelled).
func calcServer() *server.MCPServer {
	s := server.NewMCPServer("calc", "1.0.0", server.WithToolCapabilities(false))
	s.AddTool(mcp.NewTool("add", mcp.WithDescription("Add two numbers."),
		mcp.WithNumber("a", mcp.Required()), mcp.WithNumber("b", mcp.Required())),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			a, b := req.GetFloat("a", 0), req.GetFloat("b", 0)
			return mcp.NewToolResultText(fmt.Sprintf("%g + %g = %g", a, b, a+b)), nil
		})
	s.AddTool(mcp.NewTool("echo", mcp.WithDescription("Echo the text."),
		mcp.WithString("text", mcp.Required()), mcp.WithReadOnlyHintAnnotation(true)),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("echo: " + req.GetString("text", "")), nil
		})
	s.AddTool(mcp.NewTool("slow", mcp.WithDescription("Wait until cancelled.")),
		func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			select {
			case <-ctx.Done():
			case <-time.After(time.Minute):
			}
			return mcp.NewToolResultError("stopped"), nil
		})
	return s
}

// isolate makes sure no settings file or key of the machine is used.
func isolate(t *testing.T) {
	t.Helper()
	t.Setenv("HOME", t.TempDir())
	t.Chdir(t.TempDir())
	for _, v := range []string{"GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI",
		"GOOGLE_GENAI_USE_ENTERPRISE", "GOOGLE_GEMINI_BASE_URL"} {
		t.Setenv(v, "")
	}
}

// fakeGemini starts the fake Gemini with script and points genai's
// environment at it.
func fakeGemini(t *testing.T, script ...geminitest.Turn) *geminitest.Server {
	t.Helper()
	isolate(t)
	srv := geminitest.New(t, nil, script...)
	t.Setenv("GEMINI_API_KEY", "test")
	t.Setenv("GOOGLE_GEMINI_BASE_URL", srv.URL())
	return srv
}

// calcSettings writes a settings file configuring the calc server and
// returns its path.
func calcSettings(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd, _ := json.Marshal(exe)
	path := filepath.Join(t.TempDir(), "settings.json")
	body := `{"mcpServers": {"calc": {"command": ` + string(cmd) + `, "args": ["` + serverFlag + `"], "timeout": 30000}}}`
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// session is one run of the program.
type session struct {
	stdin     string
	terminal  bool
	interrupt chan os.Signal
}

func (s session) run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	con := &console{stdin: strings.NewReader(s.stdin), isTerminal: s.terminal, stdout: &out, stderr: &errOut}
	if s.interrupt != nil {
		con.interrupt = s.interrupt
	}
	code = run(t.Context(), args, con)
	return code, out.String(), errOut.String()
}

// expect returns a turn that checks the single function response it
// receives, under key ("output" or "error") containing want, then answers
// with next.
func expect(t *testing.T, key, want string, next geminitest.Turn) geminitest.Turn {
	return func(req *geminitest.Request) geminitest.Response {
		frs := req.FunctionResponses()
		if len(frs) != 1 {
			t.Errorf("the model got %d function responses, want 1", len(frs))
		} else if got, _ := frs[0].Response[key].(string); !strings.Contains(got, want) {
			t.Errorf("function response %s = %v, want %s containing %q", frs[0].Name, frs[0].Response, key, want)
		}
		return next(req)
	}
}

func TestPromptWithYes(t *testing.T) {
	srv := fakeGemini(t,
		geminitest.Calls(geminitest.Call{Name: "add", Args: map[string]any{"a": 2, "b": 3}}),
		expect(t, "output", "2 + 3 = 5", geminitest.Text("The sum is 5.")),
	)
	code, out, errOut := session{}.run(t, "-config", calcSettings(t), "-yes", "-prompt", "What is 2 + 3?")
	if code != 0 {
		t.Fatalf("agent exit %d, stderr:\n%s", code, errOut)
	}
	if out != "The sum is 5.\n" {
		t.Errorf("stdout = %q, want the final answer alone", out)
	}
	for _, want := range []string{
		`→ add {"a":2,"b":3}  (server "calc", tool "add")`,
		"✓ add\n  2 + 3 = 5\n",
		"agent: 3 tools from 1 of 1 servers",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if strings.Contains(errOut, "Allow?") {
		t.Errorf("-yes asked for confirmation:\n%s", errOut)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || reqs[0].Model != "gemini-2.5-flash" {
		t.Fatalf("the fake got %d requests, want 2 for gemini-2.5-flash", len(reqs))
	}
	var names []string
	for _, d := range reqs[0].Declarations() {
		names = append(names, d.Name)
	}
	if got := strings.Join(names, ","); got != "add,echo,slow" {
		t.Errorf("declared functions = %s, want add,echo,slow", got)
	}
	if srv.Remaining() != 0 {
		t.Errorf("%d scripted turns left", srv.Remaining())
	}
}

func TestPromptWithoutTerminalRefusesCalls(t *testing.T) {
	srv := fakeGemini(t,
		geminitest.Calls(geminitest.Call{Name: "add", Args: map[string]any{"a": 1, "b": 1}}),
		expect(t, "error", `function "add" was not run`, geminitest.Text("I was not allowed to add.")),
	)
	code, out, errOut := session{stdin: "o\n"}.run(t, "-config", calcSettings(t), "-prompt", "1+1?")
	if code != 0 || out != "I was not allowed to add.\n" {
		t.Fatalf("agent = exit %d, stdout %q, stderr:\n%s", code, out, errOut)
	}
	if strings.Contains(errOut, "Allow?") || !strings.Contains(errOut, "✗ add") {
		t.Errorf("stderr should show the refused call and ask nothing:\n%s", errOut)
	}
	if srv.Remaining() != 0 {
		t.Errorf("%d scripted turns left", srv.Remaining())
	}
}

func TestWithoutSettings(t *testing.T) {
	srv := fakeGemini(t, geminitest.Text("Hello!"))
	code, out, errOut := session{}.run(t, "-prompt", "Hi", "-model", "gemini-3-flash")
	if code != 0 || out != "Hello!\n" {
		t.Fatalf("agent = exit %d, stdout %q, stderr:\n%s", code, out, errOut)
	}
	if want := "agent: no MCP servers configured (no settings file found; use -config FILE): chatting without tools\n"; errOut != want {
		t.Errorf("stderr = %q, want %q", errOut, want)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || reqs[0].Model != "gemini-3-flash" || len(reqs[0].Config.Tools) != 0 {
		t.Errorf("requests = %d; want one for gemini-3-flash without tools", len(reqs))
	}
}

func TestBadInvocations(t *testing.T) {
	isolate(t)
	t.Setenv("GEMINI_API_KEY", "test")
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"unknown flag", []string{"-nope"}, 2, "agent: flag provided but not defined: -nope\n"},
		{"bad target", []string{"-target", "openai"}, 2, `unknown target "openai"`},
		{"stray argument", []string{"hello", "world"}, 2, `unexpected argument "hello" (quote the prompt: -prompt "hello world")`},
		{"max turns", []string{"-max-turns", "0"}, 2, "-max-turns 0: must be at least 1"},
		{"empty prompt", []string{"-prompt", " "}, 2, "-prompt is empty"},
		{"missing settings file", []string{"-config", "/nonexistent/settings.json"}, 2, "no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := session{}.run(t, tc.args...)
			if code != tc.code || out != "" || !strings.Contains(errOut, tc.want) || strings.Count(errOut, "\n") != 1 {
				t.Errorf("agent %v = exit %d, stdout %q, stderr %q; want exit %d, no stdout, one line containing %q",
					tc.args, code, out, errOut, tc.code, tc.want)
			}
		})
	}
}

func TestMissingKey(t *testing.T) {
	isolate(t)
	code, out, errOut := session{}.run(t, "-prompt", "hi")
	want := "agent: no MCP servers configured (no settings file found; use -config FILE): chatting without tools\n" +
		"agent: no API key: set GEMINI_API_KEY or GOOGLE_API_KEY (or GOOGLE_GENAI_USE_VERTEXAI=true for Vertex AI)\n"
	if code != 1 || out != "" || errOut != want {
		t.Errorf("agent without a key = exit %d, stdout %q, stderr %q; want exit 1 and stderr %q", code, out, errOut, want)
	}
}

// TestNoTerminal: /dev/null and a pipe are not terminals, so a -prompt run
// with stdin from either has nobody to ask (/dev/null is a character
// device, which is no sign of a person).
func TestNoTerminal(t *testing.T) {
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	if isTerminal(null) {
		t.Errorf("isTerminal(%s) = true, want false", os.DevNull)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if isTerminal(r) {
		t.Error("isTerminal(pipe) = true, want false")
	}
}
