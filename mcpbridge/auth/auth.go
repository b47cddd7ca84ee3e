// Package auth holds what a host program sees of the login to remote MCP
// servers: the tokens kept for each server ([Token]), where they are kept
// ([Store], by default a [FileStore]), and the state of a server's login
// ([State]).
//
// The login itself (OAuth 2.1 discovery, dynamic client registration,
// authorization code with PKCE, refresh, Google credentials) is run by
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
	// AccessToken is sent to the server as a bearer token.
	AccessToken string `json:"accessToken"`
	// TokenType is the type the authorization server gave, usually
	// "Bearer".
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

// Store keeps one Token per key; the Bridge uses each server's endpoint URL
// as its key. Implementations must be safe for concurrent use. Load returns
// (nil, nil) when there is no token for key; a Token given to Save or
// returned by Load is not modified afterwards by either side.
type Store interface {
	Load(ctx context.Context, key string) (*Token, error)
	Save(ctx context.Context, key string, t *Token) error
	Delete(ctx context.Context, key string) error
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
