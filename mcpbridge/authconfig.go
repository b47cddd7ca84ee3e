package mcpbridge

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"

	"github.com/mcpgenai/bridge/mcpbridge/internal/login"
)

// OAuthConfig is the oauth entry of a server in a Gemini CLI settings.json.
// A nil *OAuthConfig (no entry) still lets a server that answers 401 with a
// WWW-Authenticate challenge ask for a login, as Gemini CLI does; an entry
// with Enabled false turns OAuth off for the server.
type OAuthConfig struct {
	// Enabled turns OAuth on ("enabled"). Settings files default it to
	// true when the entry is present.
	Enabled bool
	// ClientID and ClientSecret are a client registered beforehand with
	// the authorization server ("clientId", "clientSecret"). Without
	// ClientID the client is ClientMetadataURL where the server accepts
	// it, else one registered dynamically (RFC 7591) once and kept in the
	// token store with its issuer. ClientSecret is a secret: it never
	// appears in the status.
	ClientID     string
	ClientSecret string
	// AuthorizationURL and TokenURL ("authorizationUrl", "tokenUrl"), when
	// both are set, replace the discovery of the authorization server;
	// RegistrationURL ("registrationUrl") lets such a server register the
	// client dynamically.
	AuthorizationURL string
	TokenURL         string
	RegistrationURL  string
	// Scopes are requested at login ("scopes"); for google_credentials they
	// are the scopes of the access token and are required. Empty means the
	// scopes of the server's WWW-Authenticate challenge, else the
	// scopes_supported of its protected resource metadata, else none.
	Scopes []string
	// Audiences ("audiences") are sent, space-separated, as the audience
	// parameter of the authorization request and of the token requests
	// (code exchange and refresh), as Gemini CLI does.
	Audiences []string
	// RedirectURI ("redirectUri") is where the browser comes back after the
	// login; it must be an http loopback URL with a port, which mcpbridge
	// listens on. Empty means a free port on 127.0.0.1, path
	// /oauth/callback (authorization servers must accept any port for
	// loopback redirects of native clients, RFC 8252 section 7.3).
	RedirectURI string
	// TokenParamName ("tokenParamName"), when set, sends the access token
	// as that query parameter instead of the Authorization header, for SSE
	// servers that ask for it so.
	TokenParamName string

	// ClientMetadataURL ("clientMetadataUrl", mcpbridge's own key) is the
	// https URL of a Client ID Metadata Document describing this client.
	// Where the authorization server advertises
	// client_id_metadata_document_supported, the URL is the client_id and
	// no registration happens; elsewhere ClientID, then dynamic
	// registration, are used.
	ClientMetadataURL string
	// GrantType ("grantType", mcpbridge's own key) is how tokens are got:
	// "" or "authorization_code" (a person logs in, [Bridge.Login]);
	// "client_credentials" (the client-credentials grant, for agents that
	// run as services; ClientID with ClientSecret or PrivateKey);
	// "enterprise" (enterprise-managed authorization: IDToken is
	// exchanged at IDPTokenURL for an identity assertion, which the
	// authorization server takes as a JWT bearer grant from ClientID); or
	// "jwt_bearer" (workload identity federation: Assertion, a token the
	// platform issued to this workload, is the JWT bearer grant, with no
	// person and no client secret; ClientID, when set, names the client).
	// Tokens of the last three are got, and got again when they expire
	// or are refused, without any login.
	GrantType string
	// PrivateKey ("privateKey") is a PEM private key, EC P-256 or RSA,
	// that signs the client's assertions instead of sending ClientSecret
	// (private_key_jwt); SigningAlgorithm ("signingAlgorithm": "ES256" or
	// "RS256"), when set, must match it. A secret.
	PrivateKey       string
	SigningAlgorithm string
	// IDPTokenURL ("idpTokenUrl"), IDPClientID ("idpClientId") and
	// IDPClientSecret ("idpClientSecret", a secret) are the enterprise
	// identity provider's token endpoint and this client there; IDToken
	// ("idToken", a secret) is the user's ID token from it. For GrantType
	// "enterprise" only.
	IDPTokenURL     string
	IDPClientID     string
	IDPClientSecret string
	IDToken         string
	// Assertion ("assertion", a secret) is the workload's signed token
	// for GrantType "jwt_bearer", such as "${WORKLOAD_TOKEN}";
	// AssertionFile ("assertionFile") names a file that holds it instead,
	// read at every grant, as platforms rotate the token there.
	Assertion     string
	AssertionFile string

	// DPoP ("dpop") binds the tokens to a key of the client's (RFC 9449,
	// SEP-1932), so that a stolen token is of no use without the key:
	// every token request and every request to the server carries a
	// fresh proof signed with it, and the token goes as "DPoP", not
	// "Bearer". "" or "auto" uses it when the server asks for it (a DPoP
	// challenge, or dpop_bound_access_tokens_required in its protected
	// resource metadata) and the authorization server offers ES256
	// proofs; "always" uses it with every authorization server; "never"
	// never does.
	DPoP string
	// DPoPKey ("dpopKey", a secret) is the PEM private key (EC P-256) the
	// tokens are bound to. Empty means a key made at each login and kept
	// in the token store beside the token it binds.
	DPoPKey string
}

// AuthProviderType is the authProviderType of a server: how its requests
// get credentials. The zero value "" ("dynamic_discovery" in settings, or
// the key absent) is OAuth, with the authorization server as configured or
// discovered from the server's 401 or its well-known metadata.
type AuthProviderType string

