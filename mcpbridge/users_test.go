package mcpbridge

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/internal/testauth"
	"github.com/mcpgenai/bridge/mcpbridge/auth"
	"github.com/mcpgenai/bridge/registry"
)

// usersSetup is an authorization server with any number of users
// (testauth.UserPrefix) and three MCP servers it protects, each checking
// that every call carries the token of the user it claims
// (testauth.WhoAmI): "modern" (2026-07-28 over streamable HTTP), "legacy"
// (the handshake over streamable HTTP) and "sse" (the handshake over
// SSE); and a stdio server, "plain", that every user shares.
type usersSetup struct {
	as      *testauth.Server
	remotes map[string]*testauth.Protected
	calls   testauth.Calls
	store   *auth.MemoryStore
}

// usersServers are the names of the protected servers of a usersSetup.
var usersServers = []string{"modern", "legacy", "sse"}

func newUsersSetup(t testing.TB) *usersSetup {
	t.Helper()
	us := &usersSetup{as: testauth.Start(t), store: auth.NewMemoryStore()}
	us.calls.Release = make(chan struct{})
	t.Cleanup(func() { us.open() })
	us.as.RegisterNative("service", "http://127.0.0.1/oauth/callback")
	us.remotes = map[string]*testauth.Protected{
		"modern": us.as.ServeMCP(t, testauth.WhoAmI("modern", &us.calls), false, ""),
		"legacy": us.as.ServeLegacyMCP(t, testauth.WhoAmI("legacy", &us.calls), false),
		"sse":    us.as.ServeLegacyMCP(t, testauth.WhoAmI("sse", &us.calls), true),
	}
	return us
}

// open releases the slow tool's calls, once.
func (us *usersSetup) open() {
	select {
	case <-us.calls.Release:
	default:
		close(us.calls.Release)
	}
}

// configs returns the servers: plain, then the protected ones.
func (us *usersSetup) configs() []ServerConfig {
	plain := stdioServer("plain", "-name=plain", "-tools=1")
	plain.Trust = true
	out := []ServerConfig{plain}
	for _, name := range usersServers {
		cfg := ServerConfig{Name: name, Timeout: 2 * time.Minute, Trust: true, OAuth: &OAuthConfig{Enabled: true, ClientID: "service"}}
		if name == "sse" {
			cfg.URL, cfg.Type = us.remotes[name].URL, TransportSSE
		} else {
			cfg.HTTPURL = us.remotes[name].URL
		}
		out = append(out, cfg)
	}
	return out
}

// loginURL consents on the login page as the user the login is for,
// which the callback's context names.
func loginURL(t testing.TB) func(ctx context.Context, server, authURL string) error {
	return func(ctx context.Context, server, authURL string) error {
		user := UserOf(ctx)
		if !strings.HasPrefix(user, testauth.UserPrefix) {
			t.Errorf("LoginURL(%s) for user %q, want a user", server, user)
			return errors.New("no user")
		}
		go func() {
			if page, err := testauth.ConsentAs(authURL, user); err != nil || !strings.Contains(page, "Logged in") {
				t.Errorf("consent of %s at %s: %v %q", user, server, err, page)
			}
		}()
		return nil
	}
}

// loginAll logs every user in to every protected server of b (servers;
// none: usersServers), at most 8 logins at a time.
func loginAll(t testing.TB, b *Bridge, users []string, servers ...string) {
	t.Helper()
	if servers == nil {
		servers = usersServers
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for _, u := range users {
		for _, name := range servers {
			wg.Go(func() {
				sem <- struct{}{}
				defer func() { <-sem }()
				if err := b.Login(WithUser(ctx, u), name); err != nil {
					t.Errorf("Login(%s, %s) = %v", u, name, err)
				}
			})
		}
	}
	wg.Wait()
}

func userNames(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%d", testauth.UserPrefix, i)
	}
	return out
}

// whoami calls the whoami tool (or slow) of server for user through d and
// returns the result's error or checks its text.
func whoami(ctx context.Context, d *Declarations, server, tool, user string, seq int) error {
	r := d.Execute(WithUser(ctx, user), &genai.FunctionCall{ID: fmt.Sprint(seq), Name: "mcp_" + server + "_" + tool,
		Args: map[string]any{"user": user, "seq": seq}})
	if r.Err != nil {
		return r.Err
	}
	want := fmt.Sprintf("%s: %s #%d", server, user, seq)
	if got := r.ReturnDisplay; !strings.Contains(got, want) {
		return fmt.Errorf("%s/%s for %s: got %s, want %q", server, tool, user, got, want)
	}
	return nil
}

