package mcpbridge

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"strings"
	"testing"

	"github.com/mcpgenai/bridge/mcpbridge/auth"
)

// TestLoginDPoP: against an authorization server that requires DPoP and
// nonces (at its token endpoint and at the MCP server), a login gets a
// DPoP-bound token: every token request carries a proof, the nonce
// challenges are answered, every request to the server carries a fresh
// proof with the server's nonce, the key is stored beside the token, and
// a new Bridge reuses token and key without a login. A configured key is
// the one the token is bound to.
func TestLoginDPoP(t *testing.T) {
	for _, configured := range []bool{false, true} {
		name := "key made at login"
		if configured {
			name = "configured key"
		}
		t.Run(name, func(t *testing.T) {
			ls := newLoginSetup(t, false, nil)
			ls.as.RequireDPoP("as-nonce-1", "rs-nonce-1")
			oauth := &OAuthConfig{Enabled: true}
			if configured {
				oauth.DPoPKey = newECKeyPEM(t)
			}
			p := &person{t: t}
			b := ls.bridge(t, p.LoginURL, ls.config(false, oauth))
			discover(t, b)
			doLogin(t, b, "remote")
			p.done()
			if got, err := call(t, b, "remote", "tool_00", nil); err != nil || got != "tool_00" {
				t.Fatalf("call = %q, %v", got, err)
			}
			tokenProofs, resourceProofs, asChallenges, rsChallenges := ls.as.DPoPCounts()
			if tokenProofs < 1 || resourceProofs < 2 || asChallenges < 1 || rsChallenges < 1 {
				t.Errorf("proofs: %d at the token endpoint, %d at the server; nonce challenges %d and %d; want them all", tokenProofs, resourceProofs, asChallenges, rsChallenges)
			}
			tok, _ := ls.store.Load(context.Background(), ls.key())
			if tok == nil || !strings.EqualFold(tok.TokenType, "DPoP") || !strings.Contains(tok.DPoPKey, "PRIVATE KEY") {
				t.Fatalf("stored token = %v (type %q, key %t), want a DPoP token with its key", tok, tok.TokenType, tok.DPoPKey != "")
			}
			if configured && tok.DPoPKey != oauth.DPoPKey {
				sameKey(t, tok.DPoPKey, oauth.DPoPKey)
			}
			if text := b.Status().String(); strings.Contains(text, "PRIVATE KEY") {
				t.Errorf("status shows the DPoP key:\n%s", text)
			}
			_ = b.Close()

			again := ls.bridge(t, noLogin(t), ls.config(false, oauth))
			discover(t, again)
			if st := serverStatus(t, again, "remote"); st.State != Connected || st.Auth != auth.StateAuthenticated {
				t.Fatalf("a new Bridge: %v %q (%s), want CONNECTED with the stored token and key", st.State, st.Auth, st.Error)
			}
		})
	}
}

// TestLoginDPoPNever: with "dpop": "never" the token is a bearer token,
// which a server that requires DPoP refuses.
func TestLoginDPoPNever(t *testing.T) {
	ls := newLoginSetup(t, false, nil)
	ls.as.RequireDPoP("", "")
	p := &person{t: t}
	b := ls.bridge(t, p.LoginURL, ls.config(false, &OAuthConfig{Enabled: true, DPoP: "never"}))
	discover(t, b)
	ctx := t.Context()
	_ = b.Login(ctx, "remote")
	p.done()
	if tokenProofs, _, _, _ := ls.as.DPoPCounts(); tokenProofs != 0 {
		t.Errorf("%d DPoP proofs at the token endpoint, want none", tokenProofs)
	}
}

// newECKeyPEM returns a new EC P-256 private key, PKCS #8 PEM.
func newECKeyPEM(t *testing.T) string {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
}

// sameKey fails t unless the PEM keys a and b are the same key.
func sameKey(t *testing.T, a, b string) {
	t.Helper()
	parse := func(s string) *ecdsa.PrivateKey {
		blk, _ := pem.Decode([]byte(s))
		if blk == nil {
			t.Fatalf("not PEM: %q", s[:min(len(s), 20)])
		}
		k, err := x509.ParsePKCS8PrivateKey(blk.Bytes)
		if err != nil {
			t.Fatal(err)
		}
		return k.(*ecdsa.PrivateKey)
	}
	if !parse(a).Equal(parse(b)) {
		t.Errorf("the stored key is not the configured key")
	}
}
