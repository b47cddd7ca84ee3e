// Package login runs the OAuth 2.1 login of one remote MCP server and
// gives its requests their Authorization header. It builds on mcp-go's
// OAuthHandler for discovery (protected resource metadata, authorization
// server or OpenID metadata with the issuer checked), dynamic client
// registration, the code exchange and refresh; it adds the loopback
// redirect listener, the host's URL callback, the token store, refresh
// before expiry and after a refusal, and the login state. A [Google]
// gives a server's requests Google credentials instead, which go only to
// the hosts [GoogleHost] allows.
package login

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/mcpgenai/bridge/mcpbridge/auth"
	"github.com/mcpgenai/bridge/mcpbridge/internal/egress"
)

// Config is the OAuth configuration of one server.
type Config struct {
	Server    string // the server's name, for the URL callback and errors
	ServerURL string // the MCP endpoint; the token store's key and the resource

	ClientID, ClientSecret string
	// AuthorizationURL and TokenURL, when both are set, are used instead of
	// discovering the authorization server; RegistrationURL adds dynamic
	// registration to them.
	AuthorizationURL, TokenURL, RegistrationURL string
	Scopes                                      []string
	Audiences                                   []string
	// RedirectURI is where the browser comes back; "" means a loopback
	// listener on a free port, http://127.0.0.1:PORT/oauth/callback.
	RedirectURI string

	// Eager sends a stored token from the first request on; otherwise the
	// store is consulted only after the server answered 401.
	Eager bool

	Store   auth.Store
	ShowURL func(ctx context.Context, server, authURL string) error
	// HTTPClient makes the requests to the authorization server; nil means
	// a client with a 30 s timeout. Its responses are bounded and its
	// redirects and addresses restricted as egress.LoginClient says.
	HTTPClient *http.Client
	Logger     *slog.Logger
}

// ErrNoLoginHandler is returned by Login when Config.ShowURL is nil.
var ErrNoLoginHandler = errors.New("no handler to show the login URL (set Options.LoginURL)")

// DefaultLoginTimeout bounds a login whose context has no deadline.
const DefaultLoginTimeout = 5 * time.Minute

// Client is the login of one server. Its methods are safe for concurrent
// use.
type Client struct {
	cfg   Config
	store *tokenStore
	http  *http.Client

	loginMu sync.Mutex // one login at a time

	mu        sync.Mutex
	handler   *transport.OAuthHandler
	active    bool        // Eager, or a 401 was seen
	challenge http.Header // WWW-Authenticate of the last 401
	state     auth.State
	lastErr   error
}

// New returns a Client for cfg. It does no I/O.
func New(cfg Config) *Client {
	// Every request of the login, mcp-go's and ours, goes through
	// egress's bounds: response sizes, forbidden addresses, redirects.
	hc := egress.LoginClient(cfg.HTTPClient, cfg.ServerURL)
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	c := &Client{cfg: cfg, http: hc, active: cfg.Eager}
	c.store = &tokenStore{store: cfg.Store, key: cfg.ServerURL}
	return c
}

// State returns where the login stands.
func (c *Client) State() auth.State {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.state
}

func (c *Client) setState(s auth.State, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.state, c.lastErr = s, err
}

// configuredMetadataURL is the address at which the HTTP client of a
// handler serves the metadata built from configured endpoints.
const configuredMetadataURL = "http://configured-endpoints.mcpbridge.invalid/metadata"

// newHandler returns an OAuthHandler for a client with the given
// credentials and redirect URI, primed with the last challenge.
func (c *Client) newHandler(clientID, secret, redirect string) *transport.OAuthHandler {
	hc := c.http
	c.mu.Lock()
	challenge := c.challenge
	c.mu.Unlock()
	scopes := c.cfg.Scopes
	if len(scopes) == 0 {
		scopes = challengeScopes(challenge)
	}
	oc := transport.OAuthConfig{
		ClientID:     clientID,
		ClientSecret: secret,
		RedirectURI:  redirect,
		Scopes:       scopes,
		TokenStore:   c.store,
		PKCEEnabled:  true,
	}
	if c.cfg.AuthorizationURL != "" && c.cfg.TokenURL != "" {
		oc.AuthServerMetadataURL = configuredMetadataURL
		hc = &http.Client{Timeout: hc.Timeout, Transport: configuredMetadata{cfg: &c.cfg, base: hc.Transport}}
	}
	if extra := c.extraParams(); len(extra) > 0 {
		hc = &http.Client{Timeout: hc.Timeout, Transport: tokenParams{params: extra, base: hc.Transport}}
	}
	oc.HTTPClient = hc
	h := transport.NewOAuthHandler(oc)
	h.SetBaseURL(c.cfg.ServerURL)
	if challenge != nil {
		h.HandleUnauthorizedResponse(&http.Response{StatusCode: http.StatusUnauthorized, Header: challenge})
	}
	c.store.mu.Lock()
	c.store.client = func() (string, string) { return h.GetClientID(), h.GetClientSecret() }
	c.store.mu.Unlock()
	return h
}

