package mcpbridge

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/mcpgenai/bridge/internal/testauth"
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
