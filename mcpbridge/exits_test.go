package mcpbridge

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/mcpbridge/internal/secrets"
	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
)

// exits records everything that leaves a Bridge: logs at every level (as
// text and as JSON), events, call results, returned errors and the status.
type exits struct {
	mu   sync.Mutex
	logs bytes.Buffer
	out  []string // one entry per exit, labelled
}

func (e *exits) Write(p []byte) (int, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.logs.Write(p)
}

func (e *exits) add(label string, v string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.out = append(e.out, label+": "+v)
}

// logger logs at debug level, as text and as JSON, into e.
func (e *exits) logger() *slog.Logger {
	opts := &slog.HandlerOptions{Level: slog.LevelDebug}
	text, js := slog.NewTextHandler(e, opts), slog.NewJSONHandler(e, opts)
	return slog.New(fanout{text, js})
}

// watch records every event of b until the returned stop is called.
func (e *exits) watch(b *Bridge) (stop func()) {
	ch, cancel := b.Subscribe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range ch {
			msg := ""
			if ev.Err != nil {
				msg = ev.Err.Error()
			}
			e.add("event", fmt.Sprintf("%v %s %v %q", ev.Kind, ev.Server, ev.State, msg))
		}
	}()
	return func() { cancel(); <-done }
}

// result records every field of r and its Part as JSON.
func (e *exits) result(r *CallResult) {
	var parts []string
	for _, p := range r.LLMContent {
		parts = append(parts, p.Text)
	}
	errText := ""
	if r.Err != nil {
		errText = r.Err.Error()
	}
	part, err := json.Marshal(r.Part())
	if err != nil {
		part = []byte(err.Error())
	}
	e.add("result", fmt.Sprintf("%s %s %s %s %q %q %q %s", r.Name, r.ID, r.Server, r.ServerTool, parts, r.ReturnDisplay, errText, part))
}

func (e *exits) err(label string, err error) {
	if err != nil {
		e.add(label, err.Error())
	}
}

func (e *exits) status(b *Bridge) {
	st := b.Status()
	js, err := json.Marshal(st)
	if err != nil {
		js = []byte(err.Error())
	}
	e.add("status", st.String()+"\n"+string(js))
}

// leaks returns every exit (and the logs) holding one of secrets.
func (e *exits) leaks(secrets ...string) []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var bad []string
	for _, s := range secrets {
		for _, o := range append(slices.Clone(e.out), "logs: "+e.logs.String()) {
			if strings.Contains(o, s) {
				bad = append(bad, fmt.Sprintf("%q in %.300s", s, o))
			}
		}
	}
	return bad
}

// fanout sends every record to several handlers.
type fanout []slog.Handler

func (f fanout) Enabled(ctx context.Context, l slog.Level) bool { return f[0].Enabled(ctx, l) }
func (f fanout) Handle(ctx context.Context, r slog.Record) error {
	for _, h := range f {
		_ = h.Handle(ctx, r.Clone())
	}
	return nil
}
func (f fanout) WithAttrs(a []slog.Attr) slog.Handler {
	out := make(fanout, len(f))
	for i, h := range f {
		out[i] = h.WithAttrs(a)
	}
	return out
}
func (f fanout) WithGroup(n string) slog.Handler {
	out := make(fanout, len(f))
	for i, h := range f {
		out[i] = h.WithGroup(n)
	}
	return out
}

func execute(e *exits, b *Bridge, name string, args map[string]any) *CallResult {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	r := b.Execute(ctx, &genai.FunctionCall{ID: "id-" + name, Name: name, Args: args})
	e.result(r)
	return r
}

// TestSecretsNeverLeaveHTTP: a secret in an httpUrl's query string (under a
// name no rule knows) and in a header stays inside the Bridge when the
// server echoes it and after the server becomes unreachable.
func TestSecretsNeverLeaveHTTP(t *testing.T) {
	const querySecret, headerSecret = "q7Zx9QuerySecret", "h3aderVal9"
	h := testserver.ServeHTTP(t, testserver.Options{}, false)
	cfg := ServerConfig{Name: "web", HTTPURL: h.URL + "?k=" + querySecret, Trust: true, Timeout: 5 * time.Second,
		Headers: map[string]string{"X-Tenant": headerSecret}}
	var e exits
	b := newBridge(t, &Options{Logger: e.logger(), ReconnectInterval: -1}, cfg)
	stop := e.watch(b)
	discover(t, b)
	if r := execute(&e, b, "echo", map[string]any{"text": "echo " + querySecret + " and " + headerSecret}); r.Err != nil {
		t.Fatalf("Execute(echo) = %v", r.Err)
	}
	h.Server.CloseClientConnections()
	h.Server.Close()
	for range 2 {
		if r := execute(&e, b, "echo", map[string]any{"text": "x"}); r.Err == nil {
			t.Errorf("Execute(echo) on a closed server = nil error")
		}
	}
	_, err := b.ListResources(context.Background(), "web")
	e.err("ListResources", err)
	e.status(b)
	_ = b.Close()
	stop()
	if !strings.Contains(e.logs.String(), secrets.Redacted) {
		t.Errorf("the logs never show %s; the test did not reach a failure that names the URL:\n%s", secrets.Redacted, e.logs.String())
	}
	for _, l := range e.leaks(querySecret, headerSecret) {
		t.Errorf("secret leaked: %s", l)
	}
}

