package mcpbridge

import (
	"context"
	"testing"

	"github.com/mcpgenai/bridge/internal/testauth"
	"github.com/mcpgenai/bridge/mcpbridge/auth"
)

// TestLoginAuthorizationServerMoves: after a server moves to another
// authorization server (its protected resource metadata names the new one
// and the old tokens are refused), a call that meets the 401 reads the
// metadata again, forgets the old token and client instead of refreshing
// at the old server, and the next Login registers a new client with the
// new server, whose token the server then accepts.
func TestLoginAuthorizationServerMoves(t *testing.T) {
	ls := newLoginSetup(t, false, nil)
	p := &person{t: t}
	b := ls.bridge(t, p.LoginURL, ls.config(false, nil))
	discover(t, b)
	doLogin(t, b, "remote")
	if got, err := call(t, b, "remote", "tool_00", nil); err != nil || got != "tool_00" {
		t.Fatalf("call before the move = %q, %v", got, err)
	}
	old, _ := ls.store.Load(context.Background(), ls.key())

	as2 := testauth.Start(t)
	ls.remote.MoveTo(as2)
	refreshes := ls.as.Refreshes.Load()
	if _, err := call(t, b, "remote", "tool_00", nil); err == nil {
		t.Fatalf("call after the move succeeded, want a login needed")
	}
	if st := serverStatus(t, b, "remote"); !st.Auth.NeedsLogin() {
		t.Fatalf("auth after the move = %q, want a login needed", st.Auth)
	}
	if got := ls.as.Refreshes.Load() - refreshes; got != 0 {
		t.Errorf("refreshes at the old server after the move = %d, want 0", got)
	}

	doLogin(t, b, "remote")
	p.done()
	if got := as2.Registrations.Load(); got != 1 {
		t.Errorf("registrations at the new server = %d, want 1", got)
	}
	tok, _ := ls.store.Load(context.Background(), auth.Key{Server: ls.remote.URL, Issuer: as2.Issuer})
	if gone, _ := ls.store.Load(context.Background(), ls.key()); gone != nil {
		t.Errorf("the old authorization server's token and client are still stored")
	}
	if tok == nil || tok.Issuer != as2.Issuer || tok.ClientID == "" || old == nil || old.Issuer != ls.as.Issuer {
		t.Errorf("stored token: before the move %+v, after %+v; want issuers %q then %q", old, tok, ls.as.Issuer, as2.Issuer)
	}
	if got, err := call(t, b, "remote", "tool_00", nil); err != nil || got != "tool_00" {
		t.Errorf("call after the new login = %q, %v", got, err)
	}
	if st := serverStatus(t, b, "remote"); st.Auth != auth.StateAuthenticated {
		t.Errorf("auth = %q, want authenticated", st.Auth)
	}
}
