package agent

import (
	"context"
	"errors"
	"iter"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/geminitest"
	"github.com/mcpgenai/bridge/mcpbridge"
	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
)

// The tests of the agent run it over real Bridges: mcp-go test servers
// (the stdio program, or in-process behind streamable HTTP) and a real
// genai.Client against geminitest.

// mcptest is the path of the stdio test server built by TestMain.
var mcptest string

func TestMain(m *testing.M) { testserver.Main(m, &mcptest) }

// e2eModel is the model name the tests ask for.
const e2eModel = "gemini-2.5-flash"

func prompt() []*genai.Content {
	return []*genai.Content{genai.NewContentFromText("go", genai.RoleUser)}
}

// mcptestExec is the trusted stdio test server with the exec tools.
func mcptestExec(name string) mcpbridge.ServerConfig {
	return mcpbridge.ServerConfig{Name: name, Command: mcptest, Args: []string{"-name=" + name, "-exec"},
		Timeout: 10 * time.Second, Trust: true}
}

// mcptestWith is the stdio test server with flags, not trusted.
func mcptestWith(name string, flags ...string) mcpbridge.ServerConfig {
	return mcpbridge.ServerConfig{Name: name, Command: mcptest, Args: append([]string{"-name=" + name}, flags...), Timeout: 10 * time.Second}
}

// sleepServer is an in-process test server (trusted, streamable HTTP)
// whose sleep calls signal started when they begin at the server and
// cancelled when the server sees their request cancelled.
func sleepServer(t *testing.T, name string) (cfg mcpbridge.ServerConfig, started, cancelled <-chan struct{}) {
	t.Helper()
	s, c := make(chan struct{}, 1), make(chan struct{}, 1)
	signal := func(ch chan struct{}) func() {
		return func() {
			select {
			case ch <- struct{}{}:
			default:
			}
		}
	}
	return inProcess(t, name, testserver.Options{OnSleepStarted: signal(s), OnSleepCancelled: signal(c)}), s, c
}

// inProcess runs the test server with o in-process behind streamable
// HTTP, trusted, until the test's end.
func inProcess(t *testing.T, name string, o testserver.Options) mcpbridge.ServerConfig {
	t.Helper()
	h := testserver.ServeHTTP(t, o, false)
	return mcpbridge.ServerConfig{Name: name, HTTPURL: h.URL, Timeout: 10 * time.Second, Trust: true}
}

