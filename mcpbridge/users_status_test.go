package mcpbridge

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpgenai/bridge/mcpbridge/auth"
	"github.com/mcpgenai/bridge/registry"
)

// TestUsersStatus: Declarations.Status reports the login state,
// connection and tools of the user the declarations were made for at
// the servers whose credentials are each user's (one user logged in, the
// other not), and the shared servers as everyone sees them;
// Bridge.Status stays the view of no user, counting the users connected.
func TestUsersStatus(t *testing.T) {
	us := newUsersSetup(t)
	b := newBridge(t, &Options{MaxUsers: 4, TokenStore: us.store, LoginURL: loginURL(t), ToolNames: registry.QualifiedNames}, us.configs()...)
	discover(t, b)
	users := userNames(2)
	in, out := users[0], users[1]
	loginAll(t, b, []string{in})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	status := func(u string) map[string]ServerStatus {
		t.Helper()
		d, err := b.Declare(WithUser(ctx, u), nil, nil)
		if err != nil {
			t.Fatalf("Declare(%s) = %v", u, err)
		}
		m := map[string]ServerStatus{}
		for _, s := range d.Status().Servers {
			m[s.Name] = s
		}
		return m
	}
	hasTool := func(s ServerStatus, suffix string) bool {
		return slices.ContainsFunc(s.Tools, func(n string) bool { return strings.HasSuffix(n, suffix) })
	}
	mine, theirs := status(in), status(out)
	for _, name := range usersServers {
		if s := mine[name]; s.Auth != auth.StateAuthenticated || s.State != Connected || !hasTool(s, "_whoami") || s.Protocol == "" {
			t.Errorf("%s's status of %s: Auth %v, State %v, Tools %v, Protocol %q; want authenticated, connected, whoami", in, name, s.Auth, s.State, s.Tools, s.Protocol)
		}
		if s := theirs[name]; !s.Auth.NeedsLogin() || s.State == Connected || len(s.Tools) != 0 || !s.PerUser {
			t.Errorf("%s's status of %s: Auth %v, State %v, Tools %v; want a login needed, not connected, no tools", out, name, s.Auth, s.State, s.Tools)
		}
	}
	for _, m := range []map[string]ServerStatus{mine, theirs} {
		if s := m["plain"]; s.PerUser || s.State != Connected || !hasTool(s, "_echo") {
			t.Errorf("the shared server's status for a user: PerUser %v, State %v, Tools %v", s.PerUser, s.State, s.Tools)
		}
	}
	for _, s := range b.Status().Servers {
		if s.Name == "plain" {
			continue
		}
		if !s.PerUser || s.Users != 1 || s.Auth == auth.StateAuthenticated {
			t.Errorf("Bridge.Status of %s: PerUser %v, Users %d, Auth %v; want per user, 1 user connected, not %s's login", s.Name, s.PerUser, s.Users, s.Auth, in)
		}
	}
}
