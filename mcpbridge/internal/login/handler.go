package login

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/mark3labs/mcp-go/client/transport"
)

// metadataURL is the address at which the HTTP client of an mcp-go
// OAuthHandler finds the authorization-server metadata that discover
// found: the handler does the code exchange and refreshes, the discovery
// is ours.
const metadataURL = "http://discovered.mcpbridge.invalid/metadata"

// newHandler returns an OAuthHandler for client cl with the given redirect
// URI and scopes.
func (c *Client) newHandler(cl oauthClient, redirect string, scopes []string) *transport.OAuthHandler {
	oc := transport.OAuthConfig{
		ClientID:                cl.ID,
		ClientSecret:            cl.Secret,
		TokenEndpointAuthMethod: cl.AuthMethod,
		RedirectURI:             redirect,
		Scopes:                  scopes,
		TokenStore:              c.store,
		PKCEEnabled:             true,
		AuthServerMetadataURL:   metadataURL,
		HTTPClient:              &http.Client{Timeout: c.http.Timeout, Transport: handlerTransport{c: c, base: c.http.Transport}},
	}
	h := transport.NewOAuthHandler(oc)
	h.SetBaseURL(c.cfg.ServerURL)
	c.store.mu.Lock()
	c.store.client = cl
	c.store.mu.Unlock()
	return h
}

// discovered returns the discovery for the last challenge, made once.
func (c *Client) discovered(ctx context.Context) (*discovery, error) {
	c.sh.mu.Lock()
	d, challenge := c.sh.disc, c.sh.challenge
	c.sh.mu.Unlock()
	if d != nil {
		return d, nil
	}
	d, err := c.discover(ctx, challenge)
	if err != nil {
		return nil, err
	}
	c.sh.mu.Lock()
	defer c.sh.mu.Unlock()
	if c.sh.disc == nil {
		c.sh.disc = d
	}
	return c.sh.disc, nil
}

// extraParams are the parameters mcp-go's handler does not send and the
// authorization and token requests need: the resource (RFC 8707) of the
// discovery, and the audiences, space-separated, as Gemini CLI sends them.
func (c *Client) extraParams(d *discovery) url.Values {
	v := url.Values{}
	if len(c.cfg.Audiences) > 0 {
		v.Set("audience", strings.Join(c.cfg.Audiences, " "))
	}
	if d != nil && d.Resource != "" {
		v.Set("resource", d.Resource)
	}
	return v
}

// handlerTransport serves the discovered metadata at metadataURL, adds
// extraParams to token requests (form POSTs with a grant_type: the code
// exchange and refreshes) that lack them, and passes everything on.
type handlerTransport struct {
	c    *Client
	base http.RoundTripper
}

// maxTokenRequest bounds the token request bodies handlerTransport
// rewrites.
const maxTokenRequest = 64 << 10

func (t handlerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	base := t.base
	if base == nil {
		base = http.DefaultTransport
	}
	if r.URL.String() == metadataURL {
		d, err := t.c.discovered(r.Context())
		if err != nil {
			return nil, err
		}
		body, err := json.Marshal(d.AS)
		if err != nil {
			return nil, err
		}
		return &http.Response{
			StatusCode: http.StatusOK,
			Header:     http.Header{"Content-Type": {"application/json"}},
			Body:       io.NopCloser(bytes.NewReader(body)),
			Request:    r,
		}, nil
	}
	if r.Method != http.MethodPost || r.Body == nil || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
		return base.RoundTrip(r)
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxTokenRequest+1))
	r.Body.Close()
	if err != nil {
		return nil, err
	}
	form, err := url.ParseQuery(string(body))
	if err == nil && len(body) <= maxTokenRequest && form.Get("grant_type") != "" {
		d := t.c.sh.known()
		for k, v := range t.c.extraParams(d) {
			if !form.Has(k) {
				form[k] = v
			}
		}
		body = []byte(form.Encode())
	}
	c := r.Clone(r.Context())
	c.Body = io.NopCloser(bytes.NewReader(body))
	c.ContentLength = int64(len(body))
	c.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	return base.RoundTrip(c)
}
