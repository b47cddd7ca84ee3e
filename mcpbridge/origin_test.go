package mcpbridge

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcpgenai/bridge/mcpbridge/auth"
	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
)

// credentialKind sets up one kind of credential for a server at url: it
// sets the server's configuration, the Options and hooks it needs, and
// returns the text that marks the credential wherever it travels.
type credentialKind struct {
	name  string
	setup func(t *testing.T, cfg *ServerConfig, o *Options, h *testHooks) (secret string)
	// env says setup sets environment variables: its test cannot run in
	// parallel.
	env bool
}

var credentialKinds = []credentialKind{
	{"configured header", func(t *testing.T, cfg *ServerConfig, o *Options, h *testHooks) string {
		cfg.Headers = map[string]string{"X-Api-Key": "hdr-secret-5b1e"}
		return "hdr-secret-5b1e"
	}, false},
	{"oauth bearer", func(t *testing.T, cfg *ServerConfig, o *Options, h *testHooks) string {
		storedToken(t, cfg, o, "")
		return "oauth-secret-9c2d"
	}, false},
	{"oauth tokenParamName", func(t *testing.T, cfg *ServerConfig, o *Options, h *testHooks) string {
		storedToken(t, cfg, o, "access_token")
		return "oauth-secret-9c2d"
	}, false},
	{"google credentials", func(t *testing.T, cfg *ServerConfig, o *Options, h *testHooks) string {
		g := newFakeGoogle(t)
		g.keyFile(t)
		cfg.AuthProviderType = AuthGoogleCredentials
		cfg.OAuth = &OAuthConfig{Enabled: true, Scopes: []string{CloudPlatformScopeForTest}}
		h.googleHost = func(string) bool { return true }
		return "ya29.access-"
	}, true},
	{"google id token", func(t *testing.T, cfg *ServerConfig, o *Options, h *testHooks) string {
		g := newFakeGoogle(t)
		g.keyFile(t)
		cfg.AuthProviderType = AuthServiceAccountImpersonation
		cfg.TargetAudience, cfg.TargetServiceAccount = "aud-1.apps.googleusercontent.com", "invoker@test-project.iam.gserviceaccount.com"
		h.googleTransport = iamTo{g.srv.URL}
		return "id-token|"
	}, true},
}

// CloudPlatformScopeForTest is the scope of the Google credentials of the
// tests.
const CloudPlatformScopeForTest = "https://www.googleapis.com/auth/cloud-platform"

// storedToken configures OAuth with fixed endpoints and a valid access
// token already in the store, so that the first request carries it.
func storedToken(t *testing.T, cfg *ServerConfig, o *Options, param string) {
	t.Helper()
	cfg.OAuth = &OAuthConfig{Enabled: true, ClientID: "client-1",
		AuthorizationURL: "http://127.0.0.1:1/authorize", TokenURL: "http://127.0.0.1:1/token", TokenParamName: param}
	st := auth.NewMemoryStore()
	if err := st.Save(context.Background(), auth.Key{Server: cfg.endpoint(), Issuer: "http://127.0.0.1:1"}, &auth.Token{AccessToken: "oauth-secret-9c2d", TokenType: "Bearer",
		Expiry: time.Now().Add(time.Hour), ClientID: "client-1"}); err != nil {
		t.Fatal(err)
	}
	o.TokenStore = st
}

// carries reports where a recorded request holds secret or any
// credential header; "" when it holds none.
func carries(r testserver.Request, secret string, headers ...string) string {
	for _, h := range append([]string{"Authorization", "Cookie"}, headers...) {
		if v := r.Header.Values(h); len(v) > 0 {
			return fmt.Sprintf("header %s: %q", h, v)
		}
	}
	if strings.Contains(r.URL, secret) {
		return "URL " + r.URL
	}
	for name, vs := range r.Header {
		for _, v := range vs {
			if strings.Contains(v, secret) {
				return "header " + name
			}
		}
	}
	if strings.Contains(string(r.Body), secret) {
		return "body"
	}
	return ""
}

