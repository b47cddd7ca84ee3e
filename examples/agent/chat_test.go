package main

import (
	"io"
	"os"
	"strings"
	"testing"

	"github.com/mcpgenai/bridge/geminitest"
)

// reply is a function response the model must receive: under key
// ("output" or "error"), a text containing text.
type reply struct{ key, text string }

func TestConfirmation(t *testing.T) {
	add := func(a, b int) geminitest.Call {
		return geminitest.Call{Name: "add", Args: map[string]any{"a": a, "b": b}}
	}
	echo := geminitest.Call{Name: "echo", Args: map[string]any{"text": "hi"}}
	for _, tc := range []struct {
		name     string
		args     []string
		terminal bool
		stdin    string
		calls    []geminitest.Call // one per model turn
		want     []reply           // what the model receives for each
		asked    int
	}{
		{
			name:  "once asks every time",
			stdin: "add twice\no\nONCE\n/quit\n",
			calls: []geminitest.Call{add(1, 2), add(3, 4)},
			want:  []reply{{"output", "1 + 2 = 3"}, {"output", "3 + 4 = 7"}},
			asked: 2,
		},
		{
			name:  "tool always asks once",
			stdin: "add twice\nt\n/quit\n",
			calls: []geminitest.Call{add(1, 2), add(3, 4)},
			want:  []reply{{"output", "1 + 2 = 3"}, {"output", "3 + 4 = 7"}},
			asked: 1,
		},
		{
			name:  "tool always does not cover other tools",
			stdin: "add then echo\ntool\nc\n/quit\n",
			calls: []geminitest.Call{add(1, 2), echo},
			want:  []reply{{"output", "1 + 2 = 3"}, {"error", "cancelled by the user"}},
			asked: 2,
		},
		{
			name:  "server always covers every tool of the server",
			stdin: "add then echo\ns\n/quit\n",
			calls: []geminitest.Call{add(1, 2), echo},
			want:  []reply{{"output", "1 + 2 = 3"}, {"output", "echo: hi"}},
			asked: 1,
		},
		{
			name:  "cancel tells the model",
			stdin: "add\nc\n/quit\n",
			calls: []geminitest.Call{add(1, 2)},
			want:  []reply{{"error", `function "add" was not run: cancelled by the user`}},
			asked: 1,
		},
		{
			name:  "an answer it cannot read is asked again",
			stdin: "add\nyes please\nc\n/quit\n",
			calls: []geminitest.Call{add(1, 2)},
			want:  []reply{{"error", "cancelled by the user"}},
			asked: 2,
		},
		{
			name:  "y runs once",
			stdin: "add\ny\n/quit\n",
			calls: []geminitest.Call{add(1, 2)},
			want:  []reply{{"output", "1 + 2 = 3"}},
			asked: 1,
		},
		{
			name:  "end of input cancels",
			stdin: "add\n",
			calls: []geminitest.Call{add(1, 2)},
			want:  []reply{{"error", "cancelled by the user"}},
			asked: 1,
		},
		{
			name:     "prompt on a terminal asks",
			args:     []string{"-prompt", "add"},
			terminal: true,
			stdin:    "o\n",
			calls:    []geminitest.Call{add(1, 2)},
			want:     []reply{{"output", "1 + 2 = 3"}},
			asked:    1,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			final := geminitest.Text("done")
			script := []geminitest.Turn{geminitest.Calls(tc.calls[0])}
			for i, w := range tc.want {
				next := final
				if i+1 < len(tc.calls) {
					next = geminitest.Calls(tc.calls[i+1])
				}
				script = append(script, expect(t, w.key, w.text, next))
			}
			srv := fakeGemini(t, script...)
			args := append([]string{"-config", calcSettings(t)}, tc.args...)
			code, out, errOut := session{stdin: tc.stdin, terminal: tc.terminal}.run(t, args...)
			if code != 0 || out != "done\n" {
				t.Fatalf("agent = exit %d, stdout %q, want 0 and %q; stderr:\n%s", code, out, "done\n", errOut)
			}
			if got := strings.Count(errOut, "Allow? [o]nce / [t]ool always / [s]erver always / [c]ancel: "); got != tc.asked {
				t.Errorf("asked %d times, want %d; stderr:\n%s", got, tc.asked, errOut)
			}
			if srv.Remaining() != 0 {
				t.Errorf("%d scripted turns left", srv.Remaining())
			}
		})
	}
}

