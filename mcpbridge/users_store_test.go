package mcpbridge

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/mcpgenai/bridge/internal/testauth"
	"github.com/mcpgenai/bridge/mcpbridge/auth"
	"github.com/mcpgenai/bridge/mcpbridge/store"
	"github.com/mcpgenai/bridge/registry"
)

// toolsCounting is the memory store, counting what is asked of its tools
// cache.
type toolsCounting struct {
	*store.Memory
	loads, saves atomic.Int64
}

func (s *toolsCounting) LoadTools(ctx context.Context, key store.ToolsKey) (*store.ToolList, error) {
	s.loads.Add(1)
	return s.Memory.LoadTools(ctx, key)
}

func (s *toolsCounting) SaveTools(ctx context.Context, key store.ToolsKey, l *store.ToolList) error {
	s.saves.Add(1)
	return s.Memory.SaveTools(ctx, key, l)
}

// TestUsersPrivateListsSpareTheStore: on a Bridge for many users with a
// shared store, a server whose tools lists are each user's own is listed
// for every user, but only the first user's listing looks in the store's
// tools cache and tells it that it holds no list for the server: the
// others cost the store nothing (each cost a read and a write before). A
// list_changed makes the next listing look again; a public list is kept
// in the store.
func TestUsersPrivateListsSpareTheStore(t *testing.T) {
	for _, scope := range []mcp.CacheScope{mcp.CacheScopePrivate, mcp.CacheScopePublic} {
		t.Run(string(scope), func(t *testing.T) {
			as := testauth.Start(t)
			as.RegisterNative("service", "http://127.0.0.1/oauth/callback")
			var calls testauth.Calls
			var lists atomic.Int64
			hooks := &mcpserver.Hooks{}
			hooks.AddBeforeListTools(func(context.Context, any, *mcp.ListToolsRequest) { lists.Add(1) })
			srv := testauth.WhoAmI("web", &calls, mcpserver.WithMethodCacheHints(mcp.MethodToolsList, 60_000, scope), mcpserver.WithHooks(hooks))
			p := as.ServeMCP(t, srv, false, "")
			st := &toolsCounting{Memory: store.NewMemory()}
			cfg := ServerConfig{Name: "web", HTTPURL: p.URL, Timeout: time.Minute, Trust: true, OAuth: &OAuthConfig{Enabled: true, ClientID: "service"}}
			b := newBridge(t, &Options{MaxUsers: 8, Store: st, LoginURL: loginURL(t), ToolNames: registry.QualifiedNames}, cfg)
			discover(t, b)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			users := userNames(6)
			loads0, saves0 := st.loads.Load(), st.saves.Load()
			for _, u := range users {
				if err := b.Login(WithUser(ctx, u), "web"); err != nil {
					t.Fatalf("Login(%s) = %v", u, err)
				}
			}
			declare := func(u string) {
				t.Helper()
				d, err := b.Declare(WithUser(ctx, u), nil, nil)
				if err != nil {
					t.Fatalf("Declare(%s) = %v", u, err)
				}
				if len(d.Tools) == 0 || len(d.Tools[0].FunctionDeclarations) < 2 {
					t.Fatalf("Declare(%s): %d tools", u, len(d.Tools))
				}
			}
			for _, u := range users {
				declare(u)
			}
			loads, saves := st.loads.Load()-loads0, st.saves.Load()-saves0
			t.Logf("%s lists, %d users: %d loads and %d saves of the tools cache", scope, len(users), loads, saves)
			if scope == mcp.CacheScopePublic {
				// Listed once, kept in the store; the others take it from
				// the Bridge's memory.
				if saves < 1 {
					t.Errorf("public list: %d saves of the tools cache, want the list kept", saves)
				}
				if got := lists.Load(); got >= int64(len(users)) {
					t.Errorf("public list: %d tools/list requests for %d users, want it listed once", got, len(users))
				}
				return
			}
			if loads != 1 || saves != 1 {
				t.Errorf("private lists, %d users: %d loads and %d saves of the tools cache, want 1 and 1 (the first user's)", len(users), loads, saves)
			}
			if got := lists.Load(); got < int64(len(users)) {
				t.Errorf("%d tools/list requests for %d users, want each user's own", got, len(users))
			}
			// A change of the list: the next listing looks in the cache again.
			srv.AddTool(mcp.NewTool("later"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.NewToolResultText("later"), nil
			})
			waitFor(t, "the list's change to reach the Bridge", func() bool {
				d, err := b.Declare(WithUser(ctx, users[0]), nil, nil)
				if err != nil || len(d.Tools) == 0 {
					return false
				}
				for _, f := range d.Tools[0].FunctionDeclarations {
					if f.Name == "mcp_web_later" {
						return true
					}
				}
				return false
			})
			if st.loads.Load()-loads0 < 2 {
				t.Errorf("after a list_changed: %d loads of the tools cache, want the next listing to look again", st.loads.Load()-loads0)
			}
		})
	}
}

// countingHandler counts the log records whose message is msg.
type countingHandler struct {
	msg string
	n   *atomic.Int64
}

