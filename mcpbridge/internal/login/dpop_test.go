package login

import (
	"crypto/ecdsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestParseNonce(t *testing.T) {
	for v, ok := range map[string]bool{
		"abc-123_~!":                    true,
		"":                              false,
		"has space":                     false,
		`quote"`:                        false,
		`back\slash`:                    false,
		"tab\t":                         false,
		"é":                             false,
		strings.Repeat("a", maxNonce):   true,
		strings.Repeat("a", maxNonce+1): false,
	} {
		h := http.Header{}
		h.Set("DPoP-Nonce", v)
		if _, got := parseNonce(h); got != ok {
			t.Errorf("parseNonce(%q) ok = %v, want %v", v, got, ok)
		}
	}
	two := http.Header{"Dpop-Nonce": {"a", "b"}}
	if _, ok := parseNonce(two); ok {
		t.Errorf("two DPoP-Nonce values accepted")
	}
}

func TestNonceChallenge(t *testing.T) {
	h := http.Header{"Www-Authenticate": {`DPoP error="use_dpop_nonce", error_description="fresh nonce"`}}
	if !nonceChallenge(http.StatusUnauthorized, h, nil) {
		t.Errorf("a DPoP use_dpop_nonce challenge not seen")
	}
	if nonceChallenge(http.StatusUnauthorized, http.Header{"Www-Authenticate": {`Bearer error="use_dpop_nonce"`}}, nil) {
		t.Errorf("a Bearer challenge taken for a DPoP one")
	}
	if !nonceChallenge(http.StatusBadRequest, nil, []byte(`{"error":"use_dpop_nonce"}`)) {
		t.Errorf("a token endpoint's use_dpop_nonce not seen")
	}
	if nonceChallenge(http.StatusBadRequest, nil, []byte(`{"error":"invalid_grant"}`)) {
		t.Errorf("invalid_grant taken for a nonce challenge")
	}
}

// TestProof: a proof is an ES256 dpop+jwt carrying the public key, with
// the request's method and URL (no query), the token's hash and the
// nonce, whose signature verifies with that key.
func TestProof(t *testing.T) {
	k, err := newDPoPKey()
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse("https://mcp.example/mcp?x=1#f")
	p, err := k.proof("POST", u, "tok", "n1", time.Unix(1000, 0))
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(p, ".")
	if len(parts) != 3 {
		t.Fatalf("proof %q is not a compact JWS", p)
	}
	var head struct {
		Typ, Alg string
		JWK      map[string]string
	}
	var claims map[string]any
	dec := func(s string, v any) {
		b, err := base64.RawURLEncoding.DecodeString(s)
		if err != nil || json.Unmarshal(b, v) != nil {
			t.Fatalf("part %q: %v", s, err)
		}
	}
	dec(parts[0], &head)
	dec(parts[1], &claims)
	sum := sha256.Sum256([]byte("tok"))
	if head.Typ != "dpop+jwt" || head.Alg != "ES256" || head.JWK["kty"] != "EC" || head.JWK["d"] != "" ||
		claims["htm"] != "POST" || claims["htu"] != "https://mcp.example/mcp" || claims["nonce"] != "n1" ||
		claims["ath"] != base64.RawURLEncoding.EncodeToString(sum[:]) || claims["iat"] != float64(1000) {
		t.Errorf("proof header %+v claims %v", head, claims)
	}
	sig, _ := base64.RawURLEncoding.DecodeString(parts[2])
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	r, s := new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])
	if !ecdsa.Verify(&k.priv.PublicKey, digest[:], r, s) {
		t.Errorf("the proof's signature does not verify")
	}
	if k2, err := parseDPoPKey(k.pem); err != nil || k2.thumbprint() != k.thumbprint() {
		t.Errorf("the key's PEM does not read back as the key: %v", err)
	}
}

// FuzzDPoPNonce: any DPoP-Nonce header, WWW-Authenticate challenge and
// token endpoint body are read without a panic; a nonce accepted is
// 1 to maxNonce printable characters without quote, backslash or space.
func FuzzDPoPNonce(f *testing.F) {
	f.Add("abc", `DPoP error="use_dpop_nonce"`, `{"error":"use_dpop_nonce"}`, 401)
	f.Add("x y", `DPoP realm="a", error=use_dpop_nonce, Bearer`, `{"error":1}`, 400)
	f.Add("", `Bearer error="invalid_token"`, `not json`, 400)
	f.Fuzz(func(t *testing.T, nonce, challenge, body string, status int) {
		h := http.Header{}
		h.Set("DPoP-Nonce", nonce)
		h.Set("WWW-Authenticate", challenge)
		if n, ok := parseNonce(h); ok {
			if n == "" || len(n) > maxNonce || strings.ContainsAny(n, "\" \\\t\r\n") {
				t.Fatalf("parseNonce accepted %q", n)
			}
			for _, c := range []byte(n) {
				if c < 0x21 || c > 0x7e {
					t.Fatalf("parseNonce accepted %q", n)
				}
			}
		}
		_ = nonceChallenge(status, h, []byte(body))
		_ = dpopChallenged(h)
	})
}
