package mcpbridge

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/mcpgenai/bridge/internal/testauth"
	"github.com/mcpgenai/bridge/mcpbridge/auth"
	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
)

// TestUsersPromptsListChanged: two users hold a server's prompt list;
// the server adds a prompt and says so (prompts/list_changed) once, on a
// connection both users share (the 2026-07-28 one of a server with
// per-user credentials, and a stdio server), or on each user's own
// (before 2026-07-28): each user's next list holds the new prompt, not
// only the list of the user whose connection heard it.
func TestUsersPromptsListChanged(t *testing.T) {
	for _, tc := range []struct {
		name   string
		legacy bool
		stdio  bool
	}{{"shared 2026-07-28", false, false}, {"own connections", true, false}, {"stdio", false, true}} {
		t.Run(tc.name, func(t *testing.T) {
			seen := &signalRecords{match: "mcp server prompts changed", seen: make(chan slog.Record, 4)}
			users := userNames(2)
			var cfg ServerConfig
			var add func()
			if tc.stdio {
				cfg = serverFor(t, "p", TransportStdio, testserver.Options{Offers: true})
			} else {
				as := testauth.Start(t)
				as.RegisterNative("service", "http://127.0.0.1/oauth/callback")
				var calls testauth.Calls
				srv := testauth.WhoAmI("p", &calls, mcpserver.WithPromptCapabilities(true))
				prompt := func(name string) {
					srv.AddPrompt(mcp.NewPrompt(name), func(context.Context, mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
						return mcp.NewGetPromptResult(name, []mcp.PromptMessage{mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent(name))}), nil
					})
				}
				prompt("first")
				add = func() { prompt("fresh") }
				var p *testauth.Protected
				if tc.legacy {
					p = as.ServeLegacyMCP(t, srv, false)
				} else {
					p = as.ServeMCP(t, srv, false, "")
				}
				cfg = ServerConfig{Name: "p", HTTPURL: p.URL, Timeout: time.Minute, Trust: true, OAuth: &OAuthConfig{Enabled: true, ClientID: "service"}}
			}
			b := newBridge(t, &Options{MaxUsers: 4, LoginURL: loginURL(t), TokenStore: auth.NewMemoryStore(), Logger: slog.New(seen)}, cfg)
			discover(t, b)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if !tc.stdio {
				loginAll(t, b, users, "p")
			}
			list := func(u string) []string {
				t.Helper()
				ps, err := b.ListPrompts(WithUser(ctx, u), "p")
				if err != nil {
					t.Fatalf("ListPrompts(%s) = %v", u, err)
				}
				var names []string
				for _, p := range ps {
					names = append(names, p.Name)
				}
				return names
			}
			before := map[string][]string{}
			for _, u := range users {
				before[u] = list(u)
			}
			if fmt.Sprint(before[users[0]]) != fmt.Sprint(before[users[1]]) || slices.Contains(before[users[0]], "fresh") {
				t.Fatalf("lists before the change: %v", before)
			}
			for len(seen.seen) > 0 {
				<-seen.seen
			}
			if tc.stdio {
				if _, err := b.callTool(WithUser(ctx, users[0]), "p", "add_prompt", map[string]any{"name": "fresh"}); err != nil {
					t.Fatalf("add_prompt = %v", err)
				}
			} else {
				add()
			}
			// One notification on a shared connection, one on each
			// user's own.
			notes := 1
			if tc.legacy {
				notes = len(users)
			}
			for range notes {
				select {
				case <-seen.seen:
				case <-ctx.Done():
					t.Fatal("the Bridge never handled prompts/list_changed")
				}
			}
			for _, u := range users {
				if got := list(u); !slices.Contains(got, "fresh") || len(got) != len(before[u])+1 {
					t.Errorf("%s's prompts after prompts/list_changed = %v, want %v and fresh", u, got, before[u])
				}
			}
		})
	}
}
