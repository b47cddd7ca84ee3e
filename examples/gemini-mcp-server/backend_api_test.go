package main

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpgenai/bridge/examples/internal/genaienv"
	"github.com/mcpgenai/bridge/geminitest"
	"google.golang.org/genai"
)

// newTestAPIBackend returns an API backend talking to a fake Gemini that
// answers with script, and the fake.
func newTestAPIBackend(t *testing.T, model string, script ...geminitest.Turn) (*apiBackend, *geminitest.Server) {
	t.Helper()
	srv := geminitest.New(t, nil, script...)
	client, err := genai.NewClient(t.Context(), srv.ClientConfig())
	if err != nil {
		t.Fatalf("genai.NewClient: %v", err)
	}
	return newAPIBackend(client, model, 0, 0), srv
}

// contents renders what the fake received as "role: text" lines.
func contents(req *geminitest.Request) []string {
	var out []string
	for _, c := range req.Contents {
		var text []string
		for _, p := range c.Parts {
			text = append(text, p.Text)
		}
		out = append(out, c.Role+": "+strings.Join(text, ""))
	}
	return out
}

// systemInstruction renders the system instruction the fake received; ""
// when there was none.
func systemInstruction(req *geminitest.Request) string {
	if req.Config.SystemInstruction == nil {
		return ""
	}
	var text []string
	for _, p := range req.Config.SystemInstruction.Parts {
		text = append(text, p.Text)
	}
	return strings.Join(text, "")
}

func mustChat(t *testing.T, b backend, tr turn) answer {
	t.Helper()
	a, err := b.Chat(t.Context(), tr)
	if err != nil {
		t.Fatalf("Chat(%+v) = %v", tr, err)
	}
	return a
}

func mustReply(t *testing.T, b backend, tr turn) answer {
	t.Helper()
	a, err := b.Reply(t.Context(), tr)
	if err != nil {
		t.Fatalf("Reply(%+v) = %v", tr, err)
	}
	return a
}

func TestAPIBackendCarriesHistory(t *testing.T) {
	b, srv := newTestAPIBackend(t, "", geminitest.Text("Hi there."), geminitest.Text("Sure."))
	first := mustChat(t, b, turn{Prompt: "Hello", SystemPrompt: "Be brief."})
	if first.Text != "Hi there." || first.SessionID == "" {
		t.Fatalf("Chat = %+v, want text %q and a session ID", first, "Hi there.")
	}
	second := mustReply(t, b, turn{Prompt: "More?", SessionID: first.SessionID})
	if want := (answer{Text: "Sure.", SessionID: first.SessionID}); second != want {
		t.Errorf("Reply = %+v, want %+v", second, want)
	}

	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("the fake got %d requests, want 2", len(reqs))
	}
	wants := []struct {
		model, system string
		contents      []string
	}{
		{"gemini-2.5-flash", "Be brief.", []string{"user: Hello"}},
		{"gemini-2.5-flash", "Be brief.", []string{"user: Hello", "model: Hi there.", "user: More?"}},
	}
	for i, want := range wants {
		if reqs[i].Model != want.model {
			t.Errorf("request %d: model = %q, want %q", i, reqs[i].Model, want.model)
		}
		if got := systemInstruction(reqs[i]); got != want.system {
			t.Errorf("request %d: system instruction = %q, want %q", i, got, want.system)
		}
		if diff := cmp.Diff(want.contents, contents(reqs[i])); diff != "" {
			t.Errorf("request %d: contents (-want +got):\n%s", i, diff)
		}
	}
}

