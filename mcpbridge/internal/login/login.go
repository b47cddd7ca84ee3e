// Package login runs the OAuth 2.1 login of one remote MCP server and
// gives its requests their Authorization header. Discovery (protected
// resource metadata, then authorization server or OpenID metadata, in the
// MCP specification's order, with the 2025-03-26 fallbacks), the choice of
// client (configured, Client ID Metadata Document, stored registration,
// dynamic registration), the step-up on insufficient_scope, and the
// client-credentials and enterprise grants are this package's; mcp-go's
// OAuthHandler does the code exchange and refreshes. It adds the loopback
// redirect listener, the host's URL callback, the token store, refresh
// before expiry and after a refusal, and the login state. A [Google]
// gives a server's requests Google credentials instead, which go only to
// the hosts [GoogleHost] allows.
package login

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
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
	// User is whose tokens these are: auth.Key.User ("" for the one user
	// of a Bridge that serves one).
	User string

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
	// ClientMetadataURL is the https URL of the client's metadata
	// document, used as its client_id where the authorization server
	// accepts Client ID Metadata Documents.
	ClientMetadataURL string
	// Grant, when set, gets tokens without a person: the
	// client-credentials grant, the enterprise-managed one or a JWT bearer
	// grant of the workload's own token.
	Grant *Grant
	// DPoP says when the tokens are bound to a key (DPoP, RFC 9449);
	// "" is DPoPAuto. DPoPKey is the PEM EC P-256 key they are bound to;
	// "" means a key made at each login, stored beside the token.
	DPoP    DPoPMode
	DPoPKey string

	// Eager sends a stored token from the first request on; otherwise the
	// store is consulted only after the server answered 401.
	Eager bool

	Store auth.Store
	// Lock, when not nil, holds the store's entry while a token is
	// refreshed, for every process sharing the store (see auth.Locker).
	Lock    auth.Locker
	ShowURL func(ctx context.Context, server, authURL string) error
	// HTTPClient makes the requests to the authorization server; nil means
	// a client with a 30 s timeout. Its responses are bounded and its
	// redirects and addresses restricted as egress.LoginClient says.
	HTTPClient *http.Client
	Logger     *slog.Logger
	// Learn, when set, is told the credentials the login obtains outside
	// the token store, as soon as it has them: authorization codes.
	// Tokens and registered clients (kept at once) pass through Store,
	// where the caller sees them.
	Learn Learner
	// Shared, when set, is what this login shares with the logins of the
	// same server for other users (see [Shared]); nil makes one of its own.
	Shared *Shared
}

// Shared is what the logins of one server for several users have in
// common: where the authorization server is (the discovery, made once
// for all of them, from the server's last challenge), whether the server
// has asked for tokens, and the HTTP client of the login requests (one
// pool of connections). Nothing in it belongs to a user: tokens, clients,
// step-ups and the login state stay in each [Client]. Its methods are safe
// for concurrent use.
type Shared struct {
	http *http.Client // bounded as egress.LoginClient says

	mu        sync.Mutex
	challenge http.Header   // WWW-Authenticate of the last 401 or 403
	disc      *discovery    // for challenge; nil until needed
	seek      bool          // a discovery is wanted: the server asked for a token
	early     chan struct{} // closed when the early discovery ended (see earlyDiscovery); nil before
}

// NewShared returns what the logins of the server at serverURL share,
// with their requests made by base (nil: a client with a 30 s timeout),
// bounded as [egress.LoginClient] says. It does no I/O.
func NewShared(base *http.Client, serverURL string) *Shared {
	return &Shared{http: egress.LoginClient(base, serverURL)}
}

// CloseIdle closes the idle connections of the login requests.
func (s *Shared) CloseIdle() { s.http.CloseIdleConnections() }

// CloseIdle closes the idle connections of c's login requests.
func (c *Client) CloseIdle() { c.sh.CloseIdle() }

// Asked reports whether the server has asked for a token (it answered
// 401 to a request), so that every user's stored token is sent from the
// first request on.
func (s *Shared) Asked() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seek
}

// Learner is told credentials as they are obtained, so that they can be
// kept out of messages. Its methods must be safe for concurrent use and
// must not block.
type Learner interface {
	// Learn is told credentials; "" entries mean none.
	Learn(credentials ...string)
	// LearnClient is told a client secret and the ID it goes with.
	LearnClient(clientID, secret string)
}

// noLearner learns nothing.
type noLearner struct{}

