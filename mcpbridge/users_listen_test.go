package mcpbridge

import (
	"context"
	"log/slog"
	"testing"
	"time"

	mcpserver "github.com/mark3labs/mcp-go/server"
	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/internal/testauth"
	"github.com/mcpgenai/bridge/mcpbridge/auth"
	"github.com/mcpgenai/bridge/registry"
)

// TestUsersSharedListenRepinned: the connection every user of a
// 2026-07-28 server shares sends its own subscriptions/listen stream with
// the credentials of a user on it. When that user is dropped, the stream
// the server ends next is sent again with another user's token, or with
// none while no user is on it; never with the dropped user's.
func TestUsersSharedListenRepinned(t *testing.T) {
	setup := func(t *testing.T, opts *Options, calls *testauth.Calls) (*Bridge, *testauth.Protected) {
		as := testauth.Start(t)
		as.RegisterNative("service", "http://127.0.0.1/oauth/callback")
		p := as.ServeMCP(t, testauth.WhoAmI("w", calls, mcpserver.WithToolCapabilities(true)), false, "")
		opts.LoginURL, opts.TokenStore, opts.ToolNames = loginURL(t), auth.NewMemoryStore(), registry.QualifiedNames
		b := newBridge(t, opts, ServerConfig{Name: "w", HTTPURL: p.URL, Timeout: time.Minute, Trust: true, OAuth: &OAuthConfig{Enabled: true, ClientID: "service"}})
		discover(t, b)
		return b, p
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	declare := func(t *testing.T, b *Bridge, u string) {
		t.Helper()
		d, err := b.Declare(WithUser(ctx, u), nil, nil)
		if err != nil {
			t.Fatalf("Declare(%s) = %v", u, err)
		}
		if err := whoami(ctx, d, "w", "whoami", u, 1); err != nil {
			t.Fatal(err)
		}
	}
	// next ends the open listen streams and returns the subject of the
	// request that replaces them.
	next := func(t *testing.T, p *testauth.Protected) string {
		t.Helper()
		before, _ := p.Listens(ctx, 0)
		if n := p.EndListens(); n != 1 {
			t.Fatalf("%d listen streams open, want 1", n)
		}
		seen, err := p.Listens(ctx, len(before)+1)
		if err != nil {
			t.Fatalf("no listen request after the stream ended: %v (seen %v)", err, seen)
		}
		return seen[len(before)]
	}

	t.Run("another user", func(t *testing.T) {
		b, p := setup(t, &Options{MaxUsers: 2}, &testauth.Calls{})
		users := userNames(3)
		loginAll(t, b, users[:1], "w") // dials the shared connection
		loginAll(t, b, users[1:2], "w")
		declare(t, b, users[0])
		declare(t, b, users[1])
		if seen, err := p.Listens(ctx, 1); err != nil || seen[0] != users[0] {
			t.Fatalf("first listen stream's user = %v, %v; want %s", seen, err, users[0])
		}
		loginAll(t, b, users[2:], "w") // beyond MaxUsers: users[0], the idlest, is dropped
		declare(t, b, users[2])
		if got := next(t, p); got != users[1] {
			t.Errorf("after %s was dropped, the listen stream went with %s's token, want %s's", users[0], got, users[1])
		}
	})

	t.Run("no user", func(t *testing.T) {
		dropped := &signalRecords{match: "mcp user state dropped", seen: make(chan slog.Record, 4)}
		calls := &testauth.Calls{Release: make(chan struct{}), Entered: make(chan string, 1)}
		b, p := setup(t, &Options{MaxUsers: 2, UserIdle: 300 * time.Millisecond, Logger: slog.New(dropped)}, calls)
		users := userNames(2)
		loginAll(t, b, users[:1], "w")
		declare(t, b, users[0])
		select {
		case <-dropped.seen:
		case <-ctx.Done():
			t.Fatal("the idle user was never dropped")
		}
		if got := next(t, p); got != testauth.Refused {
			t.Errorf("with no user left, the listen stream went with %s's token, want none", got)
		}
		// Another user comes, and stays (a call in flight keeps a user
		// from being dropped as idle).
		loginAll(t, b, users[1:], "w")
		d, err := b.Declare(WithUser(ctx, users[1]), nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		res := make(chan *CallResult, 1)
		go func() {
			res <- d.Execute(WithUser(ctx, users[1]), &genai.FunctionCall{ID: "1", Name: "mcp_w_slow", Args: map[string]any{"user": users[1], "seq": 1}})
		}()
		select {
		case <-calls.Entered:
		case <-ctx.Done():
			t.Fatal("the slow call never reached the server")
		}
		// The stream refused for want of a token is sent again, after a
		// pause, with the credentials of the user now on the connection.
		for n := 1; ; n++ {
			seen, err := p.Listens(ctx, n)
			if err != nil {
				t.Fatalf("the listen stream never came back with %s's token: %v (seen %v)", users[1], err, seen)
			}
			got := seen[n-1]
			if got == users[1] {
				break
			}
			// Before it: users[0]'s first stream, then none's.
			if got != testauth.Refused && !(n == 1 && got == users[0]) {
				t.Fatalf("listen stream %d went with %s's token, want %s's or none (seen %v)", n, got, users[1], seen)
			}
		}
		close(calls.Release)
		if r := <-res; r.Err != nil {
			t.Fatal(r.Err)
		}
	})
}
