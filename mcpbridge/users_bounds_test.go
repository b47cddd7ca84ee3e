package mcpbridge

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/mcpbridge/elicit"
)

// inFlight reports how many operations of user are in flight on the
// configured server name (see Bridge.use).
func inFlight(b *Bridge, name, user string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.byName[name].inflight[user]
}

// gatherAs starts a call of the gather tool (n calls must be in flight
// before any returns) for user and returns its result's channel.
func gatherAs(ctx context.Context, b *Bridge, user string, n int) <-chan *CallResult {
	out := make(chan *CallResult, 1)
	go func() {
		out <- b.Execute(WithUser(ctx, user), &genai.FunctionCall{Name: "gather", Args: map[string]any{"n": n}})
	}()
	return out
}

// TestUsersQuestions: on a Bridge for many users, a server's form is put to
// the user whose call brought it, the callback's context naming that user:
// in 2026-07-28, where the question comes within the call, whoever else is
// calling; before, on the connection every user shares, when that user's
// call is the only one in flight there. While another user's call is in
// flight there too, the question cannot be tied to one user: the server
// is refused and nobody is asked.
func TestUsersQuestions(t *testing.T) {
	for _, era := range []string{"modern", "legacy"} {
		t.Run(era, func(t *testing.T) {
			var mu sync.Mutex
			var asked []string
			el := func(ctx context.Context, e elicit.Request) (elicit.Response, error) {
				mu.Lock()
				defer mu.Unlock()
				asked = append(asked, UserOf(ctx))
				return elicit.Response{Action: elicit.Accept, Content: map[string]any{"value": UserOf(ctx)}}, nil
			}
			took := func() []string {
				mu.Lock()
				defer mu.Unlock()
				out := asked
				asked = nil
				return out
			}
			srv := stdioServer("s", "-ask", "-gather", "-era="+era)
			srv.Trust = true
			b := newBridge(t, &Options{MaxUsers: 4, Client: &ClientFeatures{Elicit: el}}, srv)
			discover(t, b)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			ask := func(user string) *CallResult {
				return b.Execute(WithUser(ctx, user), &genai.FunctionCall{Name: "ask", Args: map[string]any{"question": "colour?"}})
			}

			if r := ask("alice"); r.Err != nil || r.ReturnDisplay != `got {"value":"alice"}` {
				t.Errorf("alice alone: %q, %v; want her own answer", r.ReturnDisplay, r.Err)
			}
			if got := took(); len(got) != 1 || got[0] != "alice" {
				t.Errorf("asked %q, want alice once", got)
			}

			bob := gatherAs(ctx, b, "bob", 2)
			waitFor(t, "bob's call in flight", func() bool { return inFlight(b, "s", "bob") == 1 })
			r := ask("alice")
			got := took()
			if era == "modern" {
				if r.Err != nil || r.ReturnDisplay != `got {"value":"alice"}` || len(got) != 1 || got[0] != "alice" {
					t.Errorf("alice while bob calls: %q, %v, asked %q; want her own answer, asked of her once", r.ReturnDisplay, r.Err, got)
				}
			} else {
				if len(got) != 0 {
					t.Errorf("asked %q while alice and bob call on one connection; want nobody", got)
				}
				if r.Err == nil && r.ReturnDisplay == `got {"value":"alice"}` {
					t.Errorf("alice while bob calls: %q; want the question refused", r.ReturnDisplay)
				}
			}
			carol := gatherAs(ctx, b, "carol", 2) // releases bob's
			for who, ch := range map[string]<-chan *CallResult{"bob": bob, "carol": carol} {
				if r := <-ch; r.Err != nil || r.ReturnDisplay != "gathered 2" {
					t.Errorf("gather of %s = %q, %v", who, r.ReturnDisplay, r.Err)
				}
			}
		})
	}
}

