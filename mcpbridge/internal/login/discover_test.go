package login

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpgenai/bridge/mcpbridge/auth"
)

// metaServer serves JSON documents at paths and records every path asked.
type metaServer struct {
	*httptest.Server
	mu    sync.Mutex
	asked []string
	docs  map[string]func(base string) any
}

func newMetaServer(t *testing.T, docs map[string]func(base string) any) *metaServer {
	m := &metaServer{docs: docs}
	m.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m.mu.Lock()
		m.asked = append(m.asked, r.URL.Path)
		m.mu.Unlock()
		doc, ok := m.docs[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(doc(m.URL))
	}))
	t.Cleanup(m.Close)
	return m
}

func asDoc(issuerPath string, pkce bool) func(string) any {
	return func(base string) any {
		d := map[string]any{
			"issuer":                 base + issuerPath,
			"authorization_endpoint": base + "/authorize",
			"token_endpoint":         base + "/token",
		}
		if pkce {
			d["code_challenge_methods_supported"] = []string{"S256"}
		}
		return d
	}
}

func prmDoc(resourcePath, asPath string) func(string) any {
	return func(base string) any {
		return map[string]any{"resource": base + resourcePath, "authorization_servers": []string{base + asPath}, "scopes_supported": []string{"a", "b"}}
	}
}

// TestDiscoverOrder checks the order in which discovery asks for the
// metadata documents, and what it finds, for the layouts the MCP
// specification names.
func TestDiscoverOrder(t *testing.T) {
	tests := []struct {
		name      string
		docs      map[string]func(string) any
		challenge string // resource_metadata path, if any
		wantAsked []string
		wantFound bool
		wantErr   string
	}{
		{
			name: "path-inserted resource metadata, RFC 8414 root",
			docs: map[string]func(string) any{
				"/.well-known/oauth-protected-resource/mcp": prmDoc("/mcp", ""),
				"/.well-known/oauth-authorization-server":   asDoc("", true),
			},
			wantAsked: []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-authorization-server"},
			wantFound: true,
		},
		{
			name: "root resource metadata after the path-inserted 404, issuer with a path",
			docs: map[string]func(string) any{
				"/.well-known/oauth-protected-resource":           prmDoc("/mcp", "/tenant1"),
				"/.well-known/oauth-authorization-server/tenant1": asDoc("/tenant1", true),
			},
			wantAsked: []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource", "/.well-known/oauth-authorization-server/tenant1"},
			wantFound: true,
		},
		{
			name: "challenge's resource_metadata first; OpenID path appended last",
			docs: map[string]func(string) any{
				"/custom/prm.json":                          prmDoc("/mcp", "/tenant1"),
				"/tenant1/.well-known/openid-configuration": asDoc("/tenant1", true),
			},
			challenge: "/custom/prm.json",
			wantAsked: []string{"/custom/prm.json", "/.well-known/oauth-authorization-server/tenant1", "/.well-known/openid-configuration/tenant1", "/tenant1/.well-known/openid-configuration"},
			wantFound: true,
		},
		{
			name: "2025-03-26: no resource metadata, authorization server metadata at the root",
			docs: map[string]func(string) any{
				"/.well-known/oauth-authorization-server": asDoc("/oauth", true),
			},
			wantAsked: []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource", "/.well-known/oauth-authorization-server"},
			wantFound: true,
		},
		{
			name:      "2025-03-26: no metadata at all, default endpoints",
			docs:      map[string]func(string) any{},
			wantAsked: []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource", "/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"},
		},
		{
			name: "resource of another server refused",
			docs: map[string]func(string) any{
				"/.well-known/oauth-protected-resource/mcp": func(string) any {
					return map[string]any{"resource": "https://evil.example/mcp", "authorization_servers": []string{"https://evil.example"}}
				},
			},
			wantAsked: []string{"/.well-known/oauth-protected-resource/mcp"},
			wantErr:   "names resource",
		},
		{
			name: "issuer of another server refused",
			docs: map[string]func(string) any{
				"/.well-known/oauth-protected-resource/mcp": prmDoc("/mcp", ""),
				"/.well-known/oauth-authorization-server":   asDoc("/other", true),
			},
			wantAsked: []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-authorization-server"},
			wantErr:   "names issuer",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newMetaServer(t, tt.docs)
			c := New(Config{Server: "s", ServerURL: m.URL + "/mcp"})
			h := http.Header{}
			if tt.challenge != "" {
				h.Set("WWW-Authenticate", `Bearer resource_metadata="`+m.URL+tt.challenge+`"`)
			}
			d, err := c.discover(context.Background(), h)
			if diff := cmp.Diff(tt.wantAsked, m.asked); diff != "" {
				t.Errorf("documents asked for (-want +got):\n%s", diff)
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("discover = %v, want an error with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("discover = %v", err)
			}
			if d.Found != tt.wantFound || d.AS.TokenEndpoint != m.URL+"/token" || d.Resource != m.URL+"/mcp" {
				t.Errorf("discovery = %+v, want found %t, token endpoint %s/token, resource %s/mcp", d, tt.wantFound, m.URL, m.URL)
			}
		})
	}
}