// current returns the handler for requests: the one of the last login, or
// one for the stored client credentials.
func (c *Client) current(ctx context.Context) (*transport.OAuthHandler, error) {
	c.mu.Lock()
	h := c.handler
	c.mu.Unlock()
	if h != nil {
		return h, nil
	}
	t, err := c.store.load(ctx)
	if err != nil {
		return nil, err
	}
	id, secret := c.cfg.ClientID, c.cfg.ClientSecret
	if id == "" && t != nil {
		id, secret = t.ClientID, t.ClientSecret
	}
	h = c.newHandler(id, secret, c.cfg.RedirectURI)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.handler == nil {
		c.handler = h
	}
	return c.handler, nil
}

// Authorization returns the Authorization header value for a request, ""
// when there is no usable token (the request then goes without one, and a
// 401 says whether a login is needed). A token about to expire is refreshed
// first, once for all concurrent callers; a refresh that fails makes the
// state [auth.StateExpired] and forgets the tokens.
func (c *Client) Authorization(ctx context.Context) (string, error) {
	c.mu.Lock()
	active := c.active
	c.mu.Unlock()
	if !active {
		return "", nil
	}
	h, err := c.current(ctx)
	if err != nil {
		return "", fmt.Errorf("token store: %w", err)
	}
	before, _ := c.store.load(ctx)
	v, err := h.GetAuthorizationHeader(ctx)
	switch {
	case err == nil:
		return v, nil
	case ctx.Err() != nil:
		return "", ctx.Err()
	case errors.Is(err, transport.ErrOAuthAuthorizationRequired):
		if before != nil && before.RefreshToken != "" {
			// The refresh failed: ask for a login instead of trying
			// again on every request.
			c.cfg.Logger.Warn("mcp server token refresh failed; login needed", "server", c.cfg.Server)
			_ = c.store.forget(ctx)
			c.setState(auth.StateExpired, errors.New("token refresh failed"))
		}
		return "", nil
	}
	return "", err
}

// Unauthorized handles a 401 to a request sent with authorization value
// sent ("" for none). It records the challenge for discovery and reports
// whether the request should be sent once more, with a refreshed token.
func (c *Client) Unauthorized(ctx context.Context, resp *http.Response, sent string) bool {
	c.mu.Lock()
	changed := !slices.Equal(c.challenge.Values("WWW-Authenticate"), resp.Header.Values("WWW-Authenticate"))
	c.challenge = resp.Header.Clone()
	c.active = true
	h := c.handler
	c.mu.Unlock()
	if h != nil && changed {
		// Only a new challenge: the handler forgets the metadata it
		// discovered, which would fail a refresh under way.
		h.HandleUnauthorizedResponse(resp)
	}
	if sent == "" {
		if t, _ := c.store.load(ctx); t != nil && t.AccessToken != "" {
			return true // a stored token from an earlier run
		}
	}
	if tok, ok := strings.CutPrefix(sent, "Bearer "); ok && tok != "" {
		t, _ := c.store.load(ctx)
		if t != nil && t.AccessToken == tok && t.RefreshToken != "" {
			c.store.refuse(tok)
			if v, err := c.Authorization(ctx); err == nil && v != "" && v != sent {
				return true
			}
		} else if t != nil && t.AccessToken != tok && t.AccessToken != "" {
			return true // another caller refreshed meanwhile
		}
	}
	if st := c.State(); !st.NeedsLogin() {
		c.setState(auth.StateLoginNeeded, nil)
	}
	return false
}

// Accepted records that the server accepted a request sent with a token.
func (c *Client) Accepted() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.state, c.lastErr = auth.StateAuthenticated, nil
}

