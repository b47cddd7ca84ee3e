package mcpbridge

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpgenai/bridge/mcpbridge/auth"
)

// TestLoginClientCredentials: with grantType client_credentials the
// Bridge gets a token from the authorization server (zitadel's example
// service user) with HTTP Basic client authentication and connects
// without any login; the token is stored with its issuer.
func TestLoginClientCredentials(t *testing.T) {
	ls := newLoginSetup(t, false, nil)
	cfg := ls.config(false, &OAuthConfig{Enabled: true, GrantType: "client_credentials", ClientID: "sid1", ClientSecret: "verysecret"})
	b := ls.bridge(t, noLogin(t), cfg)
	discover(t, b)
	st := serverStatus(t, b, "remote")
	if st.State != Connected || st.Auth != auth.StateAuthenticated {
		t.Fatalf("remote: state %v, auth %q (%s; %s), want CONNECTED, authenticated", st.State, st.Auth, st.Error, st.AuthError)
	}
	if got, err := call(t, b, "remote", "tool_00", nil); err != nil || got != "tool_00" {
		t.Errorf("call = %q, %v, want tool_00", got, err)
	}
	if form := ls.as.LastTokenRequest(); form.Get("grant_type") != "client_credentials" || form.Get("client_secret") != "" || form.Get("resource") != ls.remote.URL {
		t.Errorf("token request %v: want client_credentials with the resource and the secret not in the body", form)
	}
	tok, err := ls.store.Load(context.Background(), ls.key())
	if err != nil || tok == nil || tok.AccessToken == "" || tok.Issuer != ls.as.Issuer {
		t.Fatalf("stored token = %+v, %v", tok, err)
	}
	assertNoSecret(t, ls, b, tok)
	if strings.Contains(ls.logs.String(), "verysecret") {
		t.Errorf("logs hold the client secret")
	}
}

// TestLoginClientCredentialsRefused: a wrong secret is a clear error in
// the status, and no login is asked for.
func TestLoginClientCredentialsRefused(t *testing.T) {
	ls := newLoginSetup(t, false, nil)
	cfg := ls.config(false, &OAuthConfig{Enabled: true, GrantType: "client_credentials", ClientID: "sid1", ClientSecret: "wrong-secret-1"})
	b := ls.bridge(t, noLogin(t), cfg)
	discover(t, b)
	st := serverStatus(t, b, "remote")
	if st.State == Connected || st.Auth != auth.StateFailed || !strings.Contains(st.AuthError, "client_credentials grant") {
		t.Errorf("remote: state %v, auth %q, auth error %q; want not connected, failed, the grant's error", st.State, st.Auth, st.AuthError)
	}
}

// TestLoginEnterpriseRefusedRedacted: zitadel's example server has no
// ID-JAG token exchange (the conformance suite's cross-app scenario covers
// the flow), so the exchange there fails; the failure is in the status,
// and neither the ID token nor the identity provider's secret shows
// anywhere.
func TestLoginEnterpriseRefusedRedacted(t *testing.T) {
	ls := newLoginSetup(t, false, nil)
	const idToken, idpSecret = "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ1In0.c2lnbmF0dXJlLXZhbHVl", "idp-Secret-4242"
	cfg := ls.config(false, &OAuthConfig{Enabled: true, GrantType: "enterprise", ClientID: "sid1", ClientSecret: "verysecret",
		IDPTokenURL: ls.as.Issuer + "/oauth/token", IDPClientID: "idp-client", IDPClientSecret: idpSecret, IDToken: idToken})
	b := ls.bridge(t, noLogin(t), cfg)
	discover(t, b)
	st := serverStatus(t, b, "remote")
	if st.State == Connected || st.Auth != auth.StateFailed || !strings.Contains(st.AuthError, "token exchange at the identity provider") {
		t.Errorf("remote: state %v, auth %q, auth error %q; want failed at the token exchange", st.State, st.Auth, st.AuthError)
	}
	if form := ls.as.LastTokenRequest(); form.Get("grant_type") != "urn:ietf:params:oauth:grant-type:token-exchange" ||
		form.Get("requested_token_type") != "urn:ietf:params:oauth:token-type:id-jag" || form.Get("audience") != ls.as.Issuer || form.Get("resource") != ls.remote.URL {
		t.Errorf("token exchange request %v: want an ID-JAG asked for the authorization server and the resource", form)
	}
	js, _ := json.Marshal(b.Status())
	for _, text := range []string{b.Status().String(), string(js), ls.logs.String()} {
		if strings.Contains(text, idToken) || strings.Contains(text, idpSecret) {
			t.Errorf("a configured secret shows:\n%s", text)
		}
	}
}

// TestLoginTokenOfAnotherIssuer: a stored token that another
// authorization server issued is kept under that server's key and never
// loaded, or sent, for the one the server's protected resource metadata
// names now: a login is asked for, and the token stays for when the server
// moves back. With "metadata slow", the first request (the bounded
// server/discover) gives up before the metadata comes, and a later one
// asks again.
func TestLoginTokenOfAnotherIssuer(t *testing.T) {
	for _, slow := range []bool{false, true} {
		t.Run(map[bool]string{false: "metadata at once", true: "metadata slow"}[slow], func(t *testing.T) {
			ls := newLoginSetup(t, false, nil)
			other := auth.Key{Server: ls.remote.URL, Issuer: "https://other-as.example"}
			if err := ls.store.Save(context.Background(), other, &auth.Token{AccessToken: "token-of-another-issuer", ClientID: "c", Issuer: other.Issuer}); err != nil {
				t.Fatal(err)
			}
			if slow {
				ls.remote.StallMetadata()
			}
			b := ls.bridge(t, noLogin(t), ls.config(false, &OAuthConfig{Enabled: true}))
			discover(t, b)
			if st := serverStatus(t, b, "remote"); st.Auth != auth.StateLoginNeeded {
				t.Errorf("remote: auth %q (%s), want login needed", st.Auth, st.Error)
			}
			if tok, err := ls.store.Load(context.Background(), ls.key()); err != nil || tok != nil {
				t.Errorf("token under the current issuer = %v, %v; want none", tok, err)
			}
			if tok, err := ls.store.Load(context.Background(), other); err != nil || tok == nil {
				t.Errorf("token under the other issuer = %v, %v; want it kept", tok, err)
			}
			if ls.remote.Offered("token-of-another-issuer") {
				t.Error("the token of another authorization server was sent to the server")
			}
		})
	}
}
