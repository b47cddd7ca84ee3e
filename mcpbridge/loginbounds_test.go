package mcpbridge

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgenai/bridge/mcpbridge/auth"
)

// misbehave is how a hostileAS answers one of its paths.
type misbehave int

const (
	behave     misbehave = iota
	stream               // 200 and a JSON string that never ends (up to streamCap)
	hugeJSON             // 400 and an OAuth error whose description is 8 MiB
	hugeText             // 400 and 8 MiB of text
	hugeHeader           // (the MCP endpoint only) 401 asking for 5000 scopes
	away                 // 307 to the same path at hostileAS.away
)

// streamCap ends a stream that nobody stopped reading: 2 GiB.
const streamCap = 2 << 30

// hostileAS is one loopback server that is an MCP endpoint behind OAuth
// (/mcp answers 401), its protected resource metadata, and its
// authorization server (metadata, registration, authorize, token), any of
// which can misbehave. It counts the bytes it wrote of its bodies.
type hostileAS struct {
	srv     *httptest.Server
	mode    map[string]misbehave
	meta    map[string]any // overrides of the authorization server metadata
	asURL   string         // the authorization server the resource names; srv's when ""
	away    string         // where away redirects
	written atomic.Int64
	mu      sync.Mutex
	paths   []string
}

func newHostileAS(t *testing.T, mode map[string]misbehave) *hostileAS {
	t.Helper()
	h := &hostileAS{mode: mode, meta: map[string]any{}}
	h.srv = httptest.NewServer(http.HandlerFunc(h.serve))
	t.Cleanup(func() {
		h.srv.CloseClientConnections()
		h.srv.Close()
	})
	return h
}

