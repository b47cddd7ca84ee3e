package mcpbridge

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/mcpgenai/bridge/internal/testauth"
	"github.com/mcpgenai/bridge/mcpbridge/auth"
	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
)

// tracer returns a TracerProvider that keeps its spans for spans.
func (e *exits) tracer(t *testing.T) (*sdktrace.TracerProvider, *tracetest.InMemoryExporter) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	return tp, exp
}

// spans records every span: its name, attributes, status and events.
func (e *exits) spans(exp *tracetest.InMemoryExporter) {
	for _, s := range exp.GetSpans() {
		var b strings.Builder
		fmt.Fprintf(&b, "%s %v %q", s.Name, s.Status.Code, s.Status.Description)
		for _, a := range s.Attributes {
			fmt.Fprintf(&b, " %s=%s", a.Key, a.Value.String())
		}
		for _, ev := range s.Events {
			fmt.Fprintf(&b, " event %s", ev.Name)
			for _, a := range ev.Attributes {
				fmt.Fprintf(&b, " %s=%s", a.Key, a.Value.String())
			}
		}
		e.add("span", b.String())
	}
}

// leakyTools adds tools that quote the credentials of the request that
// called them: in a result, in a tool error, and in a protocol error.
func leakyTools(s *mcpserver.MCPServer) {
	cred := func(r mcp.CallToolRequest) string {
		v := r.Header.Get("Authorization")
		return fmt.Sprintf("got %q (escaped %s, path %s)", v, url.QueryEscape(v), url.PathEscape(strings.TrimPrefix(v, "Bearer ")))
	}
	s.AddTool(mcp.NewTool("quote"), func(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(cred(r)), nil
	})
	s.AddTool(mcp.NewTool("refuse"), func(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultError("denied: " + cred(r)), nil
	})
	s.AddTool(mcp.NewTool("fail"), func(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New("internal: " + cred(r))
	})
}

// storedSecrets returns the credentials in the token store's entry for
// key, with the forms in which they may be written.
func storedSecrets(t *testing.T, store auth.Store, key auth.Key) []string {
	t.Helper()
	tok, err := store.Load(context.Background(), key)
	if err != nil || tok == nil || tok.AccessToken == "" {
		t.Fatalf("store.Load(%+v) = %v, %v; want a token", key, tok, err)
	}
	var out []string
	for _, s := range []string{tok.AccessToken, tok.RefreshToken, tok.ClientSecret} {
		if s != "" {
			out = append(out, s, url.QueryEscape(s), url.PathEscape(s))
		}
	}
	return out
}

// TestTokenQuotedByServer: a server that quotes the access token it was
// sent (in its result, its tool error and a protocol error) and then dies
// never gets the token into any exit: results and the model's part,
// events, errors, logs, status text and JSON, spans.
func TestTokenQuotedByServer(t *testing.T) {
	as := testauth.Start(t)
	mcpSrv := testserver.New(testserver.Options{Tools: 1})
	leakyTools(mcpSrv)
	remote := as.ServeMCP(t, mcpSrv, false, "")
	store, err := auth.NewFileStore(filepath.Join(t.TempDir(), "tokens.json"))
	if err != nil {
		t.Fatal(err)
	}
	var e exits
	tp, spans := e.tracer(t)
	p := &person{t: t}
	b := newBridge(t, &Options{Logger: e.logger(), LoginURL: p.LoginURL, TokenStore: store, TracerProvider: tp, ReconnectInterval: -1},
		ServerConfig{Name: "remote", HTTPURL: remote.URL, Trust: true, Timeout: 10 * time.Second})
	stop := e.watch(b)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	e.err("Discover", b.Discover(ctx))
	e.err("Login", b.Login(ctx, "remote"))
	p.done()
	creds := storedSecrets(t, store, auth.Key{Server: remote.URL, Issuer: as.Issuer})
	for _, name := range []string{"quote", "refuse", "fail"} {
		r := execute(&e, b, name, nil)
		if name == "quote" && (r.Err != nil || !strings.Contains(r.ReturnDisplay, "got")) {
			t.Fatalf("Execute(quote) = %q, %v; want the quoted header (redacted)", r.ReturnDisplay, r.Err)
		}
	}
	remote.HTTP.CloseClientConnections()
	remote.HTTP.Close()
	execute(&e, b, "quote", nil)
	e.status(b)
	_ = b.Close()
	stop()
	e.spans(spans)
	for _, l := range e.leaks(creds...) {
		t.Errorf("credential leaked: %s", l)
	}
}

