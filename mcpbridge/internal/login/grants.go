package login

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/mcpgenai/bridge/mcpbridge/auth"
)

// Grant types a [Grant] may name.
const (
	// GrantClientCredentials: the client-credentials grant (OAuth 2.1
	// section 4.2), for agents that run as services with no person.
	GrantClientCredentials = "client_credentials"
	// GrantEnterprise: enterprise-managed authorization (cross-app
	// access): the user's ID token from the enterprise identity provider
	// is exchanged there for an ID-JAG (RFC 8693 token exchange), which
	// the authorization server takes as a JWT bearer grant (RFC 7523).
	GrantEnterprise = "enterprise"
	// GrantJWTBearer: workload identity federation. An assertion the
	// host already holds (a platform's signed token for this workload) is
	// presented as a JWT bearer grant (RFC 7523 section 2.1), with no
	// person and no client secret.
	GrantJWTBearer = "jwt_bearer"
)

// Grant gets tokens without a person at a browser. The client is
// Config.ClientID, authenticated with Config.ClientSecret
// (client_secret_basic, or client_secret_post where the server offers
// only that) or, with PrivateKey, a signed JWT (private_key_jwt).
type Grant struct {
	Type string // GrantClientCredentials or GrantEnterprise

	// PrivateKey is a PEM private key (EC P-256 or RSA) that signs the
	// client's assertions; SigningAlgorithm ("ES256", "RS256"), when
	// set, must be its algorithm.
	PrivateKey, SigningAlgorithm string

	// IDPTokenURL is the token endpoint of the enterprise identity
	// provider, where IDToken (the user's ID token) is exchanged as
	// client IDPClientID (with IDPClientSecret, if any).
	IDPTokenURL, IDPClientID, IDPClientSecret string
	IDToken                                   string

	// Assertion is the workload's signed token for GrantJWTBearer; when
	// AssertionFile is set instead, the token is read from that file at
	// every grant (platforms rotate it there).
	Assertion, AssertionFile string
}

// Grant-related token types and grant types.
const (
	grantTokenExchange = "urn:ietf:params:oauth:grant-type:token-exchange"
	grantJWTBearer     = "urn:ietf:params:oauth:grant-type:jwt-bearer"
	tokenTypeIDToken   = "urn:ietf:params:oauth:token-type:id_token"
	tokenTypeIDJAG     = "urn:ietf:params:oauth:token-type:id-jag"
	assertionTypeJWT   = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
)

type tokenResponse struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	RefreshToken string `json:"refresh_token"`
	ExpiresIn    int64  `json:"expires_in"`
	Scope        string `json:"scope"`
}

// grant gets a token with the configured grant and stores it.
func (c *Client) grant(ctx context.Context) error {
	g := c.cfg.Grant
	d, err := c.discovered(ctx)
	if err != nil {
		return err
	}
	if c.cfg.ClientID == "" && g.Type != GrantJWTBearer {
		return fmt.Errorf("%s grant: oauth.clientId is required", g.Type)
	}
	scopes := c.scopes(ctx, d)
	form := url.Values{}
	if len(scopes) > 0 {
		form.Set("scope", strings.Join(scopes, " "))
	}
	if d.Resource != "" {
		form.Set("resource", d.Resource)
	}
	switch g.Type {
	case GrantClientCredentials:
		form.Set("grant_type", "client_credentials")
	case GrantEnterprise:
		jag, err := c.idJAG(ctx, d, scopes)
		if err != nil {
			return err
		}
		form.Set("grant_type", grantJWTBearer)
		form.Set("assertion", jag)
	case GrantJWTBearer:
		a, err := g.assertion()
		if err != nil {
			return err
		}
		c.cfg.Learn.Learn(a)
		form.Set("grant_type", grantJWTBearer)
		form.Set("assertion", a)
	default:
		return fmt.Errorf("unknown grant %q", g.Type)
	}
	user, pass, err := c.clientAuth(d, form)
	if err != nil {
		return err
	}
	if err := c.bindKey(d); err != nil {
		return err
	}
	tr, err := c.tokenRequest(ctx, d.AS.TokenEndpoint, form, user, pass)
	if err != nil {
		return fmt.Errorf("%s grant: %w", g.Type, err)
	}
	t := &auth.Token{
		AccessToken:  tr.AccessToken,
		TokenType:    tr.TokenType,
		RefreshToken: tr.RefreshToken,
		ClientID:     c.cfg.ClientID,
		Issuer:       d.AS.Issuer,
		Scopes:       scopes,
	}
	if k := c.currentKey(); k != nil {
		t.DPoPKey = k.pem
	}
	if tr.ExpiresIn > 0 {
		t.Expiry = time.Now().Add(time.Duration(tr.ExpiresIn) * time.Second)
	}
	if err := c.store.save(ctx, t); err != nil {
		return fmt.Errorf("token store: %w", err)
	}
	c.store.refuse("")
	return nil
}

