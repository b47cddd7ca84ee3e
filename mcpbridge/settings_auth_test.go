package mcpbridge_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpgenai/bridge/mcpbridge"
)

func TestParseSettingsOAuth(t *testing.T) {
	data := `{"mcpServers": {
  "tracker": {
    "httpUrl": "https://mcp.example.com/mcp",
    "oauth": {
      "enabled": true,
      "clientId": "cli-123",
      "clientSecret": "$TRACKER_SECRET",
      "authorizationUrl": "https://auth.example.com/authorize",
      "tokenUrl": "https://auth.example.com/token",
      "scopes": ["read", "write"],
      "audiences": ["api://tracker"],
      "redirectUri": "http://localhost:7777/oauth/callback",
      "tokenParamName": "access_token"
    }
  },
  "docs": {"url": "https://docs.example.com/sse", "authProviderType": "dynamic_discovery"},
  "off": {"httpUrl": "https://off.example.com/mcp", "oauth": {"enabled": false}},
  "gcp": {"httpUrl": "https://x.googleapis.com/mcp", "authProviderType": "google_credentials", "oauth": {"scopes": ["https://www.googleapis.com/auth/cloud-platform"]}},
  "iap": {"httpUrl": "https://svc.run.app/mcp", "authProviderType": "service_account_impersonation",
          "targetAudience": "123-abc.apps.googleusercontent.com", "targetServiceAccount": "mcp@proj.iam.gserviceaccount.com"}
}}`
	cfg, err := mcpbridge.ParseSettings([]byte(data), "s.json", env(map[string]string{"TRACKER_SECRET": "s3cret"}))
	if err != nil {
		t.Fatalf("ParseSettings() = %v", err)
	}
	if len(cfg.Warnings) != 0 {
		t.Errorf("warnings = %q, want none", cfg.Warnings)
	}
	want := []mcpbridge.ServerConfig{
		{Name: "tracker", HTTPURL: "https://mcp.example.com/mcp", OAuth: &mcpbridge.OAuthConfig{
			Enabled: true, ClientID: "cli-123", ClientSecret: "s3cret",
			AuthorizationURL: "https://auth.example.com/authorize", TokenURL: "https://auth.example.com/token",
			Scopes: []string{"read", "write"}, Audiences: []string{"api://tracker"},
			RedirectURI: "http://localhost:7777/oauth/callback", TokenParamName: "access_token",
		}, Secrets: []string{"s3cret"}}, // expanded from a secret-looking variable
		{Name: "docs", URL: "https://docs.example.com/sse", AuthProviderType: ""},
		{Name: "off", HTTPURL: "https://off.example.com/mcp", OAuth: &mcpbridge.OAuthConfig{}},
		{Name: "gcp", HTTPURL: "https://x.googleapis.com/mcp", AuthProviderType: mcpbridge.AuthGoogleCredentials,
			OAuth: &mcpbridge.OAuthConfig{Enabled: true, Scopes: []string{"https://www.googleapis.com/auth/cloud-platform"}}},
		{Name: "iap", HTTPURL: "https://svc.run.app/mcp", AuthProviderType: mcpbridge.AuthServiceAccountImpersonation,
			TargetAudience: "123-abc.apps.googleusercontent.com", TargetServiceAccount: "mcp@proj.iam.gserviceaccount.com"},
	}
	if diff := cmp.Diff(want, cfg.Servers); diff != "" {
		t.Errorf("servers (-want +got):\n%s", diff)
	}
	for _, s := range cfg.Servers {
		st := mcpbridge.NewServerStatus(s)
		status := mcpbridge.Status{Servers: []mcpbridge.ServerStatus{st}}
		if text := status.String(); strings.Contains(text, "s3cret") {
			t.Errorf("status of %s shows the client secret:\n%s", s.Name, text)
		}
	}
	if got := mcpbridge.RedactText(cfg.Servers[0], "token request failed: client s3cret refused"); strings.Contains(got, "s3cret") {
		t.Errorf("RedactText = %q, want the client secret hidden", got)
	}
}