// discovered returns a discovered Bridge for servers, closed at the
// test's end; opts nil means a quiet logger and nothing else.
func discovered(t *testing.T, opts *mcpbridge.Options, servers ...mcpbridge.ServerConfig) *mcpbridge.Bridge {
	t.Helper()
	var o mcpbridge.Options
	if opts != nil {
		o = *opts
	}
	if o.Logger == nil && os.Getenv("MCPBRIDGE_TEST_LOG") == "" {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	b, err := mcpbridge.New(&mcpbridge.Config{Servers: servers}, &o)
	if err != nil {
		t.Fatalf("mcpbridge.New() = %v", err)
	}
	t.Cleanup(func() { _ = b.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := b.Discover(ctx); err != nil {
		t.Fatalf("Discover() = %v", err)
	}
	for _, s := range b.Status().Servers {
		if s.State != mcpbridge.Connected {
			t.Fatalf("%s = %v (%s), want CONNECTED", s.Name, s.State, s.Error)
		}
	}
	return b
}

// newAgent returns an Agent over b, closed at the test's end.
func newAgent(t *testing.T, b *mcpbridge.Bridge, opts *Options) *Agent {
	t.Helper()
	a := New(b, opts)
	t.Cleanup(func() { _ = a.Close() })
	return a
}

// generatorFunc adapts a function to a ContentGenerator, for answers the
// fake endpoint cannot give (a blocked prompt, a nil response).
type generatorFunc func(context.Context, string, []*genai.Content, *genai.GenerateContentConfig) (*genai.GenerateContentResponse, error)

func (f generatorFunc) GenerateContent(ctx context.Context, model string, contents []*genai.Content, config *genai.GenerateContentConfig) (*genai.GenerateContentResponse, error) {
	return f(ctx, model, contents, config)
}

type streamerFunc func(context.Context, string, []*genai.Content, *genai.GenerateContentConfig) iter.Seq2[*genai.GenerateContentResponse, error]

func (f streamerFunc) GenerateContentStream(ctx context.Context, model string, contents []*genai.Content, cfg *genai.GenerateContentConfig) iter.Seq2[*genai.GenerateContentResponse, error] {
	return f(ctx, model, contents, cfg)
}

// tooComplex is a backend rule the schema checker cannot foresee: it
// rejects the declaration named name as the API rejects a schema too
// complex to serve.
func tooComplex(name string) geminitest.DeclarationRule {
	return func(d *genai.FunctionDeclaration) (string, string) {
		if d.Name == name {
			return "parameters", "schema produces a constraint that has too many states for serving"
		}
		return "", ""
	}
}

// TestSentinelWording holds the package's errors to mcpbridge's style: a
// short lowercase phrase without a package prefix or punctuation.
func TestSentinelWording(t *testing.T) {
	for name, err := range map[string]error{"ErrTurnLimit": ErrTurnLimit, "ErrNoAnswer": ErrNoAnswer,
		"ErrStreamedCall": ErrStreamedCall, "ErrCancelled": ErrCancelled, "ErrClosed": ErrClosed} {
		msg := err.Error()
		if msg == "" || msg != strings.ToLower(msg) || strings.ContainsAny(msg, ".:;,()\"") || len(strings.Fields(msg)) > 8 {
			t.Errorf("%s = %q, want a short lowercase phrase without punctuation", name, msg)
		}
	}
}

// TestClosedAgent: after Close, Run, RunStream and Live fail with
// ErrClosed before calling the model, and the Bridge stays usable.
func TestClosedAgent(t *testing.T) {
	b := discovered(t, nil, mcptestExec("main"))
	a := New(b, nil)
	_ = a.Close()
	_ = a.Close()
	gen := generatorFunc(func(context.Context, string, []*genai.Content, *genai.GenerateContentConfig) (*genai.GenerateContentResponse, error) {
		t.Errorf("Run() after Close called the model")
		return nil, errors.New("not expected")
	})
	ctx := context.Background()
	if res, err := a.Run(ctx, gen, e2eModel, prompt(), nil); !errors.Is(err, ErrClosed) || res == nil || res.Turns != 0 {
		t.Errorf("Run() after Close = %v, %v; want ErrClosed and no turn", res, err)
	}
	for ev, err := range a.RunStream(ctx, nil, e2eModel, prompt(), nil) {
		if ev.Kind != EventDone || !errors.Is(err, ErrClosed) {
			t.Errorf("RunStream() after Close = %v, %v; want EventDone with ErrClosed", ev.Kind, err)
		}
	}
	if _, err := a.Live(ctx, nil); !errors.Is(err, ErrClosed) {
		t.Errorf("Live() after Close = %v, want ErrClosed", err)
	}
	if r := b.Execute(ctx, &genai.FunctionCall{Name: "lookup", Args: map[string]any{"name": "ann"}}); r.Err != nil {
		t.Errorf("the Bridge after the Agent's Close: Execute = %v", r.Err)
	}
	// A closed Bridge fails the Agent's requests with its own error.
	_ = b.Close()
	if _, err := New(b, nil).Run(ctx, gen, e2eModel, prompt(), nil); !errors.Is(err, mcpbridge.ErrClosed) {
		t.Errorf("Run() on a closed Bridge = %v, want mcpbridge.ErrClosed", err)
	}
}

// TestOptionsContradict: a name both background and foreground fails
// every loop before a request.
func TestOptionsContradict(t *testing.T) {
	b := discovered(t, nil)
	a := newAgent(t, b, &Options{Background: []string{"x"}, Foreground: []string{"x"}})
	ctx := context.Background()
	if _, err := a.Run(ctx, nil, e2eModel, prompt(), nil); err == nil || !strings.Contains(err.Error(), `"x" is both background and foreground`) {
		t.Errorf("Run() = %v, want the contradiction", err)
	}
	if _, err := a.Live(ctx, nil); err == nil || !strings.Contains(err.Error(), "both") {
		t.Errorf("Live() = %v, want the contradiction", err)
	}
}

// TestNewCopiesOptions: changing the Options after New changes nothing.
func TestNewCopiesOptions(t *testing.T) {
	b := discovered(t, nil)
	o := &Options{Background: []string{"a"}, Foreground: []string{"b"}, MaxTurns: 3}
	a := newAgent(t, b, o)
	o.Background[0], o.Foreground[0], o.MaxTurns = "b", "a", 9
	if a.o.Background[0] != "a" || a.o.Foreground[0] != "b" || a.o.MaxTurns != 3 {
		t.Errorf("the Agent's options = %+v after the caller's changes", a.o)
	}
}

// declaredNames returns the names of req's function declarations, in
// order across its tools.
func declaredNames(req *geminitest.Request) []string {
	var names []string
	for _, d := range req.Declarations() {
		names = append(names, d.Name)
	}
	return names
}

// toolsDeclaring counts the tools of req that hold function declarations.
func toolsDeclaring(req *geminitest.Request) int {
	n := 0
	for _, t := range req.Config.Tools {
		if len(t.FunctionDeclarations) > 0 {
			n++
		}
	}
	return n
}
