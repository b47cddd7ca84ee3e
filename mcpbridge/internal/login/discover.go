package login

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// ErrNoPKCE is returned by a login to an authorization server whose
// metadata does not list the PKCE method S256: the MCP authorization
// specification forbids going on without it.
var ErrNoPKCE = errors.New("authorization server does not advertise PKCE S256 (code_challenge_methods_supported)")

// asMetadata is what the login uses of an authorization server's metadata
// (RFC 8414, OpenID Connect Discovery).
type asMetadata struct {
	Issuer                string   `json:"issuer"`
	AuthorizationEndpoint string   `json:"authorization_endpoint"`
	TokenEndpoint         string   `json:"token_endpoint"`
	RegistrationEndpoint  string   `json:"registration_endpoint,omitempty"`
	CodeChallengeMethods  []string `json:"code_challenge_methods_supported,omitempty"`
	ScopesSupported       []string `json:"scopes_supported,omitempty"`
	AuthMethods           []string `json:"token_endpoint_auth_methods_supported,omitempty"`
	GrantTypes            []string `json:"grant_types_supported,omitempty"`
	SigningAlgs           []string `json:"token_endpoint_auth_signing_alg_values_supported,omitempty"`
	// CIMD: the server accepts a URL as client_id, the client's metadata
	// document (draft-ietf-oauth-client-id-metadata-document).
	CIMD bool `json:"client_id_metadata_document_supported,omitempty"`
	// ISSParameter: the server puts iss in the authorization response
	// (RFC 9207), which must then match Issuer.
	ISSParameter bool `json:"authorization_response_iss_parameter_supported,omitempty"`
	// DPoPAlgs are the algorithms of the DPoP proofs the server takes
	// (RFC 9449 5.1); none when it does not do DPoP.
	DPoPAlgs []string `json:"dpop_signing_alg_values_supported,omitempty"`
}

// discovery is where a login goes and what it asks for.
type discovery struct {
	AS asMetadata
	// Resource is the RFC 8707 resource indicator: the protected resource
	// metadata's resource, or the server's URL.
	Resource string
	// ResourceScopes is the protected resource's scopes_supported.
	ResourceScopes []string
	// Found says whether metadata was found (false: the 2025-03-26
	// default endpoints at the server's origin).
	Found bool
	// Named says the authorization server is named by protected resource
	// metadata or the configuration, not guessed from the server's origin.
	Named bool
	// DPoPRequired: the protected resource takes only DPoP-bound tokens
	// (dpop_bound_access_tokens_required, RFC 9449 5.2).
	DPoPRequired bool
}

// discover finds the authorization server of the server, in the order of
// the MCP authorization specification: the protected resource metadata
// (RFC 9728) at the challenge's resource_metadata, else at the
// path-inserted well-known URL, else at the root one; its first
// authorization server's metadata at the RFC 8414 and OpenID Connect
// well-known URLs. A server without protected resource metadata is one of
// the 2025-03-26 revision: its origin is the authorization server, with
// metadata at the root or, failing that, the default endpoints /authorize,
// /token and /register.
func (c *Client) discover(ctx context.Context, challenge http.Header) (*discovery, error) {
	if c.cfg.AuthorizationURL != "" && c.cfg.TokenURL != "" {
		u, _ := url.Parse(c.cfg.AuthorizationURL)
		d := &discovery{Resource: c.cfg.ServerURL, Found: true, Named: true, AS: asMetadata{
			AuthorizationEndpoint: c.cfg.AuthorizationURL,
			TokenEndpoint:         c.cfg.TokenURL,
			RegistrationEndpoint:  c.cfg.RegistrationURL,
			CodeChallengeMethods:  []string{"S256"}, // the configuration vouches for it
		}}
		if u != nil {
			d.AS.Issuer = u.Scheme + "://" + u.Host
		}
		return d, nil
	}
	server, err := url.Parse(c.cfg.ServerURL)
	if err != nil || server.Host == "" {
		return nil, fmt.Errorf("server URL %q: not an absolute URL", c.cfg.ServerURL)
	}
	var prm struct {
		Resource             string   `json:"resource"`
		AuthorizationServers []string `json:"authorization_servers"`
		ScopesSupported      []string `json:"scopes_supported"`
		DPoPRequired         bool     `json:"dpop_bound_access_tokens_required"`
	}
	var candidates []string
	if u := challengeParam(challenge, "resource_metadata"); u != "" {
		candidates = append(candidates, u)
	}
	candidates = append(candidates, wellKnown(server, "oauth-protected-resource"), origin(server)+"/.well-known/oauth-protected-resource")
	var prmURL string
	for _, u := range slices.Compact(candidates) {
		ok, err := c.getJSON(ctx, u, &prm)
		if err != nil {
			return nil, err
		}
		if ok {
			prmURL = u
			break
		}
	}
	d := &discovery{Resource: c.cfg.ServerURL}
	asURL := origin(server)
	if prmURL != "" {
		if prm.Resource != "" {
			if !resourceMatches(prm.Resource, server) {
				return nil, fmt.Errorf("protected resource metadata at %s names resource %q, not this server", prmURL, prm.Resource)
			}
			d.Resource = prm.Resource
		}
		d.ResourceScopes = prm.ScopesSupported
		d.DPoPRequired = prm.DPoPRequired
		if len(prm.AuthorizationServers) == 0 {
			return nil, fmt.Errorf("protected resource metadata at %s names no authorization server", prmURL)
		}
		asURL = prm.AuthorizationServers[0]
		d.Named = true
	}
	issuer, err := url.Parse(asURL)
	if err != nil || (issuer.Scheme != "https" && issuer.Scheme != "http") || issuer.Host == "" {
		return nil, fmt.Errorf("authorization server %q: not an absolute http(s) URL", asURL)
	}
	for _, u := range asMetadataURLs(issuer) {
		var m asMetadata
		ok, err := c.getJSON(ctx, u, &m)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		// A 2025-03-26 server's metadata (no protected resource
		// metadata) names whatever issuer it has; found through the
		// protected resource, the issuer must be the one named there.
		if prmURL != "" && strings.TrimSuffix(m.Issuer, "/") != strings.TrimSuffix(asURL, "/") {
			return nil, fmt.Errorf("authorization server metadata at %s names issuer %q, not %q", u, m.Issuer, asURL)
		}
		if err := m.check(); err != nil {
			return nil, fmt.Errorf("authorization server metadata at %s: %w", u, err)
		}
		d.AS, d.Found = m, true
		return d, nil
	}
	if prmURL != "" {
		return nil, fmt.Errorf("no authorization server metadata for %s", asURL)
	}
	// 2025-03-26: the default endpoints at the server's origin.
	base := origin(server)
	d.AS = asMetadata{
		Issuer:                base,
		AuthorizationEndpoint: base + "/authorize",
		TokenEndpoint:         base + "/token",
		RegistrationEndpoint:  base + "/register",
	}
	return d, nil
}

