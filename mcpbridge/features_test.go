package mcpbridge

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/mcpbridge/elicit"
	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
)

// featureServers are the features test server over stdio in both eras
// and over streamable HTTP in both eras, each with a secret in its
// configuration.
func featureServers(t *testing.T) []ServerConfig {
	t.Helper()
	var out []ServerConfig
	for _, era := range []string{"modern", "legacy"} {
		s := stdioServer("stdio-"+era, "-features", "-era="+era)
		out = append(out, s)
	}
	for _, era := range []testserver.Era{testserver.EraModern, testserver.EraLegacy} {
		s, _ := httpServer(t, "http-"+era.String(), TransportHTTP, testserver.Options{Features: true, Era: era})
		out = append(out, s)
	}
	for i := range out {
		out[i].Trust = true
		out[i].Secrets = []string{featureSecret}
	}
	return out
}

// featureSecret is a configured secret a server's log message repeats.
const featureSecret = "s3cr3t-feature-value"

// execText runs the tool of server through Execute and returns its
// display text, failing on an error.
func execText(t *testing.T, b *Bridge, server, tool string, args map[string]any) string {
	t.Helper()
	r := runTool(t, b, server, tool, args)
	if r.Err != nil {
		t.Fatalf("Execute(%s/%s) = %v", server, tool, r.Err)
	}
	return r.ReturnDisplay
}

func runTool(t *testing.T, b *Bridge, server, tool string, args map[string]any) *CallResult {
	t.Helper()
	name := ""
	for _, tl := range b.Tools() {
		if tl.Server == server && tl.ServerTool == tool {
			name = tl.Name
		}
	}
	if name == "" {
		t.Fatalf("no tool %s/%s among %v", server, tool, toolNamesOf(b.Tools()))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return b.Execute(ctx, &genai.FunctionCall{Name: name, Args: args})
}

// records is a slog handler keeping every record.
type records struct {
	mu   sync.Mutex
	recs []slog.Record
}

func (r *records) Enabled(context.Context, slog.Level) bool { return true }
func (r *records) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	r.recs = append(r.recs, rec.Clone())
	r.mu.Unlock()
	return nil
}
func (r *records) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r *records) WithGroup(string) slog.Handler      { return r }

// find returns the records whose attribute "server" is server and whose
// message contains text.
func (r *records) find(server, text string) []slog.Record {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []slog.Record
	for _, rec := range r.recs {
		match := false
		rec.Attrs(func(a slog.Attr) bool {
			match = match || (a.Key == "server" && a.Value.String() == server)
			return true
		})
		if match && strings.Contains(rec.Message, text) {
			out = append(out, rec)
		}
	}
	return out
}

