package login

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// oauthClient is the client a login runs as.
type oauthClient struct {
	ID, Secret string
	// AuthMethod is how it authenticates at the token endpoint ("" lets
	// the handler choose from the server's metadata).
	AuthMethod string
	// Issuer is the authorization server it belongs to.
	Issuer string
}

// ErrNoClient is returned by a login that has no client to run as: none
// configured, no Client ID Metadata Document the server accepts, and no
// dynamic registration.
var ErrNoClient = errors.New("no OAuth client: the authorization server offers no dynamic registration; set oauth.clientId (or oauth.clientMetadataUrl where it accepts Client ID Metadata Documents)")

// clientFor chooses the client of a login at the server of d, in the order
// the MCP authorization specification gives: the one configured
// (pre-registration); the Client ID Metadata Document URL when the server
// accepts those; the client an earlier dynamic registration with the same
// server gave (kept in the store); a new dynamic registration (RFC 7591).
func (c *Client) clientFor(ctx context.Context, d *discovery, redirect string, scopes []string) (oauthClient, error) {
	if c.cfg.ClientID != "" {
		return oauthClient{ID: c.cfg.ClientID, Secret: c.cfg.ClientSecret, Issuer: d.AS.Issuer}, nil
	}
	if c.cfg.ClientMetadataURL != "" && d.AS.CIMD {
		return oauthClient{ID: c.cfg.ClientMetadataURL, AuthMethod: "none", Issuer: d.AS.Issuer}, nil
	}
	if t, err := c.store.load(ctx); err == nil && t != nil && t.ClientID != "" && t.Issuer == d.AS.Issuer && t.ClientID != c.cfg.ClientMetadataURL {
		return oauthClient{ID: t.ClientID, Secret: t.ClientSecret, AuthMethod: t.TokenEndpointAuthMethod, Issuer: t.Issuer}, nil
	}
	if d.AS.RegistrationEndpoint == "" {
		return oauthClient{}, ErrNoClient
	}
	cl, err := c.register(ctx, d, redirect, scopes)
	if err != nil {
		return oauthClient{}, fmt.Errorf("dynamic client registration: %w", err)
	}
	// Kept at once: a login that fails later reuses the client.
	if err := c.store.keepClient(ctx, cl); err != nil {
		return oauthClient{}, fmt.Errorf("token store: %w", err)
	}
	return cl, nil
}

// register registers a native public client (RFC 7591) for the loopback
// redirect.
func (c *Client) register(ctx context.Context, d *discovery, redirect string, scopes []string) (oauthClient, error) {
	reg := map[string]any{
		"client_name":                "mcpbridge",
		"redirect_uris":              []string{redirect},
		"grant_types":                []string{"authorization_code", "refresh_token"},
		"response_types":             []string{"code"},
		"token_endpoint_auth_method": "none",
		"application_type":           "native",
	}
	if len(scopes) > 0 {
		reg["scope"] = strings.Join(scopes, " ")
	}
	body, err := json.Marshal(reg)
	if err != nil {
		return oauthClient{}, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.AS.RegistrationEndpoint, bytes.NewReader(body))
	if err != nil {
		return oauthClient{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return oauthClient{}, err
	}
	defer resp.Body.Close()
	data, err := readBody(resp.Body)
	if err != nil {
		return oauthClient{}, fmt.Errorf("response: %w", err)
	}
	if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK {
		return oauthClient{}, oauthError(resp.StatusCode, data)
	}
	var out struct {
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
		AuthMethod   string `json:"token_endpoint_auth_method"`
	}
	if err := json.Unmarshal(data, &out); err != nil {
		return oauthClient{}, fmt.Errorf("response: %w", err)
	}
	if out.ClientID == "" {
		return oauthClient{}, errors.New("response has no client_id")
	}
	return oauthClient{ID: out.ClientID, Secret: out.ClientSecret, AuthMethod: out.AuthMethod, Issuer: d.AS.Issuer}, nil
}