func (h *hostileAS) serve(w http.ResponseWriter, r *http.Request) {
	base := h.srv.URL
	h.mu.Lock()
	h.paths = append(h.paths, r.URL.Path)
	h.mu.Unlock()
	switch h.mode[r.URL.Path] {
	case stream:
		w.Header().Set("Content-Type", "application/json")
		buf := []byte(strings.Repeat("a", 64<<10))
		n, _ := io.WriteString(w, `{"access_token":"`)
		h.written.Add(int64(n))
		for h.written.Load() < streamCap {
			n, err := w.Write(buf)
			h.written.Add(int64(n))
			if err != nil {
				return
			}
		}
		return
	case hugeJSON:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		n, _ := fmt.Fprintf(w, `{"error":"invalid_request","error_description":"%s"}`, strings.Repeat("d", 8<<20))
		h.written.Add(int64(n))
		return
	case away:
		http.Redirect(w, r, h.away+r.URL.Path, http.StatusTemporaryRedirect)
		return
	case hugeText:
		w.WriteHeader(http.StatusBadRequest)
		n, _ := io.WriteString(w, strings.Repeat("x", 8<<20))
		h.written.Add(int64(n))
		return
	}
	as := h.asURL
	if as == "" {
		as = base
	}
	switch r.URL.Path {
	case "/mcp":
		scope := "openid"
		if h.mode["/mcp"] == hugeHeader {
			var s []string
			for i := range 5000 {
				s = append(s, fmt.Sprintf("scope:%04d", i))
			}
			scope = strings.Join(s, " ")
		}
		w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer resource_metadata=%q, scope=%q`, base+"/.well-known/oauth-protected-resource/mcp", scope))
		http.Error(w, "unauthorized", http.StatusUnauthorized)
	case "/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource":
		writeJSON(w, map[string]any{"resource": base + "/mcp", "authorization_servers": []string{as}})
	case "/.well-known/oauth-authorization-server", "/.well-known/openid-configuration":
		doc := map[string]any{
			"issuer":                           base,
			"authorization_endpoint":           base + "/authorize",
			"token_endpoint":                   base + "/token",
			"registration_endpoint":            base + "/register",
			"response_types_supported":         []string{"code"},
			"code_challenge_methods_supported": []string{"S256"},
		}
		for k, v := range h.meta {
			doc[k] = v
		}
		writeJSON(w, doc)
	case "/register":
		w.WriteHeader(http.StatusCreated)
		writeJSON(w, map[string]any{"client_id": "dyn-1", "token_endpoint_auth_method": "none"})
	case "/authorize":
		q := r.URL.Query()
		http.Redirect(w, r, q.Get("redirect_uri")+"?code=c0de&state="+url.QueryEscape(q.Get("state")), http.StatusFound)
	case "/token":
		writeJSON(w, map[string]any{"access_token": "tok-1", "token_type": "Bearer", "expires_in": 3600})
	default:
		http.NotFound(w, r)
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// browse is a LoginURL callback that follows the authorization URL to the
// redirect listener, as a browser would.
func browse(shown *[]string) func(context.Context, string, string) error {
	return func(ctx context.Context, _, authURL string) error {
		*shown = append(*shown, authURL)
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
		if err != nil {
			return err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp.Body.Close()
	}
}

// loginTo logs in to the hostile server and returns the status's error
// text and Login's error.
func loginTo(t *testing.T, h *hostileAS, shown *[]string) (string, error) {
	t.Helper()
	b := newBridge(t, &Options{LoginURL: browse(shown), TokenStore: auth.NewMemoryStore()},
		ServerConfig{Name: "hostile", HTTPURL: h.srv.URL + "/mcp", Timeout: 10 * time.Second})
	_ = b.Discover(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	err := b.Login(ctx, "hostile")
	return serverStatus(t, b, "hostile").Error, err
}

// TestLoginBoundedReads: every response the login reads is bounded. A
// body that streams without end is read no further than the bound (the
// server is left with a few MiB written, in socket buffers, out of the
// 2 GiB it would send), the process allocates a few MiB for it, and an
// 8 MiB error body becomes an excerpt of a few hundred bytes in Login's
// error and the status.
func TestLoginBoundedReads(t *testing.T) {
	tests := []struct {
		name    string
		mode    map[string]misbehave
		wantErr string // "" when the login may get past the bad answer
	}{
		{"token endpoint streams", map[string]misbehave{"/token": stream}, "response body too large"},
		{"token endpoint 8 MiB OAuth error", map[string]misbehave{"/token": hugeJSON}, "status 400"},
		{"token endpoint 8 MiB text error", map[string]misbehave{"/token": hugeText}, "status 400"},
		{"registration streams", map[string]misbehave{"/register": stream}, "response body too large"},
		{"registration 8 MiB error", map[string]misbehave{"/register": hugeText}, "status 400"},
		{"resource metadata streams", map[string]misbehave{"/.well-known/oauth-protected-resource/mcp": stream, "/.well-known/oauth-protected-resource": stream}, ""},
		{"authorization server metadata streams", map[string]misbehave{"/.well-known/oauth-authorization-server": stream, "/.well-known/openid-configuration": stream}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHostileAS(t, tt.mode)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			var shown []string
			status, err := loginTo(t, h, &shown)
			runtime.ReadMemStats(&after)
			alloc := after.TotalAlloc - before.TotalAlloc
			t.Logf("login: %v (%d bytes; status error %d bytes); server wrote %d KiB; allocated %d KiB", err, len(fmt.Sprint(err)), len(status), h.written.Load()>>10, alloc>>10)
			if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("Login() = %v, want an error saying %q", err, tt.wantErr)
			}
			if err != nil && len(err.Error()) > 1500 {
				t.Errorf("Login()'s error is %d bytes, want a short excerpt: %.300s…", len(err.Error()), err)
			}
			if len(status) > 1500 {
				t.Errorf("the status's error is %d bytes, want a short excerpt: %.300s…", len(status), status)
			}
			if w := h.written.Load(); w > 64<<20 {
				t.Errorf("the server wrote %d MiB before the client stopped reading, want at most 64", w>>20)
			}
			// The 8 MiB bodies are allocated by this process's server.
			if limit := uint64(48 << 20); alloc > limit {
				t.Errorf("the login allocated %d MiB, want at most %d", alloc>>20, limit>>20)
			}
		})
	}
}

// TestLoginHugeChallenge: a 401 asking for 5000 scopes (a 60 KB
// WWW-Authenticate) fails the connection with a clear error instead of
// becoming the scopes of the login, and no authorization URL over 8 KiB
// ever reaches LoginURL.
func TestLoginHugeChallenge(t *testing.T) {
	h := newHostileAS(t, map[string]misbehave{"/mcp": hugeHeader})
	var shown []string
	status, err := loginTo(t, h, &shown)
	if !strings.Contains(status, "WWW-Authenticate challenge too large") {
		t.Errorf("status error = %q, want it to say the challenge is too large", status)
	}
	for _, u := range shown {
		if len(u) > 8<<10 || strings.Contains(u, "scope%3A0100") {
			t.Errorf("LoginURL got a %d-byte URL with the challenge's scopes", len(u))
		}
	}
	t.Logf("Login() = %v after the refused challenge", err)
}

// TestLoginURLTooLong: an authorization URL over 8 KiB (here from 3000
// configured scopes) is refused before LoginURL sees it.
func TestLoginURLTooLong(t *testing.T) {
	h := newHostileAS(t, nil)
	var scopes []string
	for i := range 3000 {
		scopes = append(scopes, fmt.Sprintf("scope:%04d", i))
	}
	var shown []string
	b := newBridge(t, &Options{LoginURL: browse(&shown), TokenStore: auth.NewMemoryStore()},
		ServerConfig{Name: "hostile", HTTPURL: h.srv.URL + "/mcp", Timeout: 10 * time.Second, OAuth: &OAuthConfig{Enabled: true, Scopes: scopes}})
	err := b.Login(context.Background(), "hostile")
	if err == nil || !strings.Contains(err.Error(), "authorization URL too long") {
		t.Errorf("Login() = %v, want the URL refused as too long", err)
	}
	if len(shown) != 0 {
		t.Errorf("LoginURL was called %d times, want never", len(shown))
	}
}

// TestLoginForbiddenAddresses: endpoints that a server's metadata points
// at on link-local or cloud-metadata addresses are refused (the login
// fails, saying so), whether named by address or by a metadata host name;
// the dial-time check itself is egress's TestTransportRefusesBeforeConnect.
func TestLoginForbiddenAddresses(t *testing.T) {
	tests := []struct {
		name string
		as   string
		meta map[string]any
	}{
		{"authorization server at 169.254.169.254", "http://169.254.169.254", nil},
		{"authorization server at metadata.google.internal", "http://metadata.google.internal", nil},
		{"authorization server at 100.100.100.200", "http://100.100.100.200", nil},
		{"token endpoint at 169.254.169.254", "", map[string]any{"token_endpoint": "http://169.254.169.254/token"}},
		{"token endpoint at fd00:ec2::254", "", map[string]any{"token_endpoint": "http://[fd00:ec2::254]/token"}},
		{"registration endpoint at fe80::1", "", map[string]any{"registration_endpoint": "http://[fe80::1]:8080/register"}},
		{"authorization endpoint at 169.254.169.254", "", map[string]any{"authorization_endpoint": "http://169.254.169.254/authorize"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHostileAS(t, nil)
			h.asURL = tt.as
			for k, v := range tt.meta {
				h.meta[k] = v
			}
			var shown []string
			status, err := loginTo(t, h, &shown)
			if err == nil || !strings.Contains(err.Error(), "link-local or cloud metadata address") {
				t.Errorf("Login() = %v, want the forbidden address refused", err)
			}
			if !strings.Contains(status, "link-local or cloud metadata address") {
				t.Errorf("status error = %q, want it to name the refusal", status)
			}
			for _, u := range shown {
				if strings.Contains(u, "169.254.") {
					t.Errorf("LoginURL got %s", u)
				}
			}
			t.Logf("Login() = %v", err)
		})
	}
}

// TestLoginTokenRedirect: a token or registration endpoint that redirects
// (307, which keeps the POST and its body: the code, the PKCE verifier,
// the client's secret) to another origin is refused, and the other origin,
// on a second port or a second loopback address, gets no request at all.
func TestLoginTokenRedirect(t *testing.T) {
	for _, path := range []string{"/token", "/register"} {
		for _, addr := range []string{"127.0.0.1:0", "127.0.0.2:0"} {
			t.Run(path+"/"+addr, func(t *testing.T) {
				var mu sync.Mutex
				var seen []string
				other := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					body, _ := io.ReadAll(r.Body)
					mu.Lock()
					seen = append(seen, r.Method+" "+r.URL.Path+" "+string(body))
					mu.Unlock()
					writeJSON(w, map[string]any{"access_token": "stolen", "token_type": "Bearer", "client_id": "x"})
				}))
				ln, err := net.Listen("tcp", addr)
				if err != nil && runtime.GOOS != "linux" {
					t.Skipf("listen on %s: %v", addr, err) // only Linux answers on all of 127/8
				}
				if err != nil {
					t.Fatal(err)
				}
				other.Listener.Close()
				other.Listener = ln
				other.Start()
				defer other.Close()
				h := newHostileAS(t, map[string]misbehave{path: away})
				h.away = other.URL
				var shown []string
				status, err := loginTo(t, h, &shown)
				if err == nil || !strings.Contains(err.Error(), "redirect to another origin refused") {
					t.Errorf("Login() = %v, want the redirect refused", err)
				}
				if !strings.Contains(status, "redirect to another origin refused") {
					t.Errorf("status error = %q, want it to name the refusal", status)
				}
				mu.Lock()
				defer mu.Unlock()
				if len(seen) != 0 {
					t.Errorf("the other origin got %q, want nothing", seen)
				}
			})
		}
	}
}
