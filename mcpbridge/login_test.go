package mcpbridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgenai/bridge/internal/testauth"
	"github.com/mcpgenai/bridge/mcpbridge/auth"
	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
)

// person is a LoginURL callback that plays the person in the browser: it
// consents on the authorization server's login page in the background, as
// a browser would, and records the URLs it was given and what happened.
type person struct {
	t    *testing.T
	mu   sync.Mutex
	urls []string
	wg   sync.WaitGroup
	errs []error
}

func (p *person) LoginURL(ctx context.Context, server, authURL string) error {
	p.mu.Lock()
	p.urls = append(p.urls, authURL)
	p.mu.Unlock()
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		page, err := testauth.Consent(authURL)
		if err == nil && !strings.Contains(page, "Logged in") {
			err = fmt.Errorf("redirect page = %q, want the listener's answer", page)
		}
		if err != nil {
			p.mu.Lock()
			p.errs = append(p.errs, err)
			p.mu.Unlock()
		}
	}()
	return nil
}

// done waits for the browser and fails the test on its errors.
func (p *person) done() {
	p.t.Helper()
	p.wg.Wait()
	for _, err := range p.errs {
		p.t.Errorf("browser: %v", err)
	}
}

// loginSetup is an authorization server, a protected MCP server ("remote")
// and a plain stdio server ("plain").
type loginSetup struct {
	as     *testauth.Server
	remote *testauth.Protected
	store  *auth.FileStore
	logs   *syncBuffer
}

func newLoginSetup(t *testing.T, sse bool, authServer func(*testauth.Server) string) *loginSetup {
	t.Helper()
	as := testauth.Start(t)
	issuer := ""
	if authServer != nil {
		issuer = authServer(as)
	}
	store, err := auth.NewFileStore(filepath.Join(t.TempDir(), "cfg", "tokens.json"))
	if err != nil {
		t.Fatal(err)
	}
	return &loginSetup{
		as:     as,
		remote: as.ServeMCP(t, testserver.New(testserver.Options{Tools: 1}), sse, issuer),
		store:  store,
		logs:   &syncBuffer{},
	}
}

// key is the token store's key of the remote server's token.
func (ls *loginSetup) key() auth.Key {
	return auth.Key{Server: ls.remote.URL, Issuer: ls.as.Issuer}
}

func (ls *loginSetup) config(sse bool, oauth *OAuthConfig) ServerConfig {
	cfg := ServerConfig{Name: "remote", Timeout: 10 * time.Second, OAuth: oauth}
	if sse {
		cfg.URL, cfg.Type = ls.remote.URL, "sse"
	} else {
		cfg.HTTPURL = ls.remote.URL
	}
	return cfg
}