// check refuses metadata whose endpoints are not http(s) URLs.
func (m *asMetadata) check() error {
	for _, e := range []struct{ name, v string }{
		{"authorization_endpoint", m.AuthorizationEndpoint},
		{"token_endpoint", m.TokenEndpoint},
		{"registration_endpoint", m.RegistrationEndpoint},
	} {
		if e.v == "" && e.name == "registration_endpoint" {
			continue
		}
		u, err := url.Parse(e.v)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return fmt.Errorf("%s %q: not an absolute http(s) URL", e.name, e.v)
		}
	}
	return nil
}

// getJSON fetches u into v. It reports false for a 4xx answer (no such
// document), an error for anything else that is not a JSON 200.
func (c *Client) getJSON(ctx context.Context, u string, v any) (bool, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return false, fmt.Errorf("metadata URL %q: %w", u, err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	resp, err := c.http.Do(req)
	if err != nil {
		return false, fmt.Errorf("fetching metadata: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 && resp.StatusCode < 500 {
		return false, nil
	}
	if resp.StatusCode != http.StatusOK {
		return false, fmt.Errorf("metadata at %s: %s", u, resp.Status)
	}
	body, err := readBody(resp.Body)
	if err != nil {
		return false, fmt.Errorf("metadata at %s: %w", u, err)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return false, fmt.Errorf("metadata at %s: %w", u, err)
	}
	return true, nil
}

// asMetadataURLs are the well-known URLs of an issuer's metadata, in the
// order the MCP specification gives: for an issuer with a path, RFC 8414's
// path insertion, OpenID Connect's path insertion, then OpenID Connect's
// path appending; for one without, RFC 8414's then OpenID Connect's.
func asMetadataURLs(issuer *url.URL) []string {
	path := strings.TrimSuffix(issuer.EscapedPath(), "/")
	o := origin(issuer)
	if path == "" {
		return []string{o + "/.well-known/oauth-authorization-server", o + "/.well-known/openid-configuration"}
	}
	return []string{
		o + "/.well-known/oauth-authorization-server" + path,
		o + "/.well-known/openid-configuration" + path,
		o + path + "/.well-known/openid-configuration",
	}
}

// wellKnown is the path-inserted well-known URL of name for u (RFC 9728).
func wellKnown(u *url.URL, name string) string {
	return origin(u) + "/.well-known/" + name + strings.TrimSuffix(u.EscapedPath(), "/")
}

func origin(u *url.URL) string { return u.Scheme + "://" + u.Host }

// resourceMatches reports whether a protected resource metadata's resource
// names the server at u: same scheme and host, and a path equal to u's or
// a prefix of it at a segment boundary.
func resourceMatches(resource string, u *url.URL) bool {
	r, err := url.Parse(resource)
	if err != nil || r.Fragment != "" || !strings.EqualFold(r.Scheme, u.Scheme) || !strings.EqualFold(r.Host, u.Host) {
		return false
	}
	rp, up := strings.TrimSuffix(r.EscapedPath(), "/"), strings.TrimSuffix(u.EscapedPath(), "/")
	return rp == up || strings.HasPrefix(up, rp+"/")
}
