package mcpbridge

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/mcpbridge/auth"
	"github.com/mcpgenai/bridge/registry"
)

// TestUsersLoad: 200 users, logged in to three OAuth-protected servers
// (2026-07-28 over streamable HTTP, the handshake over streamable HTTP,
// the handshake over SSE), make 10 calls each, all at once, on one
// Bridge: every call is answered for its own user (each server checks
// the token of every call against the user it claims, and the answer
// names the user and the call), with no failure and no crossing. Then
// one user's tokens expire at every server and, in a second burst, the
// 2026-07-28 server is killed while its calls are in flight: those calls
// fail, every other call (the expired user's included, after a refresh)
// is answered for its own user, and nothing crosses.
func TestUsersLoad(t *testing.T) {
	const nUsers, perUser = 200, 10
	us := newUsersSetup(t)
	us.calls.Entered = make(chan string, nUsers*perUser)
	b := newBridge(t, &Options{MaxUsers: nUsers, TokenStore: us.store, LoginURL: loginURL(t), ToolNames: registry.QualifiedNames}, us.configs()...)
	discover(t, b)
	users := userNames(nUsers)
	start := time.Now()
	loginAll(t, b, users)
	t.Logf("%d logins in %v", nUsers*len(usersServers), time.Since(start).Round(time.Millisecond))

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	type outcome struct {
		user, server string
		err          error
	}
	// burst makes every user's calls at once: call i of a user goes to
	// server(u, i) with tool(server), or nowhere when server is "".
	burst := func(server func(u, i int) string, tool func(server string) string) []outcome {
		var mu sync.Mutex
		var out []outcome
		var wg sync.WaitGroup
		for ui, u := range users {
			wg.Go(func() {
				uctx := WithUser(ctx, u)
				d, err := b.Declare(uctx, nil, nil)
				if err != nil {
					mu.Lock()
					out = append(out, outcome{u, "", fmt.Errorf("Declare: %w", err)})
					mu.Unlock()
					return
				}
				var calls []*genai.FunctionCall
				var servers []string
				for i := range perUser {
					name := server(ui, i)
					if name == "" {
						continue
					}
					calls = append(calls, &genai.FunctionCall{ID: fmt.Sprint(i), Name: "mcp_" + name + "_" + tool(name),
						Args: map[string]any{"user": u, "seq": ui*100 + i}})
					servers = append(servers, name)
				}
				rs := d.ExecuteAll(uctx, calls)
				mu.Lock()
				defer mu.Unlock()
				for i, r := range rs {
					err := r.Err
					want := fmt.Sprintf("%s: %s #%v", servers[i], u, calls[i].Args["seq"])
					if err == nil && !strings.Contains(r.ReturnDisplay, want) {
						err = fmt.Errorf("answered %q, want %q", r.ReturnDisplay, want)
					}
					out = append(out, outcome{u, servers[i], err})
				}
			})
		}
		wg.Wait()
		return out
	}

	start = time.Now()
	first := burst(func(_, i int) string { return usersServers[i%len(usersServers)] }, func(string) string { return "whoami" })
	t.Logf("burst 1: %d calls in %v", len(first), time.Since(start).Round(time.Millisecond))
	failed := 0
	for _, o := range first {
		if o.err != nil {
			if failed++; failed <= 5 {
				t.Errorf("burst 1: %s at %s: %v", o.user, o.server, o.err)
			}
		}
	}
	if len(first) != nUsers*perUser || failed > 0 {
		t.Fatalf("burst 1: %d calls, %d failed; want %d, 0", len(first), failed, nUsers*perUser)
	}
	if n := us.calls.Crossings.Load(); n != 0 {
		t.Fatalf("burst 1: %d crossings", n)
	}

	// One user's tokens expire; the 2026-07-28 server dies while every
	// other user's slow calls to it wait.
	const expired = "user-7"
	for _, name := range usersServers {
		if n := us.remotes[name].ExpireSubject(expired); n == 0 {
			t.Fatalf("%s had seen no token of %s", name, expired)
		}
	}
	refreshes := us.as.Refreshes.Load()
	killed := us.remotes["modern"]
	waiting := 0
	target := func(ui, i int) string {
		s := usersServers[i%len(usersServers)]
		if users[ui] == expired && s == "modern" {
			return usersServers[1+i%2] // the expired user's calls go elsewhere
		}
		return s
	}
	for ui := range users {
		for i := range perUser {
			if target(ui, i) == "modern" {
				waiting++
			}
		}
	}
	go func() {
		for range waiting {
			select {
			case <-us.calls.Entered:
			case <-ctx.Done():
				return
			}
		}
		killed.HTTP.CloseClientConnections()
	}()
	start = time.Now()
	second := burst(target, func(s string) string {
		if s == "modern" {
			return "slow"
		}
		return "whoami"
	})
	t.Logf("burst 2: %d calls in %v (%d at the killed server)", len(second), time.Since(start).Round(time.Millisecond), waiting)
	failed = 0
	for _, o := range second {
		switch {
		case o.server == "modern" && o.err == nil:
			t.Errorf("burst 2: %s at the killed server: answered, want an error", o.user)
		case o.server == "modern" && !errors.Is(o.err, ErrTransport):
			t.Errorf("burst 2: %s at the killed server: %v, want ErrTransport", o.user, o.err)
		case o.server != "modern" && o.err != nil:
			if failed++; failed <= 5 {
				t.Errorf("burst 2: %s at %s: %v", o.user, o.server, o.err)
			}
		}
	}
	if failed > 0 || len(second) != nUsers*perUser {
		t.Errorf("burst 2: %d calls, %d failed away from the killed server; want %d, 0", len(second), failed, nUsers*perUser)
	}
	if n := us.calls.Crossings.Load(); n != 0 {
		t.Errorf("%d crossings", n)
	}
	if got := us.as.Refreshes.Load() - refreshes; got != int64(len(usersServers)-1) {
		t.Errorf("%d refreshes after %s's tokens expired, want one per server it called (%d)", got, expired, len(usersServers)-1)
	}
	if _, err := us.store.Load(ctx, auth.Key{User: expired, Server: us.remotes["legacy"].URL, Issuer: us.as.Issuer}); err != nil {
		t.Errorf("store: %v", err)
	}
}
