// Package auth holds what a host program sees of the login to remote MCP
// servers: the tokens kept for each user, server and authorization server
// ([Token], [Key]), where they are kept ([Store]: by default a
// [FileStore], or a [MemoryStore]; a service's replicas share one, see
// package [github.com/mcpgenai/bridge/mcpbridge/store]), and the state
// of a server's login ([State]).
//
// The login itself (OAuth 2.1 discovery, dynamic client registration,
// authorization code with PKCE, the grants without a person, DPoP,
// refresh, Google credentials) is run by
// [github.com/mcpgenai/bridge/mcpbridge.Bridge]; this package has no
// network code.
//
//	store, err := auth.NewFileStore("") // ~/.config/mcpbridge/oauth-tokens.json or the OS equivalent
//	if err != nil {
//		log.Fatal(err)
//	}
//	_ = &mcpbridge.Options{TokenStore: store}
package auth

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"
)

// Token is what is kept for one server after a login. Every field is a
// secret except TokenType and Expiry: a Token is never logged, and its
// String and LogValue show neither token.
type Token struct {
	// AccessToken is sent to the server as a bearer token, or as a DPoP
	// token with a proof signed by DPoPKey when that is set.
	AccessToken string `json:"accessToken"`
	// TokenType is the type the authorization server gave, usually
	// "Bearer" ("DPoP" for a token bound to DPoPKey).
	TokenType string `json:"tokenType,omitempty"`
	// RefreshToken gets a new AccessToken without a login; "" when the
	// authorization server gave none.
	RefreshToken string `json:"refreshToken,omitempty"`
	// Expiry is when AccessToken expires; the zero time means unknown
	// (it is used until the server refuses it).
	Expiry time.Time `json:"expiry,omitzero"`
	// ClientID and ClientSecret are the client credentials the token was
	// issued to: those of the settings, or those that dynamic client
	// registration gave. ClientSecret is "" for a public client.
	ClientID     string `json:"clientId,omitempty"`
	ClientSecret string `json:"clientSecret,omitempty"`
	// TokenEndpointAuthMethod is how the client authenticates at the
	// token endpoint, as registration gave it ("" for the server's
	// choice).
	TokenEndpointAuthMethod string `json:"tokenEndpointAuthMethod,omitempty"`
	// Issuer is the authorization server that issued the token and the
	// client. The token and client are used only with that server: a
	// server that moves to another authorization server gets a new login
	// and client.
	Issuer string `json:"issuer,omitempty"`
	// Scopes are the scopes the token was asked for.
	Scopes []string `json:"scopes,omitempty"`
	// DPoPKey is the PEM private key (EC P-256) that AccessToken and
	// RefreshToken are bound to (DPoP, RFC 9449): they are of no use
	// without it. "" for bearer tokens. A secret, like the tokens.
	DPoPKey string `json:"dpopKey,omitempty"`
}

// String returns a description of t that holds no secret, so that
// printing a Token with fmt's %v or %s shows no token.
func (t Token) String() string {
	exp := "unknown expiry"
	if !t.Expiry.IsZero() {
		exp = "expires " + t.Expiry.UTC().Format(time.RFC3339)
	}
	return fmt.Sprintf("token(%s, refreshable=%t)", exp, t.RefreshToken != "")
}

// LogValue logs t as its String.
func (t Token) LogValue() slog.Value { return slog.StringValue(t.String()) }

// Key names what a [Store] keeps: the credentials of one user for one
// server at one authorization server. A token or a registered client is
// used only under the key it was saved with, so a server that moves to
// another authorization server gets a new login (and keeps the old
// server's client for when it moves back), and no user's token is ever
// loaded for another.
type Key struct {
	// User is the host's identifier of the person the credentials are
	// for; "" is the one user of a Bridge that serves one.
	User string
	// Server is the MCP server's endpoint URL.
	Server string
	// Issuer is the issuer identifier of the authorization server, as
	// discovered (or the origin of the configured authorization URL).
	Issuer string
}

// Store keeps one Token per [Key]: the tokens of a login, and the client
// they were issued to (a dynamically registered client is kept at once,
// in a Token without tokens, so that the next login reuses it).
//
// Implementations must be safe for concurrent use. Load returns (nil, nil)
// when there is nothing for key; Delete of a missing key is not an error.
// A Token given to Save or returned by Load belongs to the caller from
// then on: neither side modifies it afterwards. Save of a nil Token is an
// error. A Store shared by several processes should also be a [Locker].
type Store interface {
	Load(ctx context.Context, key Key) (*Token, error)
	Save(ctx context.Context, key Key, t *Token) error
	Delete(ctx context.Context, key Key) error
}

// Locker is a [Store] that can hold one key at a time for one holder
// among every process sharing the store. The login holds a key while it
// refreshes its token, and reads the store again once it holds it: of two
// processes whose token expired at once, one sends the refresh request
// and the other uses the token it got (an authorization server that
// rotates refresh tokens refuses a refresh token spent twice, and may
// revoke the tokens of both). Without a Locker, the refreshes of one
// process share one request, but two processes may each send one.
type Locker interface {
	// Lock waits until no other holder holds key, then holds it until
	// unlock is called (unlock may be called more than once) or the
	// holding process ends. It returns ctx's error if ctx ends first,
	// and then holds nothing. A holder must not Lock a key it holds.
	Lock(ctx context.Context, key Key) (unlock func(), err error)
}

// State is where the login of one server stands. The zero value,
// [StateNone], belongs to servers that need no login.
type State int

const (
	// StateNone: the server has not asked for a login.
	StateNone State = iota
	// StateAuthenticated: a token is held and the server accepted it.
	StateAuthenticated
	// StateLoginNeeded: the server refused us and no token (or no
	// refreshable token) is held; a login must happen.
	StateLoginNeeded
	// StateExpired: the token expired and refreshing it failed; a login
	// must happen.
	StateExpired
	// StateFailed: the last login or credential lookup failed.
	StateFailed
)

var stateNames = []string{"", "authenticated", "login needed", "expired", "failed"}

// String returns "", "authenticated", "login needed", "expired" or
// "failed".
func (s State) String() string {
	if s >= 0 && int(s) < len(stateNames) {
		return stateNames[s]
	}
	return fmt.Sprintf("State(%d)", int(s))
}

// MarshalText encodes s as its String.
func (s State) MarshalText() ([]byte, error) {
	if s < 0 || int(s) >= len(stateNames) {
		return nil, fmt.Errorf("invalid auth state %d", int(s))
	}
	return []byte(stateNames[s]), nil
}

// UnmarshalText decodes a String.
func (s *State) UnmarshalText(b []byte) error {
	for i, n := range stateNames {
		if string(b) == n {
			*s = State(i)
			return nil
		}
	}
	return fmt.Errorf("unknown auth state %q", b)
}

// NeedsLogin reports whether s asks for a login: [StateLoginNeeded] or
// [StateExpired].
func (s State) NeedsLogin() bool { return s == StateLoginNeeded || s == StateExpired }

// ErrLoginRequired is wrapped by the errors of servers that refuse us until
// somebody logs in.
var ErrLoginRequired = errors.New("login required")

// ErrInsufficientScope is wrapped by the errors of a server that refuses
// the token for want of scope (HTTP 403 insufficient_scope) when another
// login cannot help: it names scopes the token was already asked for, or
// keeps refusing after the step-up logins allowed.
var ErrInsufficientScope = errors.New("server refuses the token: insufficient scope")
