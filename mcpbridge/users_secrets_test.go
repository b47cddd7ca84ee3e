package mcpbridge

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/internal/testauth"
	"github.com/mcpgenai/bridge/mcpbridge/auth"
	"github.com/mcpgenai/bridge/mcpbridge/internal/secrets"
	"github.com/mcpgenai/bridge/registry"
)

// callOutput returns all that r shows the host: what a person sees, the
// model's response and the error.
func callOutput(t *testing.T, r *CallResult) string {
	t.Helper()
	resp, err := json.Marshal(r.FunctionResponse().Response)
	if err != nil {
		t.Fatal(err)
	}
	out := r.ReturnDisplay + "\n" + string(resp)
	if r.Err != nil {
		out += "\n" + r.Err.Error()
	}
	return out
}

// TestUsersTokensHidden: 300 users logged in at a server, each calling
// once, then outputs that carry the tokens of the first users, long after
// hundreds of others were learned: a careless server echoing an earlier
// user's access token in a later user's result, and the authorization
// server echoing a refresh token it refuses in the error of the first
// user's refresh. None reaches the host's results, errors or log: a
// user's live tokens stay learned however many users come after.
func TestUsersTokensHidden(t *testing.T) {
	const n = 300
	as := testauth.Start(t)
	as.RegisterNative("service", "http://127.0.0.1/oauth/callback")
	var mu sync.Mutex
	sent := map[string]string{} // user: the token their last call carried
	srv := mcpserver.NewMCPServer("echo", "1.0.0", mcpserver.WithToolCapabilities(true))
	srv.AddTool(mcp.NewTool("leak", mcp.WithDescription("Echoes a caller's token."), mcp.WithString("of")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			mu.Lock()
			defer mu.Unlock()
			sent[testauth.Subject(ctx)] = testauth.Token(ctx)
			if of := req.GetString("of", ""); of != "" {
				return mcp.NewToolResultError("the token of " + of + " is " + sent[of]), nil
			}
			return mcp.NewToolResultText("your token is " + testauth.Token(ctx)), nil
		})
	p := as.ServeMCP(t, srv, false, "")
	var logs syncBuffer
	store := auth.NewMemoryStore()
	cfg := ServerConfig{Name: "echo", HTTPURL: p.URL, Timeout: 2 * time.Minute, Trust: true, OAuth: &OAuthConfig{Enabled: true, ClientID: "service"}}
	b := newBridge(t, &Options{MaxUsers: n, TokenStore: store, LoginURL: loginURL(t), ToolNames: registry.QualifiedNames,
		Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))}, cfg)
	discover(t, b)
	users := userNames(n)
	loginAll(t, b, users, "echo")

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, u := range users {
		r := b.Execute(WithUser(ctx, u), &genai.FunctionCall{Name: "mcp_echo_leak"})
		if out := callOutput(t, r); r.Err != nil || !strings.Contains(out, "your token is ***\n") {
			t.Fatalf("%s: the echo of their own token: %s", u, out)
		}
	}
	var tokens []string // every user's access and refresh token
	for _, u := range users {
		tok, err := store.Load(ctx, auth.Key{User: u, Server: p.URL, Issuer: as.Issuer})
		if err != nil || tok == nil || tok.AccessToken != sent[u] || tok.RefreshToken == "" {
			t.Fatalf("%s: stored token %v, %v; want the one their call carried", u, tok, err)
		}
		tokens = append(tokens, tok.AccessToken, tok.RefreshToken)
	}
	// A token is shown when any piece of it is: the generic rules of
	// redaction hide some of a JWT's, not all.
	check := func(what, out string) {
		t.Helper()
		for i, tok := range tokens {
			for piece := range strings.SplitSeq(tok, ".") {
				if len(piece) >= 8 && strings.Contains(out, piece) {
					t.Errorf("%s holds %q of the token %d of user %d: %s", what, piece, i%2, i/2, out)
					break
				}
			}
		}
	}

	// A later user's result echoes earlier users' access tokens.
	last := users[n-1]
	for _, of := range users[:20] {
		r := b.Execute(WithUser(ctx, last), &genai.FunctionCall{Name: "mcp_echo_leak", Args: map[string]any{"of": of}})
		out := callOutput(t, r)
		if !strings.Contains(out, "the token of "+of+" is ***\n") {
			t.Errorf("the echo of %s's token: %s", of, out)
		}
		check("a later user's result", out)
	}

	// The first user's token expires; its refresh is refused with the
	// refresh token in the error.
	as.EchoRefused.Store(true)
	if p.ExpireSubject(users[0]) == 0 {
		t.Fatalf("no token of %s to expire", users[0])
	}
	r := b.Execute(WithUser(ctx, users[0]), &genai.FunctionCall{Name: "mcp_echo_leak"})
	if r.Err == nil {
		t.Fatalf("a call with an expired token and a refused refresh: no error")
	}
	t.Logf("the refused refresh: %v", r.Err)
	check("the error of a refused refresh", callOutput(t, r))
	check("the log", logs.String())
}

// TestUsersCredentialsBounded: users coming and going (600 users, two at
// a time on the Bridge) leave the keyrings bounded: a user whose state is
// dropped gives up their credentials to the bounded pool, so what stays
// learned is the pool and what the users on the Bridge hold, not every
// credential of every user ever served. The users still there have their
// token hidden.
func TestUsersCredentialsBounded(t *testing.T) {
	const n, maxUsers = 600, 2
	as := testauth.Start(t)
	as.RegisterNative("service", "http://127.0.0.1/oauth/callback")
	var calls testauth.Calls
	p := as.ServeMCP(t, testauth.WhoAmI("modern", &calls), false, "")
	cfg := ServerConfig{Name: "modern", HTTPURL: p.URL, Timeout: time.Minute, Trust: true, OAuth: &OAuthConfig{Enabled: true, ClientID: "service"}}
	b := newBridge(t, &Options{MaxUsers: maxUsers, TokenStore: auth.NewMemoryStore(), LoginURL: loginURL(t), ToolNames: registry.QualifiedNames}, cfg)
	discover(t, b)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, u := range userNames(n) {
		if err := b.Login(WithUser(ctx, u), "modern"); err != nil {
			t.Fatalf("Login(%s) = %v", u, err)
		}
		if _, err := b.callTool(WithUser(ctx, u), "modern", "whoami", map[string]any{"user": u}); err != nil {
			t.Fatalf("whoami(%s) = %v", u, err)
		}
	}
	// The pool, and each user on the Bridge: three owners (token entry,
	// login, Authorizer) of at most MaxPerOwner each.
	limit := secrets.MaxLearned + maxUsers*3*secrets.MaxPerOwner
	for name, k := range map[string]*secrets.Keyring{"the Bridge's": b.redact.Keyring, "the server's": b.byName["modern"].redac} {
		if got := k.Known(); got > limit {
			t.Errorf("%s keyring knows %d credentials after %d users, want at most %d", name, got, n, limit)
		}
	}
	if n := calls.Crossings.Load(); n != 0 {
		t.Errorf("%d crossings", n)
	}
}