// TestClientFeaturesBridge: through the public API, over stdio and
// streamable HTTP in both eras: roots (and SetRoots), log messages at the
// level asked for in the Logger with the server's name and redacted,
// resource subscriptions and list changes as events, completions, icons
// in the types and the status, defaults of an accepted form, and the
// URLElicitationRequired retry.
func TestClientFeaturesBridge(t *testing.T) {
	servers := featureServers(t)
	dir := t.TempDir()
	root, err := DirRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	logs := &records{}
	var mu sync.Mutex
	var asked []elicit.Request
	answer := elicit.Response{Action: elicit.Accept}
	el := func(_ context.Context, e elicit.Request) (elicit.Response, error) {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, e)
		return answer, nil
	}
	b := newBridge(t, &Options{Logger: slog.New(logs), Client: &ClientFeatures{Elicit: el, Roots: []Root{root}, LogLevel: LogWarning}}, servers...)
	events, stop := b.Subscribe()
	defer stop()
	discover(t, b)

	for _, sc := range servers {
		t.Run(sc.Name, func(t *testing.T) {
			ctx := context.Background()
			if got := execText(t, b, sc.Name, "roots", nil); !strings.Contains(got, root.URI) {
				t.Errorf("roots = %s, want %s", got, root.URI)
			}

			// Logging: warning and above, with the server's name, redacted.
			// A message may be lost by the HTTP test server (see mcpconn's
			// TestClientFeatures): ask again until one arrives.
			deadline := time.Now().Add(20 * time.Second)
			for len(logs.find(sc.Name, "loud")) == 0 && time.Now().Before(deadline) {
				execText(t, b, sc.Name, "log", map[string]any{"level": "info", "message": "quiet"})
				execText(t, b, sc.Name, "log", map[string]any{"level": "critical", "logger": "db", "message": "loud " + featureSecret})
				time.Sleep(50 * time.Millisecond)
			}
			loud := logs.find(sc.Name, "loud")
			if len(loud) == 0 {
				t.Fatal("the critical log message never reached the Logger")
			}
			if loud[0].Level != slog.LevelError+1 || strings.Contains(loud[0].Message, featureSecret) {
				t.Errorf("log record = %v %q, want level ERROR+1 and the secret redacted", loud[0].Level, loud[0].Message)
			}
			if q := logs.find(sc.Name, "quiet"); len(q) > 0 {
				t.Errorf("info message logged with level warning asked: %q", q[0].Message)
			}

			// Resources: a subscription's updates and list changes as events.
			unsubscribe, err := b.SubscribeResource(ctx, sc.Name, "test://watched")
			if err != nil {
				t.Fatalf("SubscribeResource() = %v", err)
			}
			provokeEvent(t, events, func(e Event) bool {
				return e.Kind == EventResourceUpdated && e.Server == sc.Name && e.URI == "test://watched"
			}, func() { execText(t, b, sc.Name, "touch", map[string]any{"uri": "test://watched"}) })
			if err := unsubscribe(); err != nil {
				t.Errorf("unsubscribe() = %v", err)
			}
			n := 0
			provokeEvent(t, events, func(e Event) bool { return e.Kind == EventResourcesChanged && e.Server == sc.Name }, func() {
				n++
				execText(t, b, sc.Name, "add_resource", map[string]any{"name": sc.Name + string(rune('a'+n%26))})
			})

			// Completions of a prompt argument and a template argument.
			c, err := b.Complete(ctx, CompletionRequest{Server: sc.Name, Prompt: "colour", Argument: "name", Value: "b"})
			if err != nil || !cmp.Equal(c.Values, []string{"blue", "brown"}) || c.Total != 2 {
				t.Errorf("Complete(colour, b) = %+v, %v; want blue and brown", c, err)
			}
			c, err = b.Complete(ctx, CompletionRequest{Server: sc.Name, ResourceTemplate: "test://files/{name}", Argument: "name", Value: "no"})
			if err != nil || !cmp.Equal(c.Values, []string{"notes.txt"}) {
				t.Errorf("Complete(files, no) = %+v, %v; want notes.txt", c, err)
			}

			// Icons: the server's, a tool's (the javascript: one dropped), a
			// prompt's, a resource's and a template's.
			want := []Icon{{Src: testserver.Icon.Src, MIMEType: "image/png", Sizes: []string{"48x48"}}}
			tool := toolOf(t, b, sc.Name, "roots")
			if diff := cmp.Diff(want, tool.Icons); diff != "" {
				t.Errorf("Tool.Icons (-want +got):\n%s", diff)
			}
			st := statusOf(t, b, sc.Name)
			if diff := cmp.Diff(want, st.Icons); diff != "" {
				t.Errorf("ServerStatus.Icons (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(want, st.ToolIcons[tool.Name]); diff != "" {
				t.Errorf("ServerStatus.ToolIcons (-want +got):\n%s", diff)
			}
			js, err := json.Marshal(b.Status())
			if err != nil || !strings.Contains(string(js), `"icons":[{"src":"https://example.com/icon.png"`) || strings.Contains(string(js), "javascript:") {
				t.Errorf("status JSON lacks the icons or keeps the unsafe one: %s", js)
			}
			prompts, err := b.ListPrompts(ctx, sc.Name)
			if err != nil || !hasIcons(prompts, func(p Prompt) (string, []Icon) { return p.Name, p.Icons }, "colour", want) {
				t.Errorf("ListPrompts() = %+v, %v; want colour with its icon", prompts, err)
			}
			res, err := b.ListResources(ctx, sc.Name)
			if err != nil || !hasIcons(res, func(r Resource) (string, []Icon) { return r.URI, r.Icons }, "test://watched", want) {
				t.Errorf("ListResources() = %+v, %v; want test://watched with its icon", res, err)
			}
			if !hasIcons(res, func(r Resource) (string, []Icon) { return r.URITemplate, r.Icons }, "test://files/{name}", want) {
				t.Errorf("ListResources() = %+v; want the files template with its icon", res)
			}
			for _, r := range res {
				if (r.URI == "") == (r.URITemplate == "") {
					t.Errorf("ListResources() entry %+v: want exactly one of URI and URITemplate", r)
				}
			}

			// An accepted form takes the schema's defaults for what was left out.
			mu.Lock()
			asked, answer = nil, elicit.Response{Action: elicit.Accept, Content: map[string]any{"name": "Ada"}}
			mu.Unlock()
			if got := execText(t, b, sc.Name, "ask_defaults", nil); got != `got {"age":30,"name":"Ada","status":"active"}` {
				t.Errorf("ask_defaults = %s, want the user's name and the other defaults", got)
			}

			// An unsafe URL never reaches the host.
			mu.Lock()
			asked = nil
			mu.Unlock()
			r := runTool(t, b, sc.Name, "ask_bad_url", nil)
			mu.Lock()
			if len(asked) != 0 {
				t.Errorf("the host was asked to visit %q", asked[0].URL)
			}
			mu.Unlock()
			if r.Err == nil && strings.Contains(r.ReturnDisplay, "accept") {
				t.Errorf("ask_bad_url = %q: accepted though nobody was asked", r.ReturnDisplay)
			}

			// URLElicitationRequired: the page is put to the host, then the
			// call is made once more. (A 2026-07-28 server asks with an
			// input_required result instead; mcp-go's sends this error as
			// an internal error there.)
			if strings.HasSuffix(sc.Name, "modern") {
				return
			}
			mu.Lock()
			asked, answer = nil, elicit.Response{Action: elicit.Accept}
			mu.Unlock()
			if got := execText(t, b, sc.Name, "need_url", map[string]any{"key": sc.Name}); got != "authorized" {
				t.Errorf("need_url = %q, want authorized after the visit", got)
			}
			mu.Lock()
			if len(asked) != 1 || asked[0].URL != "https://example.com/login" || asked[0].ID != "login-1" || asked[0].ServerTool != "need_url" || asked[0].Message != "please log in" {
				t.Errorf("asked %+v, want the login page once", asked)
			}
			asked, answer = nil, elicit.Response{Action: elicit.Decline}
			mu.Unlock()
			r = runTool(t, b, sc.Name, "need_url", map[string]any{"key": sc.Name + "-declined"})
			if !errors.Is(r.Err, ErrURLElicitation) || !strings.Contains(r.Err.Error(), "declined") {
				t.Errorf("need_url declined = %q, %v; want ErrURLElicitation saying so", r.ReturnDisplay, r.Err)
			}

		})
	}
}