func (h countingHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h countingHandler) Handle(_ context.Context, r slog.Record) error {
	if r.Message == h.msg {
		h.n.Add(1)
	}
	return nil
}
func (h countingHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h countingHandler) WithGroup(string) slog.Handler      { return h }

// TestUsersListTogether: users whose first calls come at once, to a
// server not yet listed, list it once when the server says its list is
// every user's: the first user's listing is held until every other user
// waits for it (or a second listing comes, as each user listed it before
// the fix); with lists that are each user's own, each user lists after
// the first. When the first listing is cut short (its user's context
// ends), the users who waited for it list on their own.
func TestUsersListTogether(t *testing.T) {
	for _, c := range []struct {
		scope mcp.CacheScope
		cut   bool
	}{{mcp.CacheScopePublic, false}, {mcp.CacheScopePrivate, false}, {mcp.CacheScopePublic, true}} {
		name := string(c.scope)
		if c.cut {
			name += "/first cut short"
		}
		t.Run(name, func(t *testing.T) {
			as := testauth.Start(t)
			as.RegisterNative("service", "http://127.0.0.1/oauth/callback")
			var calls testauth.Calls
			var lists atomic.Int64
			var hold atomic.Bool // hold the first listing once the setup is done
			release := make(chan struct{})
			hooks := &mcpserver.Hooks{}
			hooks.AddBeforeListTools(func(ctx context.Context, _ any, _ *mcp.ListToolsRequest) {
				if lists.Add(1) == 1 && hold.Load() {
					select {
					case <-release:
					case <-ctx.Done():
					}
				}
			})
			srv := testauth.WhoAmI("web", &calls, mcpserver.WithMethodCacheHints(mcp.MethodToolsList, 60_000, c.scope), mcpserver.WithHooks(hooks))
			p := as.ServeMCP(t, srv, false, "")
			cfg := ServerConfig{Name: "web", HTTPURL: p.URL, Timeout: time.Minute, Trust: true, OAuth: &OAuthConfig{Enabled: true, ClientID: "service"}}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			users := userNames(8)
			// Log the users in through a Bridge of their own, so that
			// the one measured has listed nothing.
			tokens := auth.NewMemoryStore()
			setup := newBridge(t, &Options{MaxUsers: len(users), TokenStore: tokens, LoginURL: loginURL(t)}, cfg)
			discover(t, setup)
			for _, u := range users {
				if err := setup.Login(WithUser(ctx, u), "web"); err != nil {
					t.Fatalf("Login(%s) = %v", u, err)
				}
			}
			_ = setup.Close()
			lists.Store(0)
			hold.Store(true)

			var waits atomic.Int64
			log := slog.New(countingHandler{msg: waitingFirstList, n: &waits})
			b := newBridge(t, &Options{MaxUsers: len(users), TokenStore: tokens, Logger: log, ToolNames: registry.QualifiedNames}, cfg)
			discover(t, b)
			errs := make(chan error, len(users))
			var done atomic.Int64
			firstCtx, cutFirst := context.WithCancel(ctx)
			defer cutFirst()
			declare := func(ctx context.Context, u string) {
				defer done.Add(1)
				d, err := b.Declare(WithUser(ctx, u), nil, nil)
				if err == nil && (len(d.Tools) == 0 || len(d.Tools[0].FunctionDeclarations) < 2) {
					err = fmt.Errorf("%d tools", len(d.Tools))
				}
				if err != nil {
					err = fmt.Errorf("Declare(%s): %w", u, err)
				}
				errs <- err
			}
			if c.cut {
				// The first user's listing is the one held, then cut.
				go declare(firstCtx, users[0])
				waitFor(t, "the first user's listing", func() bool { return lists.Load() >= 1 || done.Load() == 1 })
				for _, u := range users[1:] {
					go declare(ctx, u)
				}
			} else {
				for _, u := range users {
					go declare(ctx, u)
				}
			}
			waitFor(t, "the other users to wait for the first listing, or a second listing", func() bool {
				return waits.Load() >= int64(len(users)-1) || lists.Load() >= 2 || done.Load() == int64(len(users))
			})
			if c.cut {
				cutFirst()
			} else {
				close(release)
			}
			var failed int
			for range users {
				if err := <-errs; err != nil {
					failed++
					if !c.cut || !errors.Is(err, context.Canceled) {
						t.Error(err)
					}
				}
			}
			got := lists.Load()
			t.Logf("%s lists, %d users at once: %d tools/list requests, %d waits, %d failed", name, len(users), got, waits.Load(), failed)
			switch {
			case c.cut:
				if failed != 1 || got < 2 {
					t.Errorf("first listing cut short: %d users failed and %d tools/list requests, want only the first user failed and the others listed", failed, got)
				}
			case c.scope == mcp.CacheScopePublic && got != 1:
				t.Errorf("public list: %d tools/list requests for %d users at once, want 1", got, len(users))
			case c.scope == mcp.CacheScopePrivate && got != int64(len(users)):
				t.Errorf("private lists: %d tools/list requests for %d users at once, want each user's own (%d)", got, len(users), len(users))
			}
			if n := calls.Crossings.Load(); n != 0 {
				t.Errorf("%d crossings", n)
			}
		})
	}
}