func (noLearner) Learn(...string)            {}
func (noLearner) LearnClient(string, string) {}

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
	sh    *Shared

	loginMu sync.Mutex // one login at a time

	mu       sync.Mutex
	handler  *transport.OAuthHandler
	active   bool // Eager, or a 401 was seen
	state    auth.State
	lastErr  error
	stepUp   []string // the scopes a 403 asked for, until a login gets them
	stepUps  int      // step-up logins since the server last accepted a token
	refusals int      // 401s to a grant's tokens since one was accepted
	key      *dpopKey // the key the tokens are bound to; nil: bearer tokens
	nonces   map[string]string
}

// New returns a Client for cfg. It does no I/O.
func New(cfg Config) *Client {
	// Every request of the login, mcp-go's and ours, goes through
	// egress's bounds: response sizes, forbidden addresses, redirects.
	sh := cfg.Shared
	if sh == nil {
		sh = NewShared(cfg.HTTPClient, cfg.ServerURL)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Learn == nil {
		cfg.Learn = noLearner{}
	}
	if cfg.Grant != nil {
		sh.mu.Lock()
		sh.seek = true
		sh.mu.Unlock()
	}
	c := &Client{cfg: cfg, sh: sh, active: cfg.Eager || cfg.Grant != nil}
	hc := *sh.http
	hc.Transport = dpopTransport{c: c, base: sh.http.Transport}
	c.http = &hc
	c.store = &tokenStore{store: cfg.Store, user: cfg.User, server: cfg.ServerURL, issuer: c.issuer}
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

// current returns the handler for requests: the one of the last login, or
// one for the stored token and client (of the authorization server
// discovered now: see tokenStore).
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
	cl := oauthClient{ID: c.cfg.ClientID, Secret: c.cfg.ClientSecret}
	if t != nil {
		c.keyOfToken(t.DPoPKey)
	}
	if t != nil && cl.ID == "" {
		cl = oauthClient{ID: t.ClientID, Secret: t.ClientSecret, AuthMethod: t.TokenEndpointAuthMethod, Issuer: t.Issuer}
	}
	var scopes []string
	if t != nil {
		scopes = t.Scopes
	}
	h = c.newHandler(cl, c.cfg.RedirectURI, scopes)
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
	if !active && !c.sh.Asked() {
		return "", nil
	}
	if c.cfg.Grant != nil {
		return c.grantAuthorization(ctx)
	}
	if t, err := c.store.load(ctx); err != nil {
		return "", fmt.Errorf("token store: %w", err)
	} else if t == nil {
		return "", nil // none to send (yet: see issuer)
	}
	h, err := c.current(ctx)
	if err != nil {
		return "", fmt.Errorf("token store: %w", err)
	}
	v, before, err := c.header(ctx, h)
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
	c.noteChallenge(resp.Header)
	c.mu.Lock()
	c.active = true
	c.mu.Unlock()
	c.sh.mu.Lock()
	c.sh.seek = true
	c.sh.mu.Unlock()
	if c.cfg.Grant != nil {
		return c.grantUnauthorized(ctx, sent)
	}
	if sent == "" {
		if t, _ := c.store.load(ctx); t != nil && t.AccessToken != "" {
			return true // a stored token from an earlier run
		}
	}
	if sent != "" && c.movedAway(ctx) {
		return false
	}
	if tok, ok := tokenOf(sent); ok {
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

// movedAway reads the server's protected resource metadata again after
// it refused a token, and reports whether it now names another
// authorization server than the one that issued the stored token (the
// server moved, SEP-2352). Then the token and its client are forgotten,
// not refreshed or sent to the new server, and a login is needed, which
// uses the new server and a client of its own.
func (c *Client) movedAway(ctx context.Context) bool {
	t, _ := c.store.load(ctx)
	if t == nil || t.Issuer == "" {
		return false
	}
	c.sh.mu.Lock()
	c.sh.disc = nil
	c.sh.mu.Unlock()
	d, err := c.discovered(ctx)
	if err != nil || !d.Named || d.AS.Issuer == t.Issuer {
		return false
	}
	c.cfg.Logger.Warn("mcp server moved to another authorization server; login needed", "server", c.cfg.Server)
	c.store.erase(ctx, t.Issuer)
	c.mu.Lock()
	c.handler = nil
	c.mu.Unlock()
	c.setState(auth.StateLoginNeeded, nil)
	return true
}

// noteChallenge keeps a new WWW-Authenticate challenge: the next
// discovery starts from it.
func (c *Client) noteChallenge(h http.Header) {
	c.sh.mu.Lock()
	defer c.sh.mu.Unlock()
	if len(h.Values("WWW-Authenticate")) == 0 || slices.Equal(c.sh.challenge.Values("WWW-Authenticate"), h.Values("WWW-Authenticate")) {
		return
	}
	c.sh.challenge = h.Clone()
	if challengeParam(h, "resource_metadata") != "" || c.sh.disc == nil {
		c.sh.disc = nil
	}
}

// Accepted records that the server accepted a request sent with a token.
func (c *Client) Accepted(context.Context) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.refusals = 0
	if c.stepUp == nil {
		c.state, c.lastErr = auth.StateAuthenticated, nil
	}
}

// Err returns the error of the last login, grant or step-up that failed,
// nil when there is none.
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lastErr
}

// Login runs the authorization-code flow with PKCE: discovery (from the
// last challenge, or the server's well-known metadata), the client
// (configured, Client ID Metadata Document, stored or dynamically
// registered), the URL handed to ShowURL, the redirect awaited on a
// loopback listener, the code exchanged and the token stored. With a
// Grant, it gets a token with that grant instead, without ShowURL. It
// returns when the token is stored, or with ctx's error (bounded by
// DefaultLoginTimeout when ctx has no deadline).
func (c *Client) Login(ctx context.Context) error {
	if c.cfg.ShowURL == nil && c.cfg.Grant == nil {
		return ErrNoLoginHandler
	}
	c.loginMu.Lock()
	defer c.loginMu.Unlock()
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultLoginTimeout)
		defer cancel()
	}
	var err error
	if c.cfg.Grant != nil {
		err = c.grant(ctx)
	} else {
		err = c.login(ctx)
	}
	if err != nil {
		err = fmt.Errorf("login to mcp server %q: %w", c.cfg.Server, err)
		c.setState(auth.StateFailed, err)
		return err
	}
	c.mu.Lock()
	c.active = true
	c.refusals = 0
	if c.stepUp != nil {
		c.stepUps++
	} else {
		c.stepUps = 0
	}
	c.stepUp = nil
	c.state, c.lastErr = auth.StateAuthenticated, nil
	c.mu.Unlock()
	return nil
}

