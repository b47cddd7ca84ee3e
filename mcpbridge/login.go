package mcpbridge

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mcpgenai/bridge/mcpbridge/auth"
	"github.com/mcpgenai/bridge/mcpbridge/internal/egress"
	"github.com/mcpgenai/bridge/mcpbridge/internal/login"
	"github.com/mcpgenai/bridge/mcpbridge/internal/mcpconn"
	"github.com/mcpgenai/bridge/mcpbridge/internal/secrets"
)

// credentials returns what gives the requests of the server s their
// credentials, and the OAuth login among them. Every credential the
// login obtains is told to learn. For a server whose credentials may be
// each user's, it also keeps in s what every user's login is made from
// (see users.go); on a Bridge for many users the Bridge's own login there
// (the user "") has no tokens.
func (b *Bridge) credentials(s *server, o *Options, learn keyrings) (mcpconn.Authorizer, *login.Client) {
	cfg := s.cfg
	if cfg.endpoint() != "" && (cfg.AuthProviderType == AuthGoogleCredentials || cfg.AuthProviderType == AuthServiceAccountImpersonation) {
		gc := login.GoogleConfig{
			Server:    cfg.Name,
			Transport: b.hooks.googleTransport,
		}
		if cfg.OAuth != nil {
			gc.Scopes = cfg.OAuth.Scopes
		}
		if cfg.AuthProviderType == AuthServiceAccountImpersonation {
			gc.TargetAudience, gc.TargetServiceAccount = cfg.TargetAudience, cfg.TargetServiceAccount
		} else if allow := b.hooks.googleHost; (allow == nil && !login.GoogleHost(cfg.endpoint())) || (allow != nil && !allow(cfg.endpoint())) {
			gc.Refuse = fmt.Errorf("google_credentials are sent only to https hosts under googleapis.com or luci.app, not to %s", redactorFor(cfg).URL(cfg.endpoint()))
		}
		return login.NewGoogle(gc), nil
	}
	if !cfg.usesOAuth() {
		return nil, nil
	}
	lc := login.Config{
		Server:    cfg.Name,
		ServerURL: cfg.endpoint(),
		Store:     o.TokenStore,
		ShowURL:   boundedShowURL(o.LoginURL, cfg.endpoint()),
		Logger:    b.log,
		Learn:     learn,
	}
	if lc.Store == nil && o.Store != nil {
		lc.Store = o.Store
	}
	if lc.Store == nil {
		lc.Store = defaultStore()
	}
	lc.Lock, _ = lc.Store.(auth.Locker)
	lc.Store = learningStore{Store: lc.Store, learn: learn}
	if perUserCapable(&cfg) {
		s.lsh = login.NewShared(nil, cfg.endpoint())
		lc.Shared = s.lsh
	}
	if oc := cfg.OAuth; oc != nil {
		lc.Eager = true
		lc.ClientID, lc.ClientSecret = oc.ClientID, oc.ClientSecret
		learn.as(secrets.Owner{Name: "configured " + cfg.Name}).LearnClient(oc.ClientID, oc.ClientSecret)
		lc.AuthorizationURL, lc.TokenURL, lc.RegistrationURL = oc.AuthorizationURL, oc.TokenURL, oc.RegistrationURL
		lc.Scopes, lc.Audiences, lc.RedirectURI = oc.Scopes, oc.Audiences, oc.RedirectURI
		lc.ClientMetadataURL = oc.ClientMetadataURL
		lc.DPoP, lc.DPoPKey = login.DPoPMode(oc.DPoP), oc.DPoPKey
		switch oc.GrantType {
		case "client_credentials", "enterprise", "jwt_bearer":
			g := &login.Grant{Type: login.GrantClientCredentials, PrivateKey: oc.PrivateKey, SigningAlgorithm: oc.SigningAlgorithm}
			switch oc.GrantType {
			case "enterprise":
				g.Type = login.GrantEnterprise
				g.IDPTokenURL, g.IDPClientID, g.IDPClientSecret, g.IDToken = oc.IDPTokenURL, oc.IDPClientID, oc.IDPClientSecret, oc.IDToken
			case "jwt_bearer":
				g.Type = login.GrantJWTBearer
				g.Assertion, g.AssertionFile = oc.Assertion, oc.AssertionFile
			}
			lc.Grant = g
		}
	}
	s.loginCfg = lc
	if o.MaxUsers > 0 && s.lsh != nil {
		lc.Store, lc.Lock = learningStore{Store: noTokens{}, learn: learn}, nil
	}
	c := login.New(lc)
	return c, c
}

