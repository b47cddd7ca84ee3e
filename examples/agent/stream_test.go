package main

import (
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/geminitest"
)

// TestStreamsTheAnswer: the model's text reaches stdout chunk by chunk, the
// second chunk only after the first was written.
func TestStreamsTheAnswer(t *testing.T) {
	out := newWatchedWriter()
	fakeGemini(t, geminitest.Reply(geminitest.Response{
		Parts: []*genai.Part{{Text: "Hello, "}, {Text: "world."}},
		BeforeChunk: func(i int) {
			if i == 1 {
				out.waitFor(t, "Hello, ")
			}
		},
	}))
	con := &console{stdin: strings.NewReader(""), stdout: out, stderr: &strings.Builder{}}
	if code := run(t.Context(), []string{"-prompt", "hi"}, con); code != 0 {
		t.Fatalf("agent exit %d", code)
	}
	if got := out.String(); got != "Hello, world.\n" {
		t.Errorf("stdout = %q, want the two chunks and a newline", got)
	}
}

// TestLiveMode: -live talks to the Live endpoint, runs the tool the model
// calls and prints the model's text.
func TestLiveMode(t *testing.T) {
	srv := fakeGemini(t,
		geminitest.Calls(geminitest.Call{Name: "add", Args: map[string]any{"a": 2, "b": 3}}),
		expect(t, "output", "2 + 3 = 5", geminitest.Text("The sum is 5.")),
		geminitest.Text("Bye."),
	)
	u, _ := url.Parse(srv.URL())
	u.Scheme = "ws"
	t.Setenv("GOOGLE_GEMINI_BASE_URL", u.String())
	code, out, errOut := session{stdin: "What is 2 + 3?\nbye\n"}.run(t, "-config", calcSettings(t), "-yes", "-live", "-model", "gemini-live-2.5-flash-preview")
	if code != 0 {
		t.Fatalf("agent -live exit %d, stderr:\n%s", code, errOut)
	}
	if out != "The sum is 5.\nBye.\n" {
		t.Errorf("stdout = %q, want the two answers", out)
	}
	for _, want := range []string{`→ add {"a":2,"b":3}`, "✓ add\n  2 + 3 = 5\n", "Live session with gemini-live-2.5-flash-preview"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	reqs := srv.Requests()
	if len(reqs) == 0 || !reqs[0].Live || reqs[0].Declaration("add") == nil {
		t.Errorf("the Live setup did not declare the tools")
	}
	for _, r := range reqs {
		if r.Rejection != "" {
			t.Errorf("the fake refused: %s", r.Rejection)
		}
	}
	if srv.Remaining() != 0 {
		t.Errorf("%d turns left", srv.Remaining())
	}
}

// watchedWriter is a writer a test can wait on.
type watchedWriter struct {
	mu      sync.Mutex
	b       strings.Builder
	changed chan struct{}
}

func newWatchedWriter() *watchedWriter { return &watchedWriter{changed: make(chan struct{}, 1)} }

func (w *watchedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.b.Write(p)
	select {
	case w.changed <- struct{}{}:
	default:
	}
	return len(p), nil
}

func (w *watchedWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// waitFor waits until the written text is want.
func (w *watchedWriter) waitFor(t *testing.T, want string) {
	deadline := time.After(30 * time.Second)
	for w.String() != want {
		select {
		case <-w.changed:
		case <-deadline:
			t.Errorf("stdout = %q, never became %q", w.String(), want)
			return
		}
	}
}
