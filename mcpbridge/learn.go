package mcpbridge

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"github.com/mcpgenai/bridge/mcpbridge/auth"
	"github.com/mcpgenai/bridge/mcpbridge/internal/mcpconn"
	"github.com/mcpgenai/bridge/mcpbridge/internal/secrets"
)

// The Bridge's redactors learn every credential the Bridge obtains at run
// time, from the moment it has it: every token a login loads from or saves
// to its token store, with the client credentials kept beside it
// ([learningStore], which sees a registered client as soon as the login
// keeps it); the configured client secret; authorization codes (through
// [login.Config.Learn]); and every
// Authorization value a server's requests carry ([learningAuth], which
// covers Google credentials too). A learned credential joins the redactor
// of its server and the Bridge's, so every exit hides it.
//
// Each credential is learned for what holds it (a secrets.Owner): a token
// entry (user, server, issuer: its tokens, DPoP key and registered
// client), a user's login at a server (authorization codes, assertions,
// DPoP keys), a user's Authorizer at a server (the values requests
// carry), the configured client. The keyrings keep what an owner holds
// now and a few credentials before, however many users and refreshes
// there are; a user's go to the keyrings' bounded pool when the user's
// state is dropped (retire), and come back as the user's tokens are
// loaded again.

// keyrings teaches several keyrings at once, a server's and the
// Bridge's, credentials held by one owner.
type keyrings struct {
	ks    []*secrets.Keyring
	owner secrets.Owner
}

func (l keyrings) Learn(credentials ...string) {
	for _, k := range l.ks {
		k.LearnFor(l.owner, credentials...)
	}
}

func (l keyrings) LearnClient(clientID, secret string) {
	for _, k := range l.ks {
		k.LearnClientFor(l.owner, clientID, secret)
	}
}

// as returns l for credentials held by owner.
func (l keyrings) as(owner secrets.Owner) keyrings {
	l.owner = owner
	return l
}

// learner returns what learns the credentials of s (a configured
// server) that what of user holds (a word: "login", "auth" ...).
func (b *Bridge) learner(s *server, user, what string) keyrings {
	return keyrings{ks: []*secrets.Keyring{s.redac, b.redact.Keyring}, owner: secrets.Owner{User: user, Name: what + " " + s.cfg.Name}}
}

// retireLocked gives up the credentials u's owners hold (see
// [secrets.Keyring.Retire]): u's state is being dropped.
func (b *Bridge) retireLocked(u *userState) {
	b.redact.Retire(u.id)
	for _, s := range b.servers {
		s.redac.Retire(u.id)
	}
}

// learningStore is a token store whose every token, loaded or saved, is
// learned first.
type learningStore struct {
	auth.Store
	learn keyrings
}

func (s learningStore) Load(ctx context.Context, key auth.Key) (*auth.Token, error) {
	t, err := s.Store.Load(ctx, key)
	s.token(key, t)
	return t, err
}

func (s learningStore) Save(ctx context.Context, key auth.Key, t *auth.Token) error {
	s.token(key, t)
	return s.Store.Save(ctx, key, t)
}

// token learns the credentials in t, held by the entry of key; nil is
// none.
func (s learningStore) token(key auth.Key, t *auth.Token) {
	if t != nil {
		l := s.learn.as(secrets.Owner{User: key.User, Name: "token " + key.Server + " " + key.Issuer})
		l.Learn(t.AccessToken, t.RefreshToken, t.DPoPKey)
		l.LearnClient(t.ClientID, t.ClientSecret)
	}
}

// learningAuth is an Authorizer whose every credential is learned before
// a request carries it.
type learningAuth struct {
	mcpconn.Authorizer
	learn keyrings
}

// learning returns a with its credentials learned; nil for nil.
func learning(a mcpconn.Authorizer, learn keyrings) mcpconn.Authorizer {
	if a == nil {
		return nil
	}
	return learningAuth{Authorizer: a, learn: learn}
}

func (a learningAuth) Authorization(ctx context.Context) (string, error) {
	v, err := a.Authorizer.Authorization(ctx)
	if v != "" {
		cred := v // the credential, without the scheme: it hides v too
		if scheme, c, ok := strings.Cut(v, " "); ok && scheme != "" {
			cred = strings.TrimSpace(c)
		}
		a.learn.Learn(cred)
	}
	return v, err
}

// State returns the state of the Authorizer it wraps, [auth.StateNone]
// when that has none.
func (a learningAuth) State() auth.State {
	if st, ok := a.Authorizer.(interface{ State() auth.State }); ok {
		return st.State()
	}
	return auth.StateNone
}

// DPoPProof passes on the DPoP proof of the Authorizer it wraps (see
// [mcpconn.Prover]); "" when that binds no token.
func (a learningAuth) DPoPProof(ctx context.Context, method string, u *url.URL, authorization string) (string, error) {
	if p, ok := a.Authorizer.(mcpconn.Prover); ok {
		return p.DPoPProof(ctx, method, u, authorization)
	}
	return "", nil
}

// DPoPNonce passes a response on to the Authorizer it wraps when that
// binds its tokens (see [mcpconn.Prover]).
func (a learningAuth) DPoPNonce(ctx context.Context, u *url.URL, resp *http.Response) bool {
	if p, ok := a.Authorizer.(mcpconn.Prover); ok {
		return p.DPoPNonce(ctx, u, resp)
	}
	return false
}

// Forbidden tells the Authorizer it wraps of a 403 when it wants to know
// (see [mcpconn.Forbidder]), as the transport would without the wrapper.
func (a learningAuth) Forbidden(ctx context.Context, resp *http.Response, sent string) {
	if f, ok := a.Authorizer.(mcpconn.Forbidder); ok {
		f.Forbidden(ctx, resp, sent)
	}
}