// TestServerStderrNeverReachesModel: a stdio server that fails its
// reconnect after printing its environment (holding a credential under an
// innocent name) to stderr: the call's error holds neither the stderr nor
// the credential; the status shows the stderr, redacted.
func TestServerStderrNeverReachesModel(t *testing.T) {
	const secret = "innocentLooking42Value"
	cfg := stdioServer("s", "-fail-second-run="+filepath.Join(t.TempDir(), "ran"))
	cfg.Trust = true
	cfg.Env = map[string]string{"zz_build_label": secret} // printed last
	var e exits
	b := newBridge(t, &Options{Logger: e.logger(), ReconnectInterval: -1}, cfg)
	stop := e.watch(b)
	discover(t, b)
	execute(&e, b, "crash", nil)
	r := execute(&e, b, "echo", map[string]any{"text": "after"})
	if r.Err == nil {
		t.Fatalf("Execute(echo) after the crash = nil error, want the failed reconnect")
	}
	for _, p := range append([]string{r.ReturnDisplay, r.Err.Error()}, fmt.Sprint(r.FunctionResponse().Response)) {
		if strings.Contains(p, "mcptest: env") {
			t.Errorf("the call's result holds the server's stderr: %.300s", p)
		}
	}
	e.status(b)
	if st := b.Status().Servers[0].Stderr; !strings.Contains(st, "mcptest: env zz_build_label="+secrets.Redacted) {
		t.Errorf("Status().Stderr = %q, want the stderr with the value redacted", st)
	}
	_ = b.Close()
	stop()
	for _, l := range e.leaks(secret) {
		t.Errorf("secret leaked: %s", l)
	}
}

// TestSecretsProperty: for random configurations with random secret values
// in env, headers, URL user information and query, args and $VAR
// expansions, no secret appears in any output of a session that includes
// working calls that echo the secrets, failed servers and failed calls.
func TestSecretsProperty(t *testing.T) {
	const rounds = 4
	for round := range rounds {
		rng := rand.New(rand.NewPCG(uint64(round), 7))
		secret := func() string {
			const alnum = "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"
			n := 8 + rng.IntN(24)
			b := make([]byte, n)
			for i := range b {
				b[i] = alnum[rng.IntN(len(alnum))]
			}
			b[rng.IntN(n)] = '7' // letters and digits
			b[rng.IntN(n)] = 'k'
			return string(b)
		}
		name := func(prefix string) string { return fmt.Sprintf("%s_%d", prefix, rng.IntN(1000)) }
		var secrets []string
		keep := func(s string) string { secrets = append(secrets, s); return s }

		good := stdioServer("good", "--token", keep(secret()))
		good.Trust = true
		good.Env = map[string]string{name("PLAIN"): keep(secret()), name("DB_URL"): "postgres://u:" + keep(secret()) + "@db/x"}
		vars := map[string]string{"CFG_VALUE": keep(secret())}
		settings := fmt.Sprintf(`{"mcpServers": {"fromFile": {"command": %q, "args": ["-exit-now=1", "--label=$CFG_VALUE"]}}}`, mcptest)
		parsed, err := ParseSettings([]byte(settings), "settings.json", &SettingsOptions{
			LookupEnv: func(n string) (string, bool) { v, ok := vars[n]; return v, ok }})
		if err != nil {
			t.Fatalf("ParseSettings() = %v", err)
		}
		web := ServerConfig{Name: "web", HTTPURL: fmt.Sprintf("http://%s:%s@127.0.0.1:1/mcp?%s=%s", "user", keep(secret()), name("p"), keep(secret())),
			Headers: map[string]string{name("X-H"): keep(secret()), "Authorization": "Bearer " + keep(secret())}, Timeout: 2 * time.Second}
		dead := stdioServer("dead", "-exit-now=2")
		dead.Env = map[string]string{name("OPAQUE"): keep(secret())}

		var e exits
		b := newBridge(t, &Options{Logger: e.logger(), ReconnectInterval: -1}, good, parsed.Servers[0], web, dead)
		stop := e.watch(b)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		e.err("Discover", b.Discover(ctx))
		cancel()
		execute(&e, b, "echo", map[string]any{"text": strings.Join(secrets, " ")})
		execute(&e, b, "env", map[string]any{"var": "PLAIN"})
		execute(&e, b, "nope", map[string]any{"x": secrets[0]})
		execute(&e, b, "crash", nil)
		execute(&e, b, "echo", map[string]any{"text": secrets[1]})
		_, err = b.ReadResource(context.Background(), "web", "test://"+secrets[2])
		e.err("ReadResource", err)
		e.status(b)
		_ = b.Close()
		stop()
		for _, l := range e.leaks(secrets...) {
			t.Errorf("round %d: secret leaked: %s", round, l)
		}
	}
}

// TestStructuredContentRedacted: the structured content a host reads from
// CallResult.StructuredContent loses configured secrets like every other
// exit of a result.
func TestStructuredContentRedacted(t *testing.T) {
	const secret = "s7ructuredSecret42"
	r := redactor{secrets.NewKeyring(redactorFor(ServerConfig{Env: map[string]string{"API_TOKEN": secret}}))}
	sc := map[string]any{"note": "token " + secret, "list": []any{secret}}
	res := &CallResult{structured: sc, serverStructured: sc}
	r.redactResult(res)
	got, err := json.Marshal(res.StructuredContent())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(got), secret) || !strings.Contains(string(got), secrets.Redacted) {
		t.Errorf("StructuredContent() = %s, want the secret replaced by %s", got, secrets.Redacted)
	}
	if sc["note"] != "token "+secret {
		t.Errorf("redactResult modified the decoded value it was given: %v", sc["note"])
	}
}