// provokeEvent provokes until an event matching ok arrives, failing after
// 20 s.
func provokeEvent(t *testing.T, events <-chan Event, ok func(Event) bool, provoke func()) {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		provoke()
		tick := time.After(300 * time.Millisecond)
		for waiting := true; waiting; {
			select {
			case e := <-events:
				if ok(e) {
					return
				}
			case <-tick:
				waiting = false
			case <-deadline:
				t.Fatal("expected event not seen within 20s")
			}
		}
	}
}

func toolOf(t *testing.T, b *Bridge, server, tool string) *Tool {
	t.Helper()
	for _, tl := range b.Tools() {
		if tl.Server == server && tl.ServerTool == tool {
			return tl
		}
	}
	t.Fatalf("no tool %s/%s", server, tool)
	return nil
}

func statusOf(t *testing.T, b *Bridge, server string) ServerStatus {
	t.Helper()
	for _, s := range b.Status().Servers {
		if s.Name == server {
			return s
		}
	}
	t.Fatalf("no status of %s", server)
	return ServerStatus{}
}

func hasIcons[T any](list []T, of func(T) (string, []Icon), key string, want []Icon) bool {
	for _, x := range list {
		if k, ic := of(x); k == key {
			return cmp.Equal(ic, want)
		}
	}
	return false
}

// TestClientFeaturesRefused: what the host did not offer or the server
// did not declare is refused plainly.
func TestClientFeaturesRefused(t *testing.T) {
	if _, err := New(&Config{}, &Options{Client: &ClientFeatures{Roots: []Root{{URI: "https://example.com/"}}}}); err == nil {
		t.Error("New() with an https root = nil, want an error")
	}
	if _, err := New(&Config{}, &Options{Client: &ClientFeatures{LogLevel: "loud"}}); err == nil {
		t.Error("New() with log level loud = nil, want an error")
	}
	plain := stdioServer("plain")
	plain.Trust = true
	b := newBridge(t, nil, plain)
	discover(t, b)
	ctx := context.Background()
	if err := b.SetRoots(ctx, nil); !errors.Is(err, ErrNoRoots) {
		t.Errorf("SetRoots() without roots offered = %v, want ErrNoRoots", err)
	}
	if _, err := b.SubscribeResource(ctx, "plain", "test://hello"); !errors.Is(err, ErrNotOffered) {
		t.Errorf("SubscribeResource() on a server without subscriptions = %v, want ErrNotOffered", err)
	}
	c, err := b.Complete(ctx, CompletionRequest{Server: "plain", Prompt: "p", Argument: "a"})
	if err != nil || len(c.Values) != 0 {
		t.Errorf("Complete() on a server without completions = %+v, %v; want no values", c, err)
	}
	if _, err := b.Complete(ctx, CompletionRequest{Server: "plain", Argument: "a"}); err == nil {
		t.Error("Complete() naming neither prompt nor template = nil, want an error")
	}
	// Without Elicit, a URLElicitationRequired fails plainly.
	feat := stdioServer("feat", "-features", "-era=legacy")
	feat.Trust = true
	b2 := newBridge(t, nil, feat)
	discover(t, b2)
	r := runTool(t, b2, "feat", "need_url", map[string]any{"key": "x"})
	if !errors.Is(r.Err, ErrURLElicitation) || !strings.Contains(r.Err.Error(), "https://example.com/login") {
		t.Errorf("need_url without Elicit = %q, %v; want ErrURLElicitation naming the page", r.ReturnDisplay, r.Err)
	}
}

