package mcpbridge

import (
	"context"
	"errors"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/mcpgenai/bridge/mcpbridge/auth"
)

// TestLoginStepUp: a 403 insufficient_scope on a call makes the status ask
// for a login with the scopes the server named; the next login asks for
// them with the client registered before, and the call then runs.
func TestLoginStepUp(t *testing.T) {
	ls := newLoginSetup(t, false, nil)
	ls.remote.StepUp("email", "email")
	p := &person{t: t}
	b := ls.bridge(t, p.LoginURL, ls.config(false, nil))
	discover(t, b)
	doLogin(t, b, "remote")

	_, err := call(t, b, "remote", "tool_00", nil)
	if !errors.Is(err, auth.ErrLoginRequired) || !strings.Contains(err.Error(), "openid email") {
		t.Errorf("call with too narrow a token = %v, want ErrLoginRequired naming the scopes", err)
	}
	st := serverStatus(t, b, "remote")
	if st.Auth != auth.StateLoginNeeded || !slices.Equal(st.AuthScopes, []string{"openid", "email"}) {
		t.Errorf("status after the 403: auth %q, scopes %q, want login needed for [openid email]", st.Auth, st.AuthScopes)
	}
	if ls.as.Refreshes.Load() != 0 {
		t.Errorf("refreshes = %d, want 0: a 403 is no reason to refresh", ls.as.Refreshes.Load())
	}

	doLogin(t, b, "remote")
	p.done()
	if len(p.urls) != 2 {
		t.Fatalf("LoginURL called %d times, want 2", len(p.urls))
	}
	u, err := url.Parse(p.urls[1])
	if err != nil {
		t.Fatal(err)
	}
	asked := strings.Fields(u.Query().Get("scope"))
	slices.Sort(asked)
	if !slices.Equal(asked, []string{"email", "offline_access", "openid"}) {
		t.Errorf("step-up asks for scopes %q, want those held and those the 403 named", asked)
	}
	if got, err := call(t, b, "remote", "tool_00", nil); err != nil || got != "tool_00" {
		t.Errorf("call after the step-up = %q, %v, want tool_00", got, err)
	}
	st = serverStatus(t, b, "remote")
	if st.Auth != auth.StateAuthenticated || st.AuthScopes != nil {
		t.Errorf("status after the step-up: auth %q, scopes %q, want authenticated, none", st.Auth, st.AuthScopes)
	}
	if got := ls.as.Registrations.Load(); got != 1 {
		t.Errorf("dynamic registrations = %d, want 1: the registered client is reused", got)
	}
	if reg := ls.as.LastRegistration(); reg["application_type"] != "native" {
		t.Errorf("registration body %v: want application_type native", reg)
	}
	tok, err := ls.store.Load(context.Background(), ls.key())
	if err != nil || tok == nil || tok.Issuer != ls.as.Issuer || !slices.Contains(tok.Scopes, "email") {
		t.Errorf("stored token = %+v, %v; want the issuer and the scopes asked", tok, err)
	}
}

// TestLoginStepUpRefused: a server that keeps refusing for a scope the
// authorization server never grants ends after one step-up with an error
// saying so, not with a loop of logins or refreshes.
func TestLoginStepUpRefused(t *testing.T) {
	ls := newLoginSetup(t, false, nil)
	ls.remote.StepUp("admin", "admin")
	p := &person{t: t}
	b := ls.bridge(t, p.LoginURL, ls.config(false, nil))
	discover(t, b)
	doLogin(t, b, "remote")
	if _, err := call(t, b, "remote", "tool_00", nil); !errors.Is(err, auth.ErrLoginRequired) {
		t.Fatalf("first refusal = %v, want ErrLoginRequired (a step-up)", err)
	}
	doLogin(t, b, "remote")
	_, err := call(t, b, "remote", "tool_00", nil)
	if !errors.Is(err, auth.ErrInsufficientScope) {
		t.Errorf("refusal after the step-up = %v, want ErrInsufficientScope", err)
	}
	st := serverStatus(t, b, "remote")
	if st.Auth != auth.StateFailed || !strings.Contains(st.AuthError, "insufficient scope") {
		t.Errorf("status: auth %q, error %q, want failed with the reason", st.Auth, st.AuthError)
	}
	p.done()
	if len(p.urls) != 2 || ls.as.Refreshes.Load() != 0 || ls.remote.Forbidden.Load() != 2 {
		t.Errorf("logins %d, refreshes %d, 403s %d; want 2, 0, 2", len(p.urls), ls.as.Refreshes.Load(), ls.remote.Forbidden.Load())
	}
}