// TestUsersOnOneBridge: users logged in on one Bridge each call every
// protected server with their own token (the servers check it), in both
// protocol eras; one process serves the stdio server for all; the status
// and the events say what is per user; an operation without a user, and
// one beyond the cap with every user busy, are refused.
func TestUsersOnOneBridge(t *testing.T) {
	us := newUsersSetup(t)
	events := make(chan Event, 1000)
	b := newBridge(t, &Options{MaxUsers: 4, TokenStore: us.store, LoginURL: loginURL(t), ToolNames: registry.QualifiedNames}, us.configs()...)
	ch, stop := b.Subscribe()
	defer stop()
	go func() {
		for e := range ch {
			select {
			case events <- e:
			default:
			}
		}
	}()
	discover(t, b)
	users := userNames(3)
	loginAll(t, b, users)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for i, u := range users {
		d, err := b.Declare(WithUser(ctx, u), nil, nil)
		if err != nil {
			t.Fatalf("Declare(%s) = %v", u, err)
		}
		for _, name := range usersServers {
			if err := whoami(ctx, d, name, "whoami", u, i); err != nil {
				t.Errorf("call: %v", err)
			}
		}
		r := d.Execute(WithUser(ctx, u), &genai.FunctionCall{Name: "mcp_plain_echo", Args: map[string]any{"text": u}})
		if r.Err != nil {
			t.Errorf("plain echo for %s: %v", u, r.Err)
		}
	}
	if n := us.calls.Crossings.Load(); n != 0 {
		t.Errorf("%d crossings", n)
	}

	st := b.Status()
	for _, s := range st.Servers {
		switch s.Name {
		case "plain":
			if s.PerUser || s.State != Connected {
				t.Errorf("plain: PerUser %v, State %v; want shared and connected", s.PerUser, s.State)
			}
		default:
			if !s.PerUser || s.Users != len(users) {
				t.Errorf("%s: PerUser %v, Users %d; want per user, %d", s.Name, s.PerUser, s.Users, len(users))
			}
		}
	}

	// Without a user: refused.
	if _, err := b.Declare(ctx, nil, nil); !errors.Is(err, ErrNoUser) {
		t.Errorf("Declare without a user = %v, want ErrNoUser", err)
	}
	if r := b.Execute(ctx, &genai.FunctionCall{Name: "echo"}); !errors.Is(r.Err, ErrNoUser) {
		t.Errorf("Execute without a user: Err = %v, want ErrNoUser", r.Err)
	}

	// Every user's own state changes carry the user.
	seen := map[string]bool{}
	for len(events) > 0 {
		e := <-events
		if e.Kind == EventServerState && e.State == Connected && e.User != "" {
			seen[e.User+"/"+e.Server] = true
		}
	}
	for _, u := range users {
		for _, name := range usersServers {
			if !seen[u+"/"+name] {
				t.Errorf("no EventServerState Connected for %s at %s", u, name)
			}
		}
	}
}

// TestUsersOwnToolsLists: a server whose tools list depends on who asks
// (each user sees a tool of their own) lists each user's with that
// user's token, in both protocol eras: over the 2026-07-28 connection
// every user shares too, where the first user's connection must not lend
// its token to the others' lists.
func TestUsersOwnToolsLists(t *testing.T) {
	us := &usersSetup{as: testauth.Start(t), store: auth.NewMemoryStore()}
	us.as.RegisterNative("service", "http://127.0.0.1/oauth/callback")
	users := userNames(3)
	own := func(ctx context.Context, tools []mcp.Tool) []mcp.Tool {
		var out []mcp.Tool
		for _, tl := range tools {
			if u, ok := strings.CutPrefix(tl.Name, "only_"); !ok || u == testauth.Subject(ctx) {
				out = append(out, tl)
			}
		}
		return out
	}
	serve := func(name string, legacy bool) ServerConfig {
		s := testauth.WhoAmI(name, &us.calls, mcpserver.WithToolFilter(own))
		for _, u := range users {
			s.AddTool(mcp.NewTool("only_"+u), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.NewToolResultText(u), nil
			})
		}
		var p *testauth.Protected
		if legacy {
			p = us.as.ServeLegacyMCP(t, s, false)
		} else {
			p = us.as.ServeMCP(t, s, false, "")
		}
		return ServerConfig{Name: name, HTTPURL: p.URL, Timeout: time.Minute, Trust: true, OAuth: &OAuthConfig{Enabled: true, ClientID: "service"}}
	}
	cfgs := []ServerConfig{serve("modern", false), serve("legacy", true)}
	b := newBridge(t, &Options{MaxUsers: 4, TokenStore: us.store, LoginURL: loginURL(t), ToolNames: registry.QualifiedNames}, cfgs...)
	discover(t, b)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, u := range users {
		for _, c := range cfgs {
			if err := b.Login(WithUser(ctx, u), c.Name); err != nil {
				t.Fatalf("Login(%s, %s) = %v", u, c.Name, err)
			}
		}
	}
	for _, u := range users {
		d, err := b.Declare(WithUser(ctx, u), nil, nil)
		if err != nil {
			t.Fatalf("Declare(%s) = %v", u, err)
		}
		var names []string
		for _, tl := range d.Tools {
			for _, f := range tl.FunctionDeclarations {
				if strings.Contains(f.Name, "_only_") {
					names = append(names, f.Name)
				}
			}
		}
		want := fmt.Sprintf("[mcp_legacy_only_%s mcp_modern_only_%s]", u, u)
		if got := fmt.Sprint(names); got != want {
			t.Errorf("%s's own tools = %s, want %s", u, got, want)
		}
	}
}