// TestTokenParamDeadConnection: with tokenParamName the access token
// travels in the URL's query under a name no rule knows; when the server
// goes away, the error of the lost connection names the URL, and the token
// in it reaches no exit. (Over SSE, mcp-go's server keeps a goroutine of
// a subscription when its listener is closed under it, so only streamable
// HTTP dies here.)
func TestTokenParamDeadConnection(t *testing.T) {
	for _, sse := range []bool{false} {
		t.Run(map[bool]string{true: "sse", false: "http"}[sse], func(t *testing.T) {
			as := testauth.Start(t)
			remote := as.ServeMCPParam(t, testserver.New(testserver.Options{Tools: 1}), sse, "", "k")
			store, err := auth.NewFileStore(filepath.Join(t.TempDir(), "tokens.json"))
			if err != nil {
				t.Fatal(err)
			}
			var e exits
			tp, spans := e.tracer(t)
			p := &person{t: t}
			cfg := ServerConfig{Name: "remote", Trust: true, Timeout: 5 * time.Second, OAuth: &OAuthConfig{Enabled: true, TokenParamName: "k"}}
			if sse {
				cfg.URL, cfg.Type = remote.URL, "sse"
			} else {
				cfg.HTTPURL = remote.URL
			}
			b := newBridge(t, &Options{Logger: e.logger(), LoginURL: p.LoginURL, TokenStore: store, TracerProvider: tp, ReconnectInterval: -1}, cfg)
			stop := e.watch(b)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			e.err("Discover", b.Discover(ctx))
			e.err("Login", b.Login(ctx, "remote"))
			p.done()
			creds := storedSecrets(t, store, auth.Key{Server: remote.URL, Issuer: as.Issuer})
			if r := execute(&e, b, "tool_00", nil); r.Err != nil {
				t.Fatalf("Execute(tool_00) = %v", r.Err)
			}
			events, cancelEvents := b.Subscribe()
			defer cancelEvents()
			remote.HTTP.CloseClientConnections()
			remote.HTTP.Close()
			ev := waitEvent(t, events, "remote DISCONNECTED", func(e Event) bool {
				return e.Kind == EventServerState && e.State == Disconnected && e.Err != nil
			})
			if !strings.Contains(ev.Err.Error(), "k=") {
				t.Errorf("the lost connection's error %q does not name the URL's query: the test missed its case", ev.Err)
			}
			for range 2 {
				if r := execute(&e, b, "tool_00", nil); r.Err == nil {
					t.Errorf("Execute(tool_00) on a closed server = nil error")
				}
			}
			_, err = b.ListResources(ctx, "remote")
			e.err("ListResources", err)
			e.status(b)
			_ = b.Close()
			stop()
			e.spans(spans)
			for _, l := range e.leaks(creds...) {
				t.Errorf("credential leaked: %s", l)
			}
		})
	}
}

// TestGoogleTokenRedacted: an impersonated Google ID token (a shape no
// generic rule knows) that the server echoes back is hidden in the result
// and every other exit, as soon as a request carried it.
func TestGoogleTokenRedacted(t *testing.T) {
	g := newFakeGoogle(t)
	g.keyFile(t)
	const (
		audience = "123-iap.apps.googleusercontent.com"
		target   = "mcp-invoker@test-project.iam.gserviceaccount.com"
		token    = "id-token|" + target + "|" + audience
	)
	u, _ := bearerOnly(t, func(tok string) bool { return tok == token })
	var e exits
	b := newBridgeHooks(t, &Options{Logger: e.logger()}, testHooks{googleTransport: iamTo{g.srv.URL}}, ServerConfig{
		Name: "iap", HTTPURL: u, Timeout: 10 * time.Second, Trust: true,
		AuthProviderType: AuthServiceAccountImpersonation, TargetAudience: audience, TargetServiceAccount: target,
	})
	stop := e.watch(b)
	discover(t, b)
	r := execute(&e, b, "echo", map[string]any{"text": "you sent " + token})
	if r.Err != nil || !strings.Contains(r.ReturnDisplay, "you sent") {
		t.Fatalf("Execute(echo) = %q, %v; want the echo", r.ReturnDisplay, r.Err)
	}
	e.status(b)
	_ = b.Close()
	stop()
	for _, l := range e.leaks(token, url.QueryEscape(token)) {
		t.Errorf("token leaked: %s", l)
	}
}

// TestPromptContentsRedacted: a prompt's messages are an exit like a tool's
// result: a configured secret the server writes into them is hidden.
func TestPromptContentsRedacted(t *testing.T) {
	const secret = "promptSecret42"
	docs := stdioServer("docs", "-offers-only")
	docs.Env = map[string]string{"API_TOKEN": secret}
	b := newBridge(t, nil, docs)
	discover(t, b)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	contents, err := b.GetPrompt(ctx, "docs", "greeting", map[string]string{"name": secret})
	if err != nil {
		t.Fatalf("GetPrompt = %v", err)
	}
	var text strings.Builder
	for _, c := range contents {
		for _, p := range c.Parts {
			text.WriteString(p.Text)
		}
	}
	if strings.Contains(text.String(), secret) || !strings.Contains(text.String(), "Greet ***") {
		t.Errorf("GetPrompt text = %q, want the secret replaced by ***", text.String())
	}
}