func TestParseSettingsOAuthErrors(t *testing.T) {
	tests := []struct {
		name, server, want string
	}{
		{"oauth not an object", `{"httpUrl": "https://h/mcp", "oauth": true}`, "oauth: want object, got boolean"},
		{"scopes not strings", `{"httpUrl": "https://h/mcp", "oauth": {"scopes": [1]}}`, "oauth.scopes[0]: want string"},
		{"enabled not bool", `{"httpUrl": "https://h/mcp", "oauth": {"enabled": "yes"}}`, "oauth.enabled: want boolean"},
		{"oauth on stdio", `{"command": "x", "oauth": {}}`, "oauth: only allowed with url or httpUrl"},
		{"bad token url", `{"httpUrl": "https://h/mcp", "oauth": {"authorizationUrl": "https://a/auth", "tokenUrl": "file:///t"}}`, "oauth.tokenUrl: must be an absolute http or https URL"},
		{"half the endpoints", `{"httpUrl": "https://h/mcp", "oauth": {"authorizationUrl": "https://a/auth"}}`, "authorizationUrl and tokenUrl go together"},
		{"bad redirect", `{"httpUrl": "https://h/mcp", "oauth": {"redirectUri": "https://app.example.com/cb"}}`, "oauth.redirectUri: must be an http loopback URL with a port"},
		{"unknown provider", `{"httpUrl": "https://h/mcp", "authProviderType": "magic"}`, `authProviderType: must be "dynamic_discovery", "google_credentials" or "service_account_impersonation", got "magic"`},
		{"impersonation without target", `{"httpUrl": "https://h/mcp", "authProviderType": "service_account_impersonation", "targetAudience": "a"}`, "needs targetAudience and targetServiceAccount"},
		{"provider on stdio", `{"command": "x", "authProviderType": "google_credentials", "oauth": {"scopes": ["s"]}}`, "only allowed with url or httpUrl"},
		{"google without scopes", `{"httpUrl": "https://x.googleapis.com/mcp", "authProviderType": "google_credentials"}`, "google_credentials needs oauth.scopes"},
		{"unknown grant", `{"httpUrl": "https://h/mcp", "oauth": {"grantType": "password"}}`, `oauth.grantType: must be "authorization_code", "client_credentials", "enterprise" or "jwt_bearer", got "password"`},
		{"jwt bearer without assertion", `{"httpUrl": "https://h/mcp", "oauth": {"grantType": "jwt_bearer"}}`, "jwt_bearer needs assertion or assertionFile"},
		{"jwt bearer with both", `{"httpUrl": "https://h/mcp", "oauth": {"grantType": "jwt_bearer", "assertion": "a", "assertionFile": "/f"}}`, "jwt_bearer needs assertion or assertionFile (one of them)"},
		{"unknown dpop mode", `{"httpUrl": "https://h/mcp", "oauth": {"dpop": "sometimes"}}`, `oauth.dpop: must be "auto", "always" or "never", got "sometimes"`},
		{"dpop key not a key", `{"httpUrl": "https://h/mcp", "oauth": {"dpopKey": "nope"}}`, "oauth.dpopKey: private key: no PEM block"},
		{"client credentials without client", `{"httpUrl": "https://h/mcp", "oauth": {"grantType": "client_credentials"}}`, "oauth.clientId: required with grantType client_credentials"},
		{"enterprise without token", `{"httpUrl": "https://h/mcp", "oauth": {"grantType": "enterprise", "clientId": "c", "idpTokenUrl": "https://idp/token"}}`, "enterprise needs idpTokenUrl and idToken"},
		{"metadata URL not https", `{"httpUrl": "https://h/mcp", "oauth": {"clientMetadataUrl": "http://app.example/client.json"}}`, "oauth.clientMetadataUrl: must be an https URL with a path"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parse(t, `{"mcpServers": {"s": `+tt.server+`}}`)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("ParseSettings(%s) = %v, want an error containing %q", tt.server, err, tt.want)
			}
			if !errors.Is(err, mcpbridge.ErrInvalidConfig) {
				t.Errorf("errors.Is(%v, ErrInvalidConfig) = false", err)
			}
		})
	}
}

func TestParseSettingsOAuthUnknownKey(t *testing.T) {
	cfg, err := parse(t, `{"mcpServers": {"s": {"httpUrl": "https://h/mcp", "oauth": {"pkce": true}}}}`)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Warnings) != 1 || !strings.Contains(cfg.Warnings[0], `ignoring unknown key "oauth.pkce"`) {
		t.Errorf("warnings = %q, want one for oauth.pkce", cfg.Warnings)
	}
}

func TestParseSettingsOAuthOwnKeys(t *testing.T) {
	data := `{"mcpServers": {"svc": {"httpUrl": "https://mcp.example.com/mcp", "oauth": {
  "clientId": "svc-1", "grantType": "enterprise", "clientMetadataUrl": "https://app.example/client.json",
  "privateKey": "$KEY", "signingAlgorithm": "ES256",
  "idpTokenUrl": "https://idp.example/token", "idpClientId": "idp-1", "idpClientSecret": "$IDP_SECRET", "idToken": "$ID_TOKEN"
}}}}`
	cfg, err := mcpbridge.ParseSettings([]byte(data), "s.json", env(map[string]string{"KEY": "pem", "IDP_SECRET": "idp-secret-value", "ID_TOKEN": "eyJ.id.token"}))
	if err != nil {
		t.Fatalf("ParseSettings() = %v", err)
	}
	if len(cfg.Warnings) != 0 {
		t.Errorf("warnings = %q, want none: the keys are known", cfg.Warnings)
	}
	got := cfg.Servers[0].OAuth
	want := &mcpbridge.OAuthConfig{
		Enabled: true, ClientID: "svc-1", GrantType: "enterprise", ClientMetadataURL: "https://app.example/client.json",
		PrivateKey: "pem", SigningAlgorithm: "ES256",
		IDPTokenURL: "https://idp.example/token", IDPClientID: "idp-1", IDPClientSecret: "idp-secret-value", IDToken: "eyJ.id.token",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("OAuth (-want +got):\n%s", diff)
	}
}