// Login runs the authorization-code flow with PKCE: discovery (from the
// last 401's challenge, or the server's well-known metadata), dynamic
// client registration when no client ID is configured, the URL handed to
// ShowURL, the redirect awaited on a loopback listener, the code exchanged
// and the token stored. It returns when the token is stored, or with ctx's
// error (bounded by DefaultLoginTimeout when ctx has no deadline).
func (c *Client) Login(ctx context.Context) error {
	if c.cfg.ShowURL == nil {
		return ErrNoLoginHandler
	}
	c.loginMu.Lock()
	defer c.loginMu.Unlock()
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultLoginTimeout)
		defer cancel()
	}
	err := c.login(ctx)
	if err != nil {
		c.setState(auth.StateFailed, err)
		return fmt.Errorf("login to mcp server %q: %w", c.cfg.Server, err)
	}
	c.setState(auth.StateAuthenticated, nil)
	return nil
}

func (c *Client) login(ctx context.Context) error {
	ln, redirect, err := listen(c.cfg.RedirectURI)
	if err != nil {
		return err
	}
	defer ln.Close()
	h := c.newHandler(c.cfg.ClientID, c.cfg.ClientSecret, redirect)
	if c.cfg.ClientID == "" {
		if err := h.RegisterClient(ctx, "mcpbridge"); err != nil {
			return fmt.Errorf("dynamic client registration: %w", err)
		}
	}
	verifier, err := transport.GenerateCodeVerifier()
	if err != nil {
		return err
	}
	state, err := transport.GenerateState()
	if err != nil {
		return err
	}
	authURL, err := h.GetAuthorizationURL(ctx, state, transport.GenerateCodeChallenge(verifier))
	if err != nil {
		return err
	}
	if extra := c.extraParams(); len(extra) > 0 {
		if u, err := url.Parse(authURL); err == nil {
			q := u.Query()
			for k, v := range extra {
				if !q.Has(k) {
					q[k] = v
				}
			}
			u.RawQuery = q.Encode()
			authURL = u.String()
		}
	}
	path := "/oauth/callback"
	if u, err := url.Parse(redirect); err == nil && u.Path != "" {
		path = u.Path
	}
	got := make(chan callback, 1)
	srv := &http.Server{
		Handler:           callbackHandler(path, state, got),
		ReadHeaderTimeout: 10 * time.Second,
	}
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = srv.Serve(ln)
	}()
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
		<-served
	}()
	if err := c.cfg.ShowURL(ctx, c.cfg.Server, authURL); err != nil {
		return fmt.Errorf("showing the login URL: %w", err)
	}
	var cb callback
	select {
	case cb = <-got:
	case <-ctx.Done():
		return fmt.Errorf("waiting for the login redirect: %w", ctx.Err())
	}
	if cb.err != nil {
		return cb.err
	}
	if err := h.ProcessAuthorizationResponse(ctx, cb.code, state, verifier); err != nil {
		return fmt.Errorf("token exchange: %w", err)
	}
	c.store.refuse("")
	c.mu.Lock()
	c.handler = h
	c.mu.Unlock()
	return nil
}

// listen opens the redirect listener: on the configured redirect URI's
// host and port, or on a free loopback port.
func listen(redirect string) (net.Listener, string, error) {
	if redirect == "" {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, "", fmt.Errorf("redirect listener: %w", err)
		}
		return ln, fmt.Sprintf("http://%s/oauth/callback", ln.Addr()), nil
	}
	u, err := url.Parse(redirect)
	if err != nil || u.Scheme != "http" || u.Port() == "" {
		return nil, "", fmt.Errorf("redirectUri %q: want http://localhost:PORT/path or http://127.0.0.1:PORT/path", redirect)
	}
	host := u.Hostname()
	if host != "localhost" && !isLoopback(host) {
		return nil, "", fmt.Errorf("redirectUri %q: host must be loopback", redirect)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, u.Port()))
	if err != nil {
		return nil, "", fmt.Errorf("redirect listener: %w", err)
	}
	return ln, redirect, nil
}