// TestUsersCap: at Options.MaxUsers, a new user is refused
// (ErrTooManyUsers) while every user has an operation in flight, and takes
// the place of the longest idle user once one is idle; a user idle for
// Options.UserIdle is dropped.
func TestUsersCap(t *testing.T) {
	srv := stdioServer("s", "-gather", "-tools=1")
	srv.Trust = true
	b := newBridge(t, &Options{MaxUsers: 2, UserIdle: time.Hour}, srv)
	discover(t, b)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	users := func() []string {
		b.mu.Lock()
		defer b.mu.Unlock()
		return slices.Sorted(maps.Keys(b.users))
	}
	echo := func(user string) *CallResult {
		return b.Execute(WithUser(ctx, user), &genai.FunctionCall{Name: "echo", Args: map[string]any{"text": user}})
	}

	aliceCtx, aliceCancel := context.WithCancel(ctx)
	alice := gatherAs(aliceCtx, b, "alice", 3)
	bob := gatherAs(ctx, b, "bob", 3)
	waitFor(t, "alice's and bob's calls in flight", func() bool {
		return inFlight(b, "s", "alice") == 1 && inFlight(b, "s", "bob") == 1
	})
	if r := echo("carol"); !errors.Is(r.Err, ErrTooManyUsers) {
		t.Errorf("carol with 2 users busy at MaxUsers 2: %q, %v; want ErrTooManyUsers", r.ReturnDisplay, r.Err)
	}
	aliceCancel()
	if r := <-alice; r.Err == nil {
		t.Errorf("alice's cancelled gather = %q, want an error", r.ReturnDisplay)
	}
	if r := echo("carol"); r.Err != nil {
		t.Errorf("carol with alice idle: %v; want her call answered", r.Err)
	}
	if got := fmt.Sprint(users()); got != "[bob carol]" {
		t.Errorf("users %s, want [bob carol] (alice, idle, made room)", got)
	}
	gatherAs(ctx, b, "carol", 3)
	dave := gatherAs(ctx, b, "bob", 3) // the third: every gather returns
	if r := <-bob; r.Err != nil {
		t.Errorf("bob's gather: %v", r.Err)
	}
	<-dave

	// Idle users are dropped after UserIdle.
	short := newBridge(t, &Options{MaxUsers: 2, UserIdle: time.Millisecond}, srv)
	discover(t, short)
	if r := short.Execute(WithUser(ctx, "erin"), &genai.FunctionCall{Name: "echo", Args: map[string]any{"text": "x"}}); r.Err != nil {
		t.Fatal(r.Err)
	}
	waitFor(t, "erin's state dropped", func() bool {
		short.mu.Lock()
		defer short.mu.Unlock()
		return len(short.users) == 0
	})
}

// TestDiscoverCutShort: a Discover whose context is already done starts
// no process, for no user or for one on a Bridge for many users; one cut
// short while the server has not answered returns the context's error,
// and Close then leaves no process (nor, as every test here, goroutine).
func TestDiscoverCutShort(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts *Options
		user string
	}{{"one user", nil, ""}, {"many users", &Options{MaxUsers: 4}, "alice"}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			// The server writes dir/<pid> on start, then waits for a peer
			// that never comes: it never answers.
			b := newBridge(t, tc.opts, stdioServer("mute", "-await-peers="+dir+":2"))
			started := func() []os.DirEntry {
				es, _ := os.ReadDir(dir)
				return es
			}
			done, cancel := context.WithCancel(WithUser(context.Background(), tc.user))
			cancel()
			if err := b.Discover(done); !errors.Is(err, context.Canceled) {
				t.Errorf("Discover(done) = %v, want context.Canceled", err)
			}
			if es := started(); len(es) != 0 {
				t.Fatalf("Discover(done) started %d processes", len(es))
			}

			ctx, cancel := context.WithCancel(WithUser(context.Background(), tc.user))
			defer cancel()
			errc := make(chan error, 1)
			go func() { errc <- b.Discover(ctx) }()
			waitFor(t, "the server's process", func() bool { return len(started()) == 1 })
			cancel()
			if err := <-errc; !errors.Is(err, context.Canceled) {
				t.Errorf("Discover cut short = %v, want context.Canceled", err)
			}
			if err := b.Close(); err != nil {
				t.Errorf("Close() = %v", err)
			}
			pid := started()[0].Name()
			if _, err := os.Stat("/proc/" + pid); err == nil {
				t.Errorf("process %s still there after Close", pid)
			}
		})
	}
}
