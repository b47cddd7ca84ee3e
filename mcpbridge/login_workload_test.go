package mcpbridge

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/mcpgenai/bridge/mcpbridge/auth"
)

// TestLoginWorkloadIdentity: with grantType jwt_bearer, a token the host
// already holds (signed by a platform the authorization server trusts)
// is presented as a JWT bearer grant, with no person, no client secret
// and no login; given inline or in a file, it never shows in the status
// or the logs. A token the server refuses leaves the server needing
// credentials, with the server's reason, and is not presented again on
// every call.
func TestLoginWorkloadIdentity(t *testing.T) {
	platform, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		audience string
		file     bool
		ok       bool
	}{
		{"inline", "", false, true},
		{"file", "", true, true},
		{"wrong audience", "https://elsewhere.example", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ls := newLoginSetup(t, false, nil)
			ls.as.TrustWorkloads(&platform.PublicKey)
			aud := tc.audience
			if aud == "" {
				aud = ls.as.Issuer
			}
			jwt := workloadToken(t, platform, aud)
			oauth := &OAuthConfig{Enabled: true, GrantType: "jwt_bearer", ClientID: "workload-7"}
			if tc.file {
				oauth.AssertionFile = filepath.Join(t.TempDir(), "token")
				if err := os.WriteFile(oauth.AssertionFile, []byte(jwt+"\n"), 0o600); err != nil {
					t.Fatal(err)
				}
			} else {
				oauth.Assertion = jwt
			}
			b := ls.bridge(t, noLogin(t), ls.config(false, oauth))
			discover(t, b)
			st := serverStatus(t, b, "remote")
			form := ls.as.LastTokenRequest()
			if form.Get("grant_type") != "urn:ietf:params:oauth:grant-type:jwt-bearer" || form.Get("assertion") != jwt || form.Get("client_id") != "workload-7" || form.Get("client_secret") != "" {
				t.Errorf("token request %v: want a JWT bearer grant of the workload's token as public client workload-7", form)
			}
			if tc.ok {
				if st.State != Connected || st.Auth != auth.StateAuthenticated {
					t.Fatalf("state %v, auth %q (%s; %s), want CONNECTED with the workload's grant", st.State, st.Auth, st.Error, st.AuthError)
				}
				if got, err := call(t, b, "remote", "tool_00", nil); err != nil || got != "tool_00" {
					t.Errorf("call = %q, %v", got, err)
				}
				if n := ls.as.Workloads.Load(); n != 1 {
					t.Errorf("grants = %d, want 1", n)
				}
			} else {
				if st.State == Connected || !strings.Contains(st.AuthError, "audience") {
					t.Fatalf("state %v, auth error %q, want not connected with the server's reason", st.State, st.AuthError)
				}
			}
			if text := b.Status().String() + ls.logs.String(); strings.Contains(text, jwt) {
				t.Errorf("the workload's token shows in the status or the logs")
			}
		})
	}
}

// workloadToken returns a token the platform signed for this workload,
// for the audience aud, valid for five minutes.
func workloadToken(t *testing.T, key *ecdsa.PrivateKey, aud string) string {
	t.Helper()
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key}, (&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		t.Fatal(err)
	}
	claims, _ := json.Marshal(map[string]any{
		"iss": "https://platform.example", "sub": "workload-7", "aud": aud,
		"iat": time.Now().Unix(), "exp": time.Now().Add(5 * time.Minute).Unix(),
	})
	obj, err := signer.Sign(claims)
	if err != nil {
		t.Fatal(err)
	}
	s, err := obj.CompactSerialize()
	if err != nil {
		t.Fatal(err)
	}
	return s
}