func isLoopback(host string) bool {
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

type callback struct {
	code string
	err  error
}

// callbackHandler accepts one redirect with the expected state.
func callbackHandler(path, state string, got chan<- callback) http.Handler {
	var once sync.Once
	deliver := func(cb callback) { once.Do(func() { got <- cb }) }
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != path {
			http.NotFound(w, r)
			return
		}
		q := r.URL.Query()
		if subtle.ConstantTimeCompare([]byte(q.Get("state")), []byte(state)) != 1 {
			http.Error(w, "unexpected state parameter", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if e := q.Get("error"); e != "" {
			desc := q.Get("error_description")
			deliver(callback{err: fmt.Errorf("authorization server refused: %s %s", e, desc)})
			fmt.Fprintf(w, "<!doctype html><p>Login failed: %s</p>", html.EscapeString(e))
			return
		}
		code := q.Get("code")
		if code == "" {
			http.Error(w, "missing code", http.StatusBadRequest)
			return
		}
		deliver(callback{code: code})
		fmt.Fprint(w, "<!doctype html><p>Logged in. You can close this window.</p>")
	})
}

// configuredMetadata serves authorization-server metadata built from the
// configured endpoints at configuredMetadataURL, and passes every other
// request on.
type configuredMetadata struct {
	cfg  *Config
	base http.RoundTripper
}

func (m configuredMetadata) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.String() != configuredMetadataURL {
		base := m.base
		if base == nil {
			base = http.DefaultTransport
		}
		return base.RoundTrip(r)
	}
	u, _ := url.Parse(m.cfg.AuthorizationURL)
	issuer := ""
	if u != nil {
		issuer = u.Scheme + "://" + u.Host
	}
	body, err := json.Marshal(map[string]any{
		"issuer":                           issuer,
		"authorization_endpoint":           m.cfg.AuthorizationURL,
		"token_endpoint":                   m.cfg.TokenURL,
		"registration_endpoint":            m.cfg.RegistrationURL,
		"code_challenge_methods_supported": []string{"S256"},
	})
	if err != nil {
		return nil, err
	}
	return &http.Response{
		StatusCode: http.StatusOK,
		Header:     http.Header{"Content-Type": {"application/json"}},
		Body:       io.NopCloser(bytes.NewReader(body)),
		Request:    r,
	}, nil
}

// challengeScopes returns the scope parameter of a Bearer challenge in
// WWW-Authenticate (the scopes the server asks for), split at spaces.
func challengeScopes(h http.Header) []string {
	for _, v := range h.Values("WWW-Authenticate") {
		scheme, params, _ := strings.Cut(v, " ")
		if !strings.EqualFold(scheme, "Bearer") {
			continue
		}
		for params != "" {
			var name, val string
			params = strings.TrimLeft(params, " ,")
			name, params, _ = strings.Cut(params, "=")
			if strings.HasPrefix(params, `"`) {
				end := strings.IndexByte(params[1:], '"')
				if end < 0 {
					break
				}
				val, params = params[1:1+end], params[2+end:]
			} else {
				val, params, _ = strings.Cut(params, ",")
			}
			if strings.EqualFold(strings.TrimSpace(name), "scope") {
				return strings.Fields(val)
			}
		}
	}
	return nil
}

// extraParams are the parameters mcp-go's handler does not send and the
// authorization and token requests need: the audiences, space-separated,
// as Gemini CLI sends them; and, with configured endpoints (no discovery
// that would name the resource), the server's URL as the resource
// (RFC 8707).
func (c *Client) extraParams() url.Values {
	v := url.Values{}
	if len(c.cfg.Audiences) > 0 {
		v.Set("audience", strings.Join(c.cfg.Audiences, " "))
	}
	if c.cfg.AuthorizationURL != "" && c.cfg.TokenURL != "" {
		v.Set("resource", c.cfg.ServerURL)
	}
	return v
}

// tokenParams adds params to token requests (form POSTs with a
// grant_type: the code exchange and refreshes) that lack them.
type tokenParams struct {
	params url.Values
	base   http.RoundTripper
}

// maxTokenRequest bounds the token request bodies tokenParams rewrites.
const maxTokenRequest = 64 << 10

func (a tokenParams) RoundTrip(r *http.Request) (*http.Response, error) {
	base := a.base
	if base == nil {
		base = http.DefaultTransport
	}
	if r.Method != http.MethodPost || r.Body == nil || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
		return base.RoundTrip(r)
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxTokenRequest+1))
	r.Body.Close()
	if err != nil {
		return nil, err
	}
	form, err := url.ParseQuery(string(body))
	if err == nil && len(body) <= maxTokenRequest && form.Get("grant_type") != "" {
		for k, v := range a.params {
			if !form.Has(k) {
				form[k] = v
			}
		}
		body = []byte(form.Encode())
	}
	c := r.Clone(r.Context())
	c.Body = io.NopCloser(bytes.NewReader(body))
	c.ContentLength = int64(len(body))
	c.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	return base.RoundTrip(c)
}