func TestChatKeepsHistory(t *testing.T) {
	srv := fakeGemini(t,
		geminitest.Text("One."),
		func(req *geminitest.Request) geminitest.Response {
			var got []string
			for _, c := range req.Contents {
				got = append(got, c.Role+": "+c.Parts[0].Text)
			}
			if want := "user: first,model: One.,user: second"; strings.Join(got, ",") != want {
				t.Errorf("second request contents = %q, want %q", got, want)
			}
			return geminitest.Response{Parts: geminitest.Text("Two.")(req).Parts}
		},
	)
	code, out, errOut := session{stdin: "/mcp\nfirst\n\n/nope\nsecond\n"}.run(t, "-config", calcSettings(t))
	if code != 0 {
		t.Fatalf("agent exit %d, stderr:\n%s", code, errOut)
	}
	for _, want := range []string{"MCP Servers Status:", "calc (CONNECTED)", "Tools: add, echo, slow", "Discovery State: COMPLETED"} {
		if !strings.Contains(out, want) {
			t.Errorf("/mcp output lacks %q:\n%s", want, out)
		}
	}
	if !strings.HasSuffix(out, "\nOne.\nTwo.\n") {
		t.Errorf("stdout does not end with the two answers:\n%s", out)
	}
	if !strings.Contains(errOut, "agent: unknown command /nope") {
		t.Errorf("stderr lacks the unknown command note:\n%s", errOut)
	}
	if srv.Remaining() != 0 {
		t.Errorf("%d scripted turns left", srv.Remaining())
	}
}

func TestInterruptCancelsTheTurn(t *testing.T) {
	interrupt := make(chan os.Signal, 1)
	srv := fakeGemini(t,
		func(*geminitest.Request) geminitest.Response {
			interrupt <- os.Interrupt // Ctrl-C while the model answers or the tool runs
			return geminitest.Response{Parts: geminitest.Calls(geminitest.Call{Name: "slow"})(nil).Parts}
		},
		func(req *geminitest.Request) geminitest.Response {
			if len(req.Contents) != 1 || req.Contents[0].Parts[0].Text != "hello" {
				t.Errorf("after Ctrl-C the model got %d contents, want only the next message", len(req.Contents))
			}
			return geminitest.Text("Still here.")(req)
		},
	)
	code, out, errOut := session{stdin: "wait\nhello\n", interrupt: interrupt}.run(t, "-config", calcSettings(t), "-yes")
	if code != 0 || out != "Still here.\n" {
		t.Fatalf("agent = exit %d, stdout %q; stderr:\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "agent: cancelled\nagent: the message is forgotten; the chat goes on\n") {
		t.Errorf("stderr does not report the cancelled turn:\n%s", errOut)
	}
	if srv.Remaining() != 0 {
		t.Errorf("%d scripted turns left", srv.Remaining())
	}
}

func TestInterruptAtThePromptEndsTheChat(t *testing.T) {
	fakeGemini(t)
	pr, pw := io.Pipe() // input that never comes
	defer pw.Close()
	interrupt := make(chan os.Signal, 1)
	stderr := writerFunc(func(p []byte) (int, error) {
		if string(p) == "> " {
			interrupt <- os.Interrupt // Ctrl-C once the prompt is shown
		}
		return len(p), nil
	})
	con := &console{stdin: pr, stdout: io.Discard, stderr: stderr, interrupt: interrupt}
	if code := run(t.Context(), nil, con); code != 0 {
		t.Errorf("Ctrl-C at the prompt: exit %d, want 0", code)
	}
}

// writerFunc is an io.Writer calling itself.
type writerFunc func(p []byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