// maxAssertion bounds the workload token read from Grant.AssertionFile.
const maxAssertion = 64 << 10

// assertion returns the workload's token for a JWT bearer grant.
func (g *Grant) assertion() (string, error) {
	a := g.Assertion
	if g.AssertionFile != "" {
		f, err := os.Open(g.AssertionFile)
		if err != nil {
			return "", fmt.Errorf("jwt_bearer grant: %w", err)
		}
		defer f.Close()
		b, err := io.ReadAll(io.LimitReader(f, maxAssertion+1))
		if err != nil {
			return "", fmt.Errorf("jwt_bearer grant: %w", err)
		}
		if len(b) > maxAssertion {
			return "", fmt.Errorf("jwt_bearer grant: %s is larger than %d bytes", g.AssertionFile, maxAssertion)
		}
		a = string(b)
	}
	if a = strings.TrimSpace(a); a == "" {
		return "", errors.New("jwt_bearer grant: no assertion (oauth.assertion or oauth.assertionFile)")
	}
	return a, nil
}

// idJAG exchanges the user's ID token at the identity provider for an
// identity assertion JWT authorization grant for the authorization server
// of d.
func (c *Client) idJAG(ctx context.Context, d *discovery, scopes []string) (string, error) {
	g := c.cfg.Grant
	if g.IDPTokenURL == "" || g.IDToken == "" {
		return "", errors.New("enterprise grant: the identity provider's token URL and the ID token are required")
	}
	form := url.Values{
		"grant_type":           {grantTokenExchange},
		"subject_token":        {g.IDToken},
		"subject_token_type":   {tokenTypeIDToken},
		"requested_token_type": {tokenTypeIDJAG},
		"audience":             {d.AS.Issuer},
		"resource":             {d.Resource},
	}
	if len(scopes) > 0 {
		form.Set("scope", strings.Join(scopes, " "))
	}
	user, pass := "", ""
	if g.IDPClientSecret != "" {
		user, pass = g.IDPClientID, g.IDPClientSecret
	} else if g.IDPClientID != "" {
		form.Set("client_id", g.IDPClientID)
	}
	tr, err := c.tokenRequest(ctx, g.IDPTokenURL, form, user, pass)
	if err != nil {
		return "", fmt.Errorf("enterprise grant: token exchange at the identity provider: %w", err)
	}
	return tr.AccessToken, nil
}

