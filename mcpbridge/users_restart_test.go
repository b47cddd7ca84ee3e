package mcpbridge

import (
	"context"
	"testing"
	"time"

	"github.com/mcpgenai/bridge/internal/testauth"
	"github.com/mcpgenai/bridge/mcpbridge/auth"
	"github.com/mcpgenai/bridge/registry"
)

// TestUsersRestartNoExtra401: after a restart (a new Bridge on the same
// token store), a user's first call sends their stored token at once:
// the server refuses no request of theirs (it took a 401 to find the
// authorization server before: the token store's key names it). Alone on
// its Bridge, the user's first request is the discovery's.
func TestUsersRestartNoExtra401(t *testing.T) {
	for _, many := range []bool{true, false} {
		name := "one user"
		if many {
			name = "many users"
		}
		t.Run(name, func(t *testing.T) {
			as := testauth.Start(t)
			as.RegisterNative("service", "http://127.0.0.1/oauth/callback")
			var calls testauth.Calls
			p := as.ServeMCP(t, testauth.WhoAmI("modern", &calls), false, "")
			store := auth.NewMemoryStore()
			cfg := ServerConfig{Name: "modern", HTTPURL: p.URL, Timeout: time.Minute, Trust: true, OAuth: &OAuthConfig{Enabled: true, ClientID: "service"}}
			user, maxUsers := userNames(1)[0], 0
			if many {
				maxUsers = 4
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			uctx := ctx
			if many {
				uctx = WithUser(ctx, user)
			}
			login := func(ctx context.Context, server, authURL string) error {
				go func() {
					if page, err := testauth.ConsentAs(authURL, user); err != nil {
						t.Errorf("consent: %v %q", err, page)
					}
				}()
				return nil
			}
			first := newBridge(t, &Options{MaxUsers: maxUsers, TokenStore: store, LoginURL: login, ToolNames: registry.QualifiedNames}, cfg)
			discover(t, first)
			if err := first.Login(uctx, "modern"); err != nil {
				t.Fatalf("Login = %v", err)
			}
			if _, err := first.callTool(uctx, "modern", "whoami", map[string]any{"user": user}); err != nil {
				t.Fatalf("whoami before the restart = %v", err)
			}
			_ = first.Close()

			again := newBridge(t, &Options{MaxUsers: maxUsers, TokenStore: store, ToolNames: registry.QualifiedNames}, cfg)
			before := p.Refused.Load()
			if !many {
				// On a Bridge for many users the discovery's requests
				// are the user ""'s, who has no token: the user's call
				// comes first.
				discover(t, again)
			}
			if _, err := again.callTool(uctx, "modern", "whoami", map[string]any{"user": user}); err != nil {
				t.Fatalf("whoami after the restart = %v", err)
			}
			if n := p.Refused.Load() - before; n != 0 {
				t.Errorf("the first call after the restart met %d 401s, want 0 (the stored token sent at once)", n)
			}
			if n := calls.Crossings.Load(); n != 0 {
				t.Errorf("%d crossings", n)
			}
		})
	}
}