const (
	// AuthGoogleCredentials ("google_credentials"): Google Application
	// Default Credentials, an access token for OAuthConfig.Scopes (which
	// must be set). As in Gemini CLI, the token is sent only to https hosts
	// under googleapis.com and luci.app; any other host fails to connect.
	AuthGoogleCredentials AuthProviderType = "google_credentials"
	// AuthServiceAccountImpersonation ("service_account_impersonation"): an
	// ID token for ServerConfig.TargetAudience minted as
	// ServerConfig.TargetServiceAccount with the Application Default
	// Credentials, for servers behind Identity-Aware Proxy or Cloud Run.
	AuthServiceAccountImpersonation AuthProviderType = "service_account_impersonation"
)

// validateAuth checks the login fields of s.
func (s ServerConfig) validateAuth() error {
	bad := func(field, format string, args ...any) error {
		return &ConfigError{Server: s.Name, Field: field, Err: fmt.Errorf(format, args...)}
	}
	remote := s.URL != "" || s.HTTPURL != ""
	switch s.AuthProviderType {
	case "":
	case AuthGoogleCredentials:
		if s.OAuth == nil || len(s.OAuth.Scopes) == 0 {
			return bad("authProviderType", "google_credentials needs oauth.scopes")
		}
	case AuthServiceAccountImpersonation:
		if s.TargetAudience == "" || s.TargetServiceAccount == "" {
			return bad("authProviderType", "service_account_impersonation needs targetAudience and targetServiceAccount")
		}
	default:
		return bad("authProviderType", `must be "dynamic_discovery", "google_credentials" or "service_account_impersonation", got %q`, string(s.AuthProviderType))
	}
	if s.AuthProviderType != "" && !remote {
		return bad("authProviderType", "only allowed with url or httpUrl")
	}
	o := s.OAuth
	if o == nil {
		return nil
	}
	if !remote {
		return bad("oauth", "only allowed with url or httpUrl")
	}
	for _, f := range []struct{ field, value string }{
		{"oauth.authorizationUrl", o.AuthorizationURL},
		{"oauth.tokenUrl", o.TokenURL},
		{"oauth.registrationUrl", o.RegistrationURL},
	} {
		if f.value == "" {
			continue
		}
		u, err := url.Parse(f.value)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return bad(f.field, "must be an absolute http or https URL")
		}
	}
	switch o.GrantType {
	case "", "authorization_code", "client_credentials":
	case "enterprise":
		if o.IDPTokenURL == "" || o.IDToken == "" {
			return bad("oauth.grantType", "enterprise needs idpTokenUrl and idToken")
		}
	case "jwt_bearer":
		if (o.Assertion == "") == (o.AssertionFile == "") {
			return bad("oauth.grantType", "jwt_bearer needs assertion or assertionFile (one of them)")
		}
	default:
		return bad("oauth.grantType", `must be "authorization_code", "client_credentials", "enterprise" or "jwt_bearer", got %q`, o.GrantType)
	}
	switch o.DPoP {
	case "", "auto", "always", "never":
	default:
		return bad("oauth.dpop", `must be "auto", "always" or "never", got %q`, o.DPoP)
	}
	if o.DPoPKey != "" {
		if err := login.CheckDPoPKey(o.DPoPKey); err != nil {
			return bad("oauth.dpopKey", "%w", err)
		}
	}
	if (o.GrantType == "client_credentials" || o.GrantType == "enterprise") && o.ClientID == "" {
		return bad("oauth.clientId", "required with grantType %s", o.GrantType)
	}
	if o.ClientMetadataURL != "" {
		u, err := url.Parse(o.ClientMetadataURL)
		if err != nil || u.Scheme != "https" || u.Host == "" || u.Path == "" || u.Path == "/" {
			return bad("oauth.clientMetadataUrl", "must be an https URL with a path")
		}
	}
	if o.IDPTokenURL != "" {
		u, err := url.Parse(o.IDPTokenURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return bad("oauth.idpTokenUrl", "must be an absolute http or https URL")
		}
	}
	if (o.AuthorizationURL == "") != (o.TokenURL == "") {
		return bad("oauth", "authorizationUrl and tokenUrl go together")
	}
	if o.RedirectURI != "" {
		u, err := url.Parse(o.RedirectURI)
		if err != nil || u.Scheme != "http" || u.Port() == "" {
			return bad("oauth.redirectUri", "must be an http loopback URL with a port, such as http://localhost:7777/oauth/callback")
		}
	}
	return nil
}

// usesOAuth reports whether a login may be asked for s: a remote server
// with authProviderType dynamic_discovery and OAuth not switched off.
func (s ServerConfig) usesOAuth() bool {
	if s.transport() == TransportStdio || s.transport() == "" || s.AuthProviderType != "" {
		return false
	}
	if s.OAuth != nil && !s.OAuth.Enabled {
		return false
	}
	for name := range s.Headers {
		if http.CanonicalHeaderKey(name) == "Authorization" {
			return false // the configured header wins, as in Gemini CLI
		}
	}
	return true
}

// cloneOAuth returns a deep copy of o.
func cloneOAuth(o *OAuthConfig) *OAuthConfig {
	if o == nil {
		return nil
	}
	c := *o
	c.Scopes = slices.Clone(o.Scopes)
	c.Audiences = slices.Clone(o.Audiences)
	return &c
}