// TestLoginRefusesNoPKCE: an authorization server whose metadata does not
// list S256 is refused before any URL is shown or client registered.
func TestLoginRefusesNoPKCE(t *testing.T) {
	m := newMetaServer(t, map[string]func(string) any{
		"/.well-known/oauth-protected-resource/mcp": prmDoc("/mcp", ""),
		"/.well-known/oauth-authorization-server":   asDoc("", false),
	})
	shown := false
	c := New(Config{Server: "s", ServerURL: m.URL + "/mcp", Store: emptyStore{}, ShowURL: func(context.Context, string, string) error {
		shown = true
		return nil
	}})
	err := c.Login(context.Background())
	if !errors.Is(err, ErrNoPKCE) || shown {
		t.Errorf("Login = %v (URL shown %t), want ErrNoPKCE and no URL", err, shown)
	}
}

// TestScopes: configured scopes win; else the challenge's; else the
// protected resource's scopes_supported; else none.
func TestScopes(t *testing.T) {
	d := &discovery{ResourceScopes: []string{"r1", "r2"}}
	challenge := http.Header{"Www-Authenticate": {`Bearer scope="c1 c2"`}}
	for _, tt := range []struct {
		name       string
		configured []string
		challenge  http.Header
		d          *discovery
		want       []string
	}{
		{"configured", []string{"x"}, challenge, d, []string{"x"}},
		{"challenge", nil, challenge, d, []string{"c1", "c2"}},
		{"scopes_supported", nil, nil, d, []string{"r1", "r2"}},
		{"none", nil, nil, &discovery{}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := New(Config{Scopes: tt.configured, Store: emptyStore{}})
			c.sh.challenge = tt.challenge
			if diff := cmp.Diff(tt.want, c.scopes(context.Background(), tt.d)); diff != "" {
				t.Errorf("scopes (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCallbackIssuer: with RFC 9207 advertised, a response without iss
// or with another issuer's is refused; one from the issuer is taken.
func TestCallbackIssuer(t *testing.T) {
	for _, tt := range []struct {
		name, query, required string
		wantErr               bool
	}{
		{"advertised, matching", "state=s1&code=c&iss=https%3A%2F%2Fas.example", "https://as.example", false},
		{"advertised, missing", "state=s1&code=c", "https://as.example", true},
		{"advertised, other issuer", "state=s1&code=c&iss=https%3A%2F%2Fevil.example", "https://as.example", true},
		{"not advertised, other issuer", "state=s1&code=c&iss=https%3A%2F%2Fevil.example", "", true},
		{"not advertised, absent", "state=s1&code=c", "", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := make(chan callback, 1)
			h := callbackHandler("/cb", "s1", tt.required, "https://as.example", got)
			h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/cb?"+tt.query, nil))
			cb := <-got
			if (cb.err != nil) != tt.wantErr || (tt.wantErr && !errors.Is(cb.err, ErrIssuerMismatch)) {
				t.Errorf("callback = %+v, want error %t (ErrIssuerMismatch)", cb, tt.wantErr)
			}
		})
	}
}

// TestClientAssertion: the private_key_jwt assertion verifies with the
// public key and carries the claims RFC 7523 asks for.
func TestClientAssertion(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	signer, alg, err := parsePrivateKey(string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})), "")
	if err != nil || alg != "ES256" {
		t.Fatalf("parsePrivateKey = %v, %q, want ES256", err, alg)
	}
	if _, _, err := parsePrivateKey(string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})), "RS256"); err == nil {
		t.Errorf("parsePrivateKey with RS256 for an EC key = nil error")
	}
	now := time.Unix(1_700_000_000, 0)
	jwt, err := clientAssertion(signer, alg, "client-1", "https://as.example", now)
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(jwt, ".")
	if len(parts) != 3 {
		t.Fatalf("assertion %q: want three parts", jwt)
	}
	sig, _ := base64.RawURLEncoding.DecodeString(parts[2])
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if len(sig) != 64 || !ecdsa.Verify(&key.PublicKey, sum[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
		t.Errorf("assertion signature does not verify")
	}
	payload, _ := base64.RawURLEncoding.DecodeString(parts[1])
	var claims map[string]any
	if err := json.Unmarshal(payload, &claims); err != nil {
		t.Fatal(err)
	}
	if claims["iss"] != "client-1" || claims["sub"] != "client-1" || claims["aud"] != "https://as.example" || claims["jti"] == "" || claims["exp"].(float64) != float64(now.Add(5*time.Minute).Unix()) {
		t.Errorf("claims = %v", claims)
	}
}

// emptyStore is an auth.Store that holds nothing: every Load finds no token.
type emptyStore struct{}

func (emptyStore) Load(context.Context, auth.Key) (*auth.Token, error) { return nil, nil }
func (emptyStore) Save(context.Context, auth.Key, *auth.Token) error   { return nil }
func (emptyStore) Delete(context.Context, auth.Key) error              { return nil }