// TestSetRoots: new roots reach the servers, which are told.
func TestSetRoots(t *testing.T) {
	servers := featureServers(t)
	first, second := Root{URI: "file:///first", Name: "first"}, Root{URI: "file:///second/dir", Name: "second"}
	b := newBridge(t, &Options{Client: &ClientFeatures{Roots: []Root{first}}}, servers...)
	discover(t, b)
	if err := b.SetRoots(context.Background(), []Root{second}); err != nil {
		t.Fatalf("SetRoots() = %v", err)
	}
	for _, sc := range servers {
		got := execText(t, b, sc.Name, "roots", nil)
		if !strings.Contains(got, second.URI) || strings.Contains(got, first.URI) {
			t.Errorf("%s: roots after SetRoots = %s, want only %s", sc.Name, got, second.URI)
		}
	}
	if err := b.SetRoots(context.Background(), []Root{{URI: "relative/path"}}); err == nil {
		t.Error("SetRoots(relative) = nil, want an error")
	}
}

// TestResubscribeOnReconnect: a server that dies and is reconnected on use
// is subscribed again to what the host subscribed to; after unsubscribe,
// it is not.
func TestResubscribeOnReconnect(t *testing.T) {
	for _, era := range []string{"modern", "legacy"} {
		t.Run(era, func(t *testing.T) {
			crash := filepath.Join(t.TempDir(), "crash")
			sc := stdioServer("s", "-features", "-era="+era, "-crash-on-file="+crash)
			sc.Trust = true
			b := newBridge(t, &Options{ReconnectInterval: -1}, sc)
			events, stop := b.Subscribe()
			defer stop()
			discover(t, b)
			ctx := context.Background()
			unsubscribe, err := b.SubscribeResource(ctx, "s", "test://watched")
			if err != nil {
				t.Fatalf("SubscribeResource() = %v", err)
			}
			if err := os.WriteFile(crash, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			waitEvent(t, events, "s DISCONNECTED", func(e Event) bool { return e.Kind == EventServerState && e.State == Disconnected })
			if err := os.Remove(crash); err != nil {
				t.Fatal(err)
			}
			// The call reconnects; the new connection subscribed again.
			provokeEvent(t, events, func(e Event) bool { return e.Kind == EventResourceUpdated && e.URI == "test://watched" }, func() {
				if got := execText(t, b, "s", "touch", map[string]any{"uri": "test://watched"}); got != "touched" {
					t.Fatalf("touch after the reconnect = %q, want touched (subscribed again)", got)
				}
			})
			if err := unsubscribe(); err != nil {
				t.Errorf("unsubscribe() = %v", err)
			}
			// On 2026-07-28 the server drops the old listen stream on its own
			// time: wait for the outcome.
			deadline := time.Now().Add(20 * time.Second)
			for got := ""; got != "not subscribed"; {
				if time.Now().After(deadline) {
					t.Fatalf("touch after unsubscribe = %q, want not subscribed", got)
				}
				time.Sleep(20 * time.Millisecond)
				got = execText(t, b, "s", "touch", map[string]any{"uri": "test://watched"})
			}
		})
	}
}

// TestElicitationCompleted: a server's notifications/elicitation/complete
// for the URL being visited closes elicit.Request.Completed, so a host
// waiting for the person can stop waiting.
func TestElicitationCompleted(t *testing.T) {
	sc, h := httpServer(t, "s", TransportHTTP, testserver.Options{Ask: true, Era: testserver.EraLegacy})
	sc.Trust = true
	el := func(ctx context.Context, e elicit.Request) (elicit.Response, error) {
		if e.Completed == nil {
			return elicit.Response{}, errors.New("no Completed channel for a URL")
		}
		// The server says the visit is over while the host waits.
		h.MCP.SendNotificationToAllClients("notifications/elicitation/complete", map[string]any{"elicitationId": e.ID})
		select {
		case <-e.Completed:
			return elicit.Response{Action: elicit.Accept}, nil
		case <-ctx.Done():
			return elicit.Response{}, ctx.Err()
		}
	}
	b := newBridge(t, &Options{Client: &ClientFeatures{Elicit: el}}, sc)
	discover(t, b)
	if got := execText(t, b, "s", "ask_url", nil); got != "visited" {
		t.Errorf("ask_url = %q, want visited once the server said the visit was complete", got)
	}
}
