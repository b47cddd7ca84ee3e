package login

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/mcpgenai/bridge/mcpbridge/auth"
)

// refreshEarly is how long before its expiry a token counts as expired, so
// that it is refreshed before a request can meet the deadline.
const refreshEarly = 30 * time.Second

// tokenStore adapts an auth.Store entry to mcp-go's TokenStore. It makes a
// token look expired refreshEarly before its expiry, or at once after the
// server refused it (see refuse), so that mcp-go's handler refreshes it,
// once for all callers waiting.
//
// The entry is the one of the user and server at the authorization server
// that discovery finds (issuer): a token of another authorization server
// is never loaded.
type tokenStore struct {
	store  auth.Store
	user   string
	server string
	issuer func(ctx context.Context) (string, error)

	mu        sync.Mutex
	client    oauthClient // the client of the handler
	scopes    []string    // the scopes it asks for
	refused   string      // an access token the server refused
	dpopKey   string      // the PEM key the tokens saved from now on are bound to
	loaded    bool        // cached is what the store holds under cachedKey
	cachedKey auth.Key
	cached    *auth.Token
}

// key returns the store's key of the entry: it needs the discovery.
func (s *tokenStore) key(ctx context.Context) (auth.Key, error) {
	iss, err := s.issuer(ctx)
	if err != nil {
		return auth.Key{}, fmt.Errorf("finding the authorization server: %w", err)
	}
	return auth.Key{User: s.user, Server: s.server, Issuer: iss}, nil
}

// load returns the stored token (nil when none), read from the store once
// and then kept until drop: this process changes it, or another one under
// the lock of a refresh (see sharedHeader).
func (s *tokenStore) load(ctx context.Context) (*auth.Token, error) {
	k, err := s.key(ctx)
	if errors.Is(err, errIssuerUnknown) {
		return nil, nil // none can be sent yet (see Client.issuer)
	}
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.loaded && s.cachedKey == k {
		return s.cached, nil
	}
	t, err := s.store.Load(ctx, k)
	if err != nil {
		return nil, err
	}
	s.cached, s.loaded, s.cachedKey = t, true, k
	return t, nil
}

// save stores t, with the issuer of the key when it names none, and keeps
// it.
func (s *tokenStore) save(ctx context.Context, t *auth.Token) error {
	k, err := s.key(ctx)
	if err != nil {
		return err
	}
	if t.Issuer == "" {
		t.Issuer = k.Issuer
	}
	if err := s.store.Save(ctx, k, t); err != nil {
		return err
	}
	s.mu.Lock()
	s.cached, s.loaded, s.cachedKey = t, true, k
	s.mu.Unlock()
	return nil
}

func (s *tokenStore) GetToken(ctx context.Context) (*transport.Token, error) {
	t, err := s.load(ctx)
	if err != nil {
		return nil, err
	}
	if t == nil || t.AccessToken == "" {
		return nil, transport.ErrNoToken
	}
	out := &transport.Token{
		AccessToken:  t.AccessToken,
		TokenType:    t.TokenType,
		RefreshToken: t.RefreshToken,
	}
	if !t.Expiry.IsZero() {
		out.ExpiresAt = t.Expiry.Add(-refreshEarly)
	}
	s.mu.Lock()
	if s.refused != "" && s.refused == t.AccessToken {
		out.ExpiresAt = time.Unix(1, 0)
	}
	s.mu.Unlock()
	return out, nil
}

func (s *tokenStore) SaveToken(ctx context.Context, t *transport.Token) error {
	s.mu.Lock()
	cl, scopes, key := s.client, s.scopes, s.dpopKey
	s.mu.Unlock()
	var exp time.Time
	if !t.ExpiresAt.IsZero() {
		// mcp-go computed ExpiresAt from expires_in; keep the real expiry.
		exp = t.ExpiresAt
	}
	return s.save(ctx, &auth.Token{
		AccessToken:  t.AccessToken,
		TokenType:    t.TokenType,
		RefreshToken: t.RefreshToken,
		Expiry:       exp,
		ClientID:     cl.ID,
		ClientSecret: cl.Secret,

		TokenEndpointAuthMethod: cl.AuthMethod,
		Issuer:                  cl.Issuer,
		Scopes:                  scopes,
		DPoPKey:                 key,
	})
}

// keepClient stores the client cl (of a dynamic registration) without
// tokens: the next login reuses it.
func (s *tokenStore) keepClient(ctx context.Context, cl oauthClient) error {
	return s.save(ctx, &auth.Token{ClientID: cl.ID, ClientSecret: cl.Secret, TokenEndpointAuthMethod: cl.AuthMethod, Issuer: cl.Issuer})
}

// refuse records that the server refused access token tok: it counts as
// expired from now on.
func (s *tokenStore) refuse(tok string) {
	s.mu.Lock()
	s.refused = tok
	s.mu.Unlock()
}

// forget drops the tokens but keeps the client credentials, after a
// refresh failed: the next request goes without a token and a login is
// asked for.
func (s *tokenStore) forget(ctx context.Context) error {
	t, err := s.load(ctx)
	if err != nil || t == nil {
		return err
	}
	return s.save(ctx, &auth.Token{ClientID: t.ClientID, ClientSecret: t.ClientSecret, TokenEndpointAuthMethod: t.TokenEndpointAuthMethod, Issuer: t.Issuer})
}

// erase deletes the stored token and client of issuer, an authorization
// server the server no longer names.
func (s *tokenStore) erase(ctx context.Context, issuer string) {
	_ = s.store.Delete(ctx, auth.Key{User: s.user, Server: s.server, Issuer: issuer})
	s.drop()
}

// drop forgets what load cached: the next load reads the store.
func (s *tokenStore) drop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.loaded, s.cached = false, nil
}

// usable reports whether t holds an access token that has not expired
// (refreshEarly ahead) and that the server has not refused.
func (s *tokenStore) usable(t *auth.Token) bool {
	if t == nil || t.AccessToken == "" {
		return false
	}
	if !t.Expiry.IsZero() && time.Until(t.Expiry) < refreshEarly {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refused == "" || s.refused != t.AccessToken
}