func TestAPIBackendModel(t *testing.T) {
	tests := []struct {
		name         string
		defaultModel string
		chatModel    string
		replyModels  []string // one reply per entry
		want         []string // model of each request: chat, then replies
	}{
		{name: "built-in default", want: []string{"gemini-2.5-flash"}},
		{name: "flag default", defaultModel: "gemini-x", replyModels: []string{""}, want: []string{"gemini-x", "gemini-x"}},
		{name: "chat's model sticks", chatModel: "gemini-3-flash", replyModels: []string{""}, want: []string{"gemini-3-flash", "gemini-3-flash"}},
		{
			name: "reply's model is for one turn", chatModel: "gemini-3-flash", replyModels: []string{"gemini-3-pro", ""},
			want: []string{"gemini-3-flash", "gemini-3-pro", "gemini-3-flash"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			script := make([]geminitest.Turn, len(tt.want))
			for i := range script {
				script[i] = geminitest.Text("ok")
			}
			b, srv := newTestAPIBackend(t, tt.defaultModel, script...)
			a := mustChat(t, b, turn{Prompt: "p", Model: tt.chatModel})
			for _, m := range tt.replyModels {
				mustReply(t, b, turn{Prompt: "q", SessionID: a.SessionID, Model: m})
			}
			var got []string
			for _, r := range srv.Requests() {
				got = append(got, r.Model)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("models requested (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAPIBackendSystemPrompt(t *testing.T) {
	b, srv := newTestAPIBackend(t, "", geminitest.Text("1"), geminitest.Text("2"), geminitest.Text("3"))
	a := mustChat(t, b, turn{Prompt: "p"})
	mustReply(t, b, turn{Prompt: "q", SessionID: a.SessionID, SystemPrompt: "Speak French."})
	mustReply(t, b, turn{Prompt: "r", SessionID: a.SessionID})
	var got []string
	for _, r := range srv.Requests() {
		got = append(got, systemInstruction(r))
	}
	want := []string{"", "Speak French.", "Speak French."}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("system instructions (-want +got):\n%s", diff)
	}
	if srv.Requests()[0].Config.SystemInstruction != nil {
		t.Errorf("chat without systemPrompt sent a systemInstruction")
	}
}

func TestAPIBackendLatestSession(t *testing.T) {
	b, srv := newTestAPIBackend(t, "",
		geminitest.Text("a1"), geminitest.Text("b1"), geminitest.Text("b2"), geminitest.Text("a2"), geminitest.Text("a3"))
	a := mustChat(t, b, turn{Prompt: "A"})
	bs := mustChat(t, b, turn{Prompt: "B"})
	if got := mustReply(t, b, turn{Prompt: "to latest"}); got.SessionID != bs.SessionID {
		t.Errorf("Reply without ID continued %q, want the latest chat %q", got.SessionID, bs.SessionID)
	}
	mustReply(t, b, turn{Prompt: "to A", SessionID: a.SessionID})
	if got := mustReply(t, b, turn{Prompt: "to latest again"}); got.SessionID != a.SessionID {
		t.Errorf("Reply without ID continued %q, want the last used %q", got.SessionID, a.SessionID)
	}
	reqs := srv.Requests()
	want := [][]string{
		{"user: A"},
		{"user: B"},
		{"user: B", "model: b1", "user: to latest"},
		{"user: A", "model: a1", "user: to A"},
		{"user: A", "model: a1", "user: to A", "model: a2", "user: to latest again"},
	}
	var got [][]string
	for _, r := range reqs {
		got = append(got, contents(r))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("contents (-want +got):\n%s", diff)
	}
}

func TestAPIBackendErrors(t *testing.T) {
	tests := []struct {
		name     string
		script   []geminitest.Turn
		chat     bool // start with a successful chat
		reply    turn
		wantErr  string // substring
		wantIs   error
		requests int // requests the fake received in all
	}{
		{name: "no session yet", reply: turn{Prompt: "p"}, wantErr: "no session yet", wantIs: errNoSession},
		{
			name: "unknown session", script: []geminitest.Turn{geminitest.Text("ok")}, chat: true,
			reply: turn{Prompt: "p", SessionID: "nope"}, wantErr: `unknown session "nope"`, wantIs: errUnknownSession, requests: 1,
		},
		{
			name: "API error", script: []geminitest.Turn{geminitest.Text("ok"), geminitest.Fail(http.StatusTooManyRequests, "Quota exceeded.")},
			chat: true, reply: turn{Prompt: "p"}, wantErr: "Quota exceeded.", requests: 2,
		},
		{
			name:   "answer without text",
			script: []geminitest.Turn{geminitest.Text("ok"), geminitest.Reply(geminitest.Response{FinishReason: genai.FinishReasonSafety})},
			chat:   true, reply: turn{Prompt: "p"}, wantErr: "no text (finish reason SAFETY)", requests: 2,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, srv := newTestAPIBackend(t, "", tt.script...)
			if tt.chat {
				mustChat(t, b, turn{Prompt: "start"})
			}
			_, err := b.Reply(t.Context(), tt.reply)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Reply(%+v) = %v, want an error containing %q", tt.reply, err, tt.wantErr)
			}
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("Reply(%+v) = %v, want errors.Is %v", tt.reply, err, tt.wantIs)
			}
			if got := len(srv.Requests()); got != tt.requests {
				t.Errorf("the fake got %d requests, want %d", got, tt.requests)
			}
		})
	}
}

func TestAPIBackendFailedTurnLeavesNoTrace(t *testing.T) {
	b, srv := newTestAPIBackend(t, "",
		geminitest.Fail(http.StatusServiceUnavailable, "overloaded"),
		geminitest.Text("one"),
		geminitest.Fail(http.StatusServiceUnavailable, "overloaded"),
		geminitest.Text("two"))
	if _, err := b.Chat(t.Context(), turn{Prompt: "lost"}); err == nil {
		t.Fatal("Chat against an overloaded model succeeded")
	}
	if n := b.sessions.len(); n != 0 {
		t.Errorf("a failed chat kept %d sessions, want 0", n)
	}
	a := mustChat(t, b, turn{Prompt: "first"})
	if _, err := b.Reply(t.Context(), turn{Prompt: "dropped", SessionID: a.SessionID}); err == nil {
		t.Fatal("Reply against an overloaded model succeeded")
	}
	mustReply(t, b, turn{Prompt: "second", SessionID: a.SessionID})
	reqs := srv.Requests()
	want := []string{"user: first", "model: one", "user: second"}
	if diff := cmp.Diff(want, contents(reqs[len(reqs)-1])); diff != "" {
		t.Errorf("contents after a failed turn (-want +got):\n%s", diff)
	}
}

func TestAPIBackendSerializesReplies(t *testing.T) {
	slow := func(text string) geminitest.Turn {
		return func(*geminitest.Request) geminitest.Response {
			time.Sleep(50 * time.Millisecond) // long enough for the replies to overlap if not serialized
			return geminitest.Response{Parts: []*genai.Part{{Text: text}}}
		}
	}
	b, srv := newTestAPIBackend(t, "", geminitest.Text("start"), slow("x"), slow("y"))
	a := mustChat(t, b, turn{Prompt: "p"})
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range 2 {
		wg.Go(func() {
			_, errs[i] = b.Reply(context.Background(), turn{Prompt: "q", SessionID: a.SessionID})
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("reply %d: %v", i, err)
		}
	}
	var lens []int
	for _, r := range srv.Requests()[1:] {
		lens = append(lens, len(r.Contents))
	}
	slices.Sort(lens)
	if diff := cmp.Diff([]int{3, 5}, lens); diff != "" {
		t.Errorf("contents per concurrent reply (-want +got):\n%s", diff)
	}
}

func TestAPIBackendTimeout(t *testing.T) {
	// The model answers only when the test ends: the backend's timeout is
	// the one way Chat can return in time.
	release := make(chan struct{})
	block := func(req *geminitest.Request) geminitest.Response {
		<-release
		return geminitest.Response{Parts: []*genai.Part{{Text: "late"}}}
	}
	srv := geminitest.New(t, nil, block)
	t.Cleanup(func() { close(release) }) // runs before the server's cleanup
	client, err := genai.NewClient(t.Context(), srv.ClientConfig())
	if err != nil {
		t.Fatal(err)
	}
	b := newAPIBackend(client, "", 50*time.Millisecond, 0)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	_, err = b.Chat(ctx, turn{Prompt: "p"})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Chat with a 50ms timeout = %v, want context.DeadlineExceeded", err)
	}
	// The caller's minute is still running: the 50ms timeout ended it.
	if ctx.Err() != nil {
		t.Errorf("caller's context after Chat = %v, want it live (the 50ms timeout, not the caller, ended the call)", ctx.Err())
	}
}

// TestGenAIClientFromEnvironment checks that the API backend works with the
// client the program creates from genai's environment variables,
// GOOGLE_GEMINI_BASE_URL included.
func TestGenAIClientFromEnvironment(t *testing.T) {
	srv := geminitest.New(t, &geminitest.Options{APIKey: "env-key"}, geminitest.Text("from the fake"))
	t.Setenv("GOOGLE_GEMINI_BASE_URL", srv.URL())
	t.Setenv("GEMINI_API_KEY", "env-key")
	t.Setenv("GOOGLE_API_KEY", "")
	t.Setenv("GOOGLE_GENAI_USE_VERTEXAI", "")
	t.Setenv("GOOGLE_GENAI_USE_ENTERPRISE", "")
	client, err := genaienv.NewClient(t.Context(), "")
	if err != nil {
		t.Fatalf("genaienv.NewClient() = %v", err)
	}
	t.Cleanup(http.DefaultTransport.(*http.Transport).CloseIdleConnections)
	b := newAPIBackend(client, "", 0, 0)
	a := mustChat(t, b, turn{Prompt: "hi"})
	if a.Text != "from the fake" {
		t.Errorf("Chat = %+v, want the fake's answer", a)
	}
	if got := srv.Requests()[0].Header.Get("x-goog-api-key"); got != "env-key" {
		t.Errorf("API key sent = %q, want %q", got, "env-key")
	}
}