// scopes returns the scopes a login asks for: the configured ones; else
// those of the challenge, else the protected resource's scopes_supported;
// with, after a 403, the scopes the server asked for added to those held.
func (c *Client) scopes(ctx context.Context, d *discovery) []string {
	c.mu.Lock()
	stepUp := c.stepUp
	c.mu.Unlock()
	challenge := c.sh.lastChallenge()
	scopes := slices.Clone(c.cfg.Scopes)
	if len(scopes) == 0 {
		scopes = challengeScopes(challenge)
	}
	if len(scopes) == 0 && d != nil {
		scopes = slices.Clone(d.ResourceScopes)
	}
	if stepUp != nil {
		if t, _ := c.store.load(ctx); t != nil {
			scopes = append(scopes, t.Scopes...)
		}
		scopes = append(scopes, stepUp...)
	}
	var out []string
	for _, s := range scopes {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

func (c *Client) login(ctx context.Context) error {
	ln, redirect, err := listen(c.cfg.RedirectURI)
	if err != nil {
		return err
	}
	defer ln.Close()
	d, err := c.discovered(ctx)
	if err != nil {
		return err
	}
	// PKCE S256 is required; only the 2025-03-26 default endpoints, of
	// a server without metadata, cannot say.
	if d.Found && !slices.Contains(d.AS.CodeChallengeMethods, "S256") {
		return ErrNoPKCE
	}
	scopes := c.scopes(ctx, d)
	cl, err := c.clientFor(ctx, d, redirect, scopes)
	if err != nil {
		return err
	}
	if err := c.bindKey(d); err != nil {
		return err
	}
	c.store.mu.Lock()
	c.store.scopes = scopes
	c.store.mu.Unlock()
	h := c.newHandler(cl, redirect, scopes)
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
	if u, err := url.Parse(authURL); err == nil {
		q := u.Query()
		for k, v := range c.extraParams(d) {
			if !q.Has(k) {
				q[k] = v
			}
		}
		u.RawQuery = q.Encode()
		authURL = u.String()
	}
	path := "/oauth/callback"
	if u, err := url.Parse(redirect); err == nil && u.Path != "" {
		path = u.Path
	}
	issuer := ""
	if d.AS.ISSParameter {
		issuer = d.AS.Issuer
	}
	got := make(chan callback, 1)
	srv := &http.Server{
		Handler:           callbackHandler(path, state, issuer, d.AS.Issuer, got),
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
	c.cfg.Learn.Learn(cb.code)
	if err := h.ProcessAuthorizationResponse(ctx, cb.code, state, verifier); err != nil {
		return fmt.Errorf("token exchange: %w", err)
	}
	c.store.refuse("")
	c.mu.Lock()
	c.handler = h
	c.mu.Unlock()
	return nil
}