// boundedShowURL returns show, refusing before show sees it an
// authorization URL that egress.CheckAuthorizationURL refuses for the
// server at serverURL; nil stays nil.
func boundedShowURL(show func(ctx context.Context, server, authURL string) error, serverURL string) func(ctx context.Context, server, authURL string) error {
	if show == nil {
		return nil
	}
	return func(ctx context.Context, server, authURL string) error {
		if err := egress.CheckAuthorizationURL(authURL, serverURL); err != nil {
			return err
		}
		return show(ctx, server, authURL)
	}
}

// defaultStore returns the file store at auth.DefaultPath, or a store that
// fails with the reason there is none.
func defaultStore() auth.Store {
	fs, err := auth.NewFileStore("")
	if err != nil {
		return failingStore{err}
	}
	return fs
}

type failingStore struct{ err error }

func (f failingStore) Load(context.Context, auth.Key) (*auth.Token, error) { return nil, f.err }
func (f failingStore) Save(context.Context, auth.Key, *auth.Token) error   { return f.err }
func (f failingStore) Delete(context.Context, auth.Key) error              { return f.err }

// authState returns where the login or credentials of s stand.
func (s *server) authState() auth.State {
	if st, ok := s.creds.(interface{ State() auth.State }); ok {
		return st.State()
	}
	return auth.StateNone
}

// loginError marks the failed connection or request of a server that
// wants a login: one wrapping [auth.ErrLoginRequired] (with the scopes a
// step-up asks for), or the error of a step-up that cannot help (it wraps
// ErrInsufficientScope).
func loginError(s *server, err error) error {
	if s.login == nil {
		return err
	}
	if st := s.login.State(); st.NeedsLogin() {
		if scopes := s.login.Scopes(); len(scopes) > 0 {
			return fmt.Errorf("mcp server %q: %w with scopes %q (Bridge.Login asks for them): %w", s.cfg.Name, auth.ErrLoginRequired, strings.Join(scopes, " "), err)
		}
		return fmt.Errorf("mcp server %q: %w (Bridge.Login connects it): %w", s.cfg.Name, auth.ErrLoginRequired, err)
	}
	if lerr := s.login.Err(); lerr != nil && errors.Is(lerr, login.ErrInsufficientScope) {
		return fmt.Errorf("%w: %w", lerr, err)
	}
	return err
}

// Login logs in to the named server and connects it. The authorization URL
// goes to [Options.LoginURL]; Login then waits for the browser's redirect
// (at most 5 minutes when ctx has no deadline), stores the token in
// [Options.TokenStore], connects the server and registers its tools, as
// [Bridge.Discover] does for one server. A server that is already
// connected is logged in again and keeps its connection. A server that
// does not use OAuth (stdio, oauth.enabled false, an Authorization header
// configured, or Google credentials) is an error.
//
// Discovery never waits for a login: a server that answers 401 is
// [Disconnected] with an error wrapping [auth.ErrLoginRequired] and its
// [ServerStatus.Auth] says a login is needed; Login is the one call that
// brings it in. Login is safe for concurrent use; logins of one server run
// one at a time.
func (b *Bridge) Login(ctx context.Context, name string) error {
	if UserOf(ctx) != "" {
		b.mu.Lock()
		if s := b.byName[name]; s != nil {
			b.markPerUserLocked(s) // a user's own login: the user's own credentials
		}
		b.mu.Unlock()
	}
	s, u, err := b.use(ctx, name)
	if err != nil {
		return err
	}
	defer b.done(s, u)
	if s.login == nil {
		return fmt.Errorf("mcp server %q: %w", name, errNoLogin)
	}
	ctx, stop := b.bounded(ctx)
	defer stop()
	if err := s.login.Login(ctx); err != nil {
		b.mu.Lock()
		if s.link == nil {
			b.setStateLocked(s, Disconnected, err)
		}
		b.mu.Unlock()
		return b.redact.redactErr(err)
	}
	s.dialMu.Lock()
	defer s.dialMu.Unlock()
	if c, err := b.current(s); c != nil || err != nil {
		return err
	}
	b.mu.Lock()
	b.setStateLocked(s, Connecting, nil)
	b.mu.Unlock()
	_, err = b.redial(ctx, s)
	return err
}