// clientAuth adds the client's authentication to form, or returns the
// user and password of HTTP Basic authentication.
func (c *Client) clientAuth(d *discovery, form url.Values) (user, pass string, err error) {
	g := c.cfg.Grant
	if g.PrivateKey != "" {
		key, alg, err := parsePrivateKey(g.PrivateKey, g.SigningAlgorithm)
		if err != nil {
			return "", "", err
		}
		if algs := d.AS.SigningAlgs; len(algs) > 0 && !slices.Contains(algs, alg) {
			return "", "", fmt.Errorf("the authorization server does not accept %s client assertions (it lists %s)", alg, strings.Join(algs, ", "))
		}
		jwt, err := clientAssertion(key, alg, c.cfg.ClientID, d.AS.Issuer, time.Now())
		if err != nil {
			return "", "", err
		}
		form.Set("client_id", c.cfg.ClientID)
		form.Set("client_assertion_type", assertionTypeJWT)
		form.Set("client_assertion", jwt)
		return "", "", nil
	}
	if c.cfg.ClientSecret == "" {
		// A public client (the workload of a JWT bearer grant): it
		// names itself, with no secret (token_endpoint_auth_method
		// none).
		if c.cfg.ClientID != "" {
			form.Set("client_id", c.cfg.ClientID)
		}
		return "", "", nil
	}
	m := d.AS.AuthMethods
	if slices.Contains(m, "client_secret_post") && !slices.Contains(m, "client_secret_basic") {
		form.Set("client_id", c.cfg.ClientID)
		form.Set("client_secret", c.cfg.ClientSecret)
		return "", "", nil
	}
	return c.cfg.ClientID, c.cfg.ClientSecret, nil
}

// tokenRequest posts form to a token endpoint, with HTTP Basic client
// authentication when user is set (its parts form-encoded, RFC 6749
// section 2.3.1).
func (c *Client) tokenRequest(ctx context.Context, endpoint string, form url.Values, user, pass string) (*tokenResponse, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if user != "" {
		req.SetBasicAuth(url.QueryEscape(user), url.QueryEscape(pass))
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := readBody(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("token response: %w", err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, oauthError(resp.StatusCode, body)
	}
	var tr tokenResponse
	if err := json.Unmarshal(body, &tr); err != nil {
		return nil, fmt.Errorf("token response: %w", err)
	}
	if tr.AccessToken == "" {
		return nil, oauthError(resp.StatusCode, body)
	}
	return &tr, nil
}

// grantLogin runs the grant as Login does, keeping the count of refusals.
func (c *Client) grantLogin(ctx context.Context) error {
	c.mu.Lock()
	n := c.refusals
	c.mu.Unlock()
	err := c.Login(ctx)
	c.mu.Lock()
	c.refusals = n
	c.mu.Unlock()
	return err
}

// grantAuthorization returns the Authorization value of a grant's token,
// getting a new one when there is none or it expired or was refused.
func (c *Client) grantAuthorization(ctx context.Context) (string, error) {
	t, err := c.store.load(ctx)
	if err != nil {
		return "", fmt.Errorf("token store: %w", err)
	}
	if !c.store.usable(t) {
		c.mu.Lock()
		refused := c.refusals >= 2
		c.mu.Unlock()
		if refused {
			return "", nil // until Login tries again
		}
		if err := c.grantLogin(ctx); err != nil {
			return "", err
		}
		if t, err = c.store.load(ctx); err != nil || t == nil {
			return "", err
		}
	}
	c.keyOfToken(t.DPoPKey) // a token stored by an earlier run
	return schemeOf(t.TokenType) + " " + t.AccessToken, nil
}

// grantUnauthorized handles a 401 to a grant's token: the token counts as
// refused, and the request goes once more if a new grant gives another.
// A server that refuses the new token too ends in [auth.StateFailed]
// until it accepts one: grants are not repeated for every request.
func (c *Client) grantUnauthorized(ctx context.Context, sent string) bool {
	tok, ok := tokenOf(sent)
	if !ok {
		return true // sent without a token: the grant gets one
	}
	t, _ := c.store.load(ctx)
	if t != nil && t.AccessToken != tok {
		return true // renewed meanwhile
	}
	c.store.refuse(tok)
	c.mu.Lock()
	c.refusals++
	again := c.refusals < 2
	if !again {
		c.state, c.lastErr = auth.StateFailed, fmt.Errorf("mcp server %q refuses the tokens the %s grant gives", c.cfg.Server, c.cfg.Grant.Type)
	}
	c.mu.Unlock()
	if !again {
		return false
	}
	v, err := c.grantAuthorization(ctx)
	return err == nil && v != sent
}