func (ls *loginSetup) bridge(t *testing.T, loginURL func(context.Context, string, string) error, remote ServerConfig) *Bridge {
	t.Helper()
	return newBridge(t, &Options{
		LoginURL:   loginURL,
		TokenStore: ls.store,
		Logger:     slog.New(slog.NewTextHandler(ls.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}, stdioServer("plain", "-name=plain", "-tools=1"), remote)
}

func noLogin(t *testing.T) func(context.Context, string, string) error {
	return func(context.Context, string, string) error {
		t.Errorf("LoginURL called, want no login")
		return errors.New("no login expected")
	}
}

func serverStatus(t *testing.T, b *Bridge, name string) ServerStatus {
	t.Helper()
	for _, s := range b.Status().Servers {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no status for %q", name)
	return ServerStatus{}
}

func doLogin(t *testing.T, b *Bridge, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := b.Login(ctx, name); err != nil {
		t.Fatalf("Login(%q) = %v, want nil", name, err)
	}
}

func TestLoginDiscoveryRegistrationPKCE(t *testing.T) {
	for _, sse := range []bool{false, true} {
		t.Run(map[bool]string{false: "http", true: "sse"}[sse], func(t *testing.T) {
			ls := newLoginSetup(t, sse, nil)
			p := &person{t: t}
			b := ls.bridge(t, p.LoginURL, ls.config(sse, nil))
			discover(t, b)

			if st := serverStatus(t, b, "plain"); st.State != Connected {
				t.Errorf("plain: state %v (%s), want CONNECTED: one server's login must not hold up the others", st.State, st.Error)
			}
			st := serverStatus(t, b, "remote")
			if st.State != Disconnected || st.Auth != auth.StateLoginNeeded {
				t.Fatalf("remote before login: state %v, auth %q, want DISCONNECTED, login needed", st.State, st.Auth)
			}
			if !strings.Contains(b.Status().String(), "Auth: login needed") {
				t.Errorf("status text lacks the auth state:\n%s", b.Status())
			}
			if _, err := call(t, b, "remote", "tool_00", nil); !errors.Is(err, auth.ErrLoginRequired) {
				t.Errorf("call before login = %v, want ErrLoginRequired", err)
			}

			doLogin(t, b, "remote")
			p.done()
			if len(p.urls) != 1 {
				t.Fatalf("LoginURL called %d times, want 1", len(p.urls))
			}
			for _, want := range []string{"code_challenge_method=S256", "code_challenge=", "resource=", "client_id=dyn-1", "redirect_uri=http%3A%2F%2F127.0.0.1%3A"} {
				if !strings.Contains(p.urls[0], want) {
					t.Errorf("authorization URL %s lacks %q", p.urls[0], want)
				}
			}
			if got := ls.as.Registrations.Load(); got != 1 {
				t.Errorf("dynamic registrations = %d, want 1", got)
			}
			st = serverStatus(t, b, "remote")
			if st.State != Connected || st.Auth != auth.StateAuthenticated {
				t.Errorf("remote after login: state %v, auth %q (%s), want CONNECTED, authenticated", st.State, st.Auth, st.Error)
			}
			if got, err := call(t, b, "remote", "tool_00", nil); err != nil || got != "tool_00" {
				t.Errorf("call after login = %q, %v, want tool_00", got, err)
			}
			fi, err := os.Stat(ls.store.Path())
			if err != nil || fi.Mode().Perm() != 0o600 {
				t.Errorf("token file %s: %v, mode %v, want 0600", ls.store.Path(), err, fi.Mode().Perm())
			}
			tok, err := ls.store.Load(context.Background(), ls.key())
			if err != nil || tok == nil || tok.AccessToken == "" || tok.RefreshToken == "" || tok.ClientID != "dyn-1" {
				t.Fatalf("stored token = %v, %v; want access and refresh tokens for dyn-1", tok, err)
			}
			assertNoSecret(t, ls, b, tok)
		})
	}
}

// assertNoSecret checks that neither token shows in status, logs or the
// servers' errors.
func assertNoSecret(t *testing.T, ls *loginSetup, b *Bridge, tok *auth.Token) {
	t.Helper()
	js, err := json.Marshal(b.Status())
	if err != nil {
		t.Fatal(err)
	}
	for _, where := range []struct{ name, text string }{
		{"status text", b.Status().String()},
		{"status JSON", string(js)},
		{"logs", ls.logs.String()},
	} {
		for _, secret := range []string{tok.AccessToken, tok.RefreshToken} {
			if secret != "" && strings.Contains(where.text, secret) {
				t.Errorf("%s holds a token:\n%s", where.name, where.text)
			}
		}
	}
}

func TestLoginPreRegisteredClient(t *testing.T) {
	ls := newLoginSetup(t, false, nil)
	ls.as.RegisterNative("native-1", "http://127.0.0.1/oauth/callback")
	p := &person{t: t}
	b := ls.bridge(t, p.LoginURL, ls.config(false, &OAuthConfig{Enabled: true, ClientID: "native-1", Scopes: []string{"openid", "offline_access"}, Audiences: []string{"api://tracker", "api://other"}}))
	discover(t, b)
	doLogin(t, b, "remote")
	p.done()
	if got := ls.as.Registrations.Load(); got != 0 {
		t.Errorf("dynamic registrations = %d, want 0 with a configured clientId", got)
	}
	if len(p.urls) != 1 || !strings.Contains(p.urls[0], "client_id=native-1") || !strings.Contains(p.urls[0], "scope=openid+offline_access") ||
		!strings.Contains(p.urls[0], "audience=api%3A%2F%2Ftracker+api%3A%2F%2Fother") {
		t.Errorf("authorization URLs = %v, want client_id=native-1, the scopes and the audiences", p.urls)
	}
	if got := ls.as.LastTokenRequest(); got.Get("grant_type") != "authorization_code" || got.Get("audience") != "api://tracker api://other" || got.Get("code_verifier") == "" {
		t.Errorf("token request grant_type %q, audience %q, code_verifier set %t; want the code exchange with the audiences and a PKCE verifier",
			got.Get("grant_type"), got.Get("audience"), got.Get("code_verifier") != "")
	}
	if got, err := call(t, b, "remote", "tool_00", nil); err != nil || got != "tool_00" {
		t.Errorf("call after login = %q, %v, want tool_00", got, err)
	}
}

func TestLoginTokenReusedAndRefreshed(t *testing.T) {
	ls := newLoginSetup(t, false, nil)
	p := &person{t: t}
	first := ls.bridge(t, p.LoginURL, ls.config(false, nil))
	discover(t, first)
	doLogin(t, first, "remote")
	p.done()
	_ = first.Close()

	t.Run("reused", func(t *testing.T) {
		b := ls.bridge(t, noLogin(t), ls.config(false, nil))
		discover(t, b)
		if st := serverStatus(t, b, "remote"); st.State != Connected || st.Auth != auth.StateAuthenticated {
			t.Fatalf("second Bridge: state %v, auth %q (%s), want CONNECTED with the stored token", st.State, st.Auth, st.Error)
		}
		if got := ls.as.Refreshes.Load(); got != 0 {
			t.Errorf("refreshes = %d, want 0 for a fresh token", got)
		}
	})

	t.Run("expired before use", func(t *testing.T) {
		ctx := context.Background()
		tok, err := ls.store.Load(ctx, ls.key())
		if err != nil || tok == nil {
			t.Fatalf("Load = %v, %v", tok, err)
		}
		tok.Expiry = time.Now().Add(-time.Minute)
		if err := ls.store.Save(ctx, ls.key(), tok); err != nil {
			t.Fatal(err)
		}
		before := ls.as.Refreshes.Load()
		b := ls.bridge(t, noLogin(t), ls.config(false, &OAuthConfig{Enabled: true}))
		discover(t, b)
		if st := serverStatus(t, b, "remote"); st.State != Connected {
			t.Fatalf("state %v (%s), want CONNECTED after a refresh", st.State, st.Error)
		}
		if got := ls.as.Refreshes.Load() - before; got != 1 {
			t.Errorf("refreshes = %d, want 1", got)
		}
		now, _ := ls.store.Load(ctx, ls.key())
		if now == nil || now.AccessToken == tok.AccessToken || !now.Expiry.After(time.Now()) {
			t.Errorf("stored token after refresh = %v, want a new unexpired one", now)
		}
	})

	t.Run("20 concurrent calls at expiry", func(t *testing.T) {
		b := ls.bridge(t, noLogin(t), ls.config(false, nil))
		discover(t, b)
		ls.remote.Expire() // the server now refuses every token it has seen
		before := ls.as.Refreshes.Load()
		var wg sync.WaitGroup
		errs := make(chan error, 20)
		for range 20 {
			wg.Go(func() {
				got, err := call(t, b, "remote", "tool_00", nil)
				if err == nil && got != "tool_00" {
					err = fmt.Errorf("got %q", got)
				}
				errs <- err
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Errorf("call at expiry = %v, want success after one refresh", err)
			}
		}
		if got := ls.as.Refreshes.Load() - before; got != 1 {
			t.Errorf("refreshes = %d for 20 concurrent calls, want 1", got)
		}
	})

	t.Run("refresh token revoked", func(t *testing.T) {
		b := ls.bridge(t, noLogin(t), ls.config(false, nil))
		discover(t, b)
		tok, _ := ls.store.Load(context.Background(), ls.key())
		if tok == nil || tok.AccessToken == "" || tok.RefreshToken == "" {
			t.Fatalf("stored token = %v, want access and refresh tokens", tok)
		}
		ls.as.RevokeRefresh(t, tok.ClientID, tok.RefreshToken)
		ls.remote.Expire()
		_, err := call(t, b, "remote", "tool_00", nil)
		if !errors.Is(err, auth.ErrLoginRequired) {
			t.Fatalf("call with a revoked refresh token = %v, want ErrLoginRequired", err)
		}
		st := serverStatus(t, b, "remote")
		if !st.Auth.NeedsLogin() {
			t.Errorf("auth = %q after a failed refresh, want a login asked for", st.Auth)
		}
		if got, err := call(t, b, "plain", "tool_00", nil); err != nil || got != "tool_00" {
			t.Errorf("plain server after remote's failed refresh = %q, %v, want unaffected", got, err)
		}
		refreshes := ls.as.Refreshes.Load()
		_, _ = call(t, b, "remote", "tool_00", nil)
		if got := ls.as.Refreshes.Load(); got != refreshes {
			t.Errorf("a call after the failed refresh refreshed again (%d -> %d), want a login asked for instead", refreshes, got)
		}
		assertNoSecret(t, ls, b, tok)
		if err != nil && (strings.Contains(err.Error(), tok.AccessToken) || strings.Contains(err.Error(), tok.RefreshToken)) {
			t.Errorf("error holds a token: %v", err)
		}
	})
}

func TestLoginWrongIssuerRefused(t *testing.T) {
	ls := newLoginSetup(t, false, func(as *testauth.Server) string { return as.Proxy(t) })
	p := &person{t: t}
	b := ls.bridge(t, p.LoginURL, ls.config(false, nil))
	discover(t, b)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := b.Login(ctx, "remote")
	if err == nil || !strings.Contains(err.Error(), "issuer") {
		t.Fatalf("Login with metadata naming another issuer = %v, want an issuer error", err)
	}
	if len(p.urls) != 0 {
		t.Errorf("LoginURL called with %v, want no URL from refused metadata", p.urls)
	}
	if st := serverStatus(t, b, "remote"); st.Auth != auth.StateFailed || st.State != Disconnected {
		t.Errorf("state %v, auth %q, want DISCONNECTED, failed", st.State, st.Auth)
	}
}

func TestLoginNotOffered(t *testing.T) {
	b := newBridge(t, nil, stdioServer("plain", "-name=plain", "-tools=1"))
	if err := b.Login(context.Background(), "plain"); !errors.Is(err, errNoLogin) {
		t.Errorf("Login(stdio server) = %v, want errNoLogin", err)
	}
	if err := b.Login(context.Background(), "nope"); !errors.Is(err, ErrUnknownServer) {
		t.Errorf("Login(unknown) = %v, want ErrUnknownServer", err)
	}
}

func TestLoginConfiguredEndpoints(t *testing.T) {
	ls := newLoginSetup(t, false, nil)
	ls.as.RegisterNative("native-2", "http://127.0.0.1/oauth/callback")
	p := &person{t: t}
	b := ls.bridge(t, p.LoginURL, ls.config(false, &OAuthConfig{
		Enabled: true, ClientID: "native-2", Scopes: []string{"openid", "offline_access"},
		AuthorizationURL: ls.as.Issuer + "/auth", TokenURL: ls.as.Issuer + "/oauth/token",
	}))
	discover(t, b)
	doLogin(t, b, "remote")
	p.done()
	if len(p.urls) != 1 || !strings.HasPrefix(p.urls[0], ls.as.Issuer+"/auth?") || !strings.Contains(p.urls[0], "resource="+url.QueryEscape(ls.remote.URL)) {
		t.Errorf("authorization URLs = %v, want the configured authorizationUrl with the server as resource", p.urls)
	}
	if got := ls.as.LastTokenRequest().Get("resource"); got != ls.remote.URL {
		t.Errorf("token request resource = %q, want %q", got, ls.remote.URL)
	}
	if got, err := call(t, b, "remote", "tool_00", nil); err != nil || got != "tool_00" {
		t.Errorf("call after login = %q, %v, want tool_00", got, err)
	}
}