// TestCredentialsStayWithOrigin: a server that redirects every request
// (307, path and query kept, so a token in the query would be copied into
// the new URL) to another origin, on a second port or a second loopback
// address, gets each kind of credential itself, and the other origin,
// which serves the MCP server, gets none of them: the Bridge follows the
// redirect without credentials. Every request the other origin receives
// is recorded and checked, for SSE and streamable HTTP, in both protocol
// eras.
func TestCredentialsStayWithOrigin(t *testing.T) {
	transports := []struct {
		name string
		sse  bool
		era  testserver.Era
		want string // the protocol of the connection
	}{
		{"sse legacy", true, testserver.EraLegacy, "2025"},
		// An SSE server that answers server/discover speaks 2026-07-28.
		{"sse 2026-07-28", true, testserver.EraBoth, "2026-07-28"},
		{"http legacy", false, testserver.EraLegacy, "2025"},
		{"http 2026-07-28", false, testserver.EraModern, "2026-07-28"},
	}
	others := []struct{ name, addr string }{
		{"second port", "127.0.0.1:0"},
		{"second loopback address", "127.0.0.2:0"},
	}
	for _, kind := range credentialKinds {
		for _, tr := range transports {
			for _, other := range others {
				t.Run(kind.name+"/"+tr.name+"/"+other.name, func(t *testing.T) {
					srv := testserver.ServeRedirected(t, testserver.Options{Tools: 1, Era: tr.era}, tr.sse, other.addr)
					cfg := ServerConfig{Name: "moved", Timeout: 10 * time.Second}
					if tr.sse {
						cfg.URL, cfg.Type = srv.URL, "sse"
					} else {
						cfg.HTTPURL = srv.URL
					}
					o, h := &Options{}, testHooks{}
					secret := kind.setup(t, &cfg, o, &h)
					b := newBridgeHooks(t, o, h, cfg)
					discover(t, b)
					st := serverStatus(t, b, "moved")
					if st.State != Connected || !strings.Contains(st.Protocol, tr.want) {
						t.Errorf("state %v, protocol %q (%s), want CONNECTED over %s through the redirect", st.State, st.Protocol, st.Error, tr.want)
					}
					if st.State == Connected {
						if got, err := call(t, b, "moved", "tool_00", nil); err != nil || got != "tool_00" {
							t.Errorf("call = %q, %v, want tool_00", got, err)
						}
					}
					here := 0
					for _, r := range srv.Here.Requests() {
						if strings.Contains(r.URL+fmt.Sprint(r.Header), secret) {
							here++
						}
					}
					if here == 0 {
						t.Errorf("the configured origin never got the credential (%d requests): the test shows nothing", len(srv.Here.Requests()))
					}
					reqs := srv.There.Requests()
					if len(reqs) == 0 {
						t.Fatal("the other origin got no request: the redirect was not followed")
					}
					for i, r := range reqs {
						if where := carries(r, secret, "X-Api-Key"); where != "" {
							t.Errorf("request %d to the other origin (%s %s) carries a credential in its %s", i, r.Method, r.URL, where)
						}
					}
				})
			}
		}
	}
}

// TestSSEEndpointOnOtherOrigin: an SSE server whose endpoint event names a
// message endpoint on another origin (another port, another loopback
// address) gets no request sent there, with or without credentials: the
// endpoint is refused and the connection fails.
func TestSSEEndpointOnOtherOrigin(t *testing.T) {
	for _, kind := range credentialKinds {
		for _, addr := range []string{"127.0.0.1:0", "127.0.0.2:0"} {
			t.Run(kind.name+"/"+addr, func(t *testing.T) {
				if !kind.env {
					t.Parallel() // each waits for an endpoint that never comes
				}
				srv := testserver.ServeForeignEndpoint(t, testserver.Options{Tools: 1, Era: testserver.EraLegacy}, addr)
				cfg := ServerConfig{Name: "elsewhere", URL: srv.URL, Type: "sse", Timeout: 1500 * time.Millisecond}
				o, h := &Options{}, testHooks{}
				secret := kind.setup(t, &cfg, o, &h)
				b := newBridgeHooks(t, o, h, cfg)
				_ = b.Discover(context.Background())
				if st := serverStatus(t, b, "elsewhere"); st.State == Connected {
					t.Errorf("state CONNECTED, want the foreign message endpoint refused")
				}
				if len(srv.Here.Requests()) == 0 {
					t.Fatal("the SSE endpoint got no request")
				}
				for i, r := range srv.There.Requests() {
					t.Errorf("request %d went to the foreign endpoint: %s %s", i, r.Method, r.URL)
					if where := carries(r, secret, "X-Api-Key"); where != "" {
						t.Errorf("request %d to the other origin (%s %s) carries a credential in its %s", i, r.Method, r.URL, where)
					}
				}
			})
		}
	}
}
