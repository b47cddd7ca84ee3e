package mcpconn

import (
	"context"
	"fmt"
	"io"
	"net/http"
)

// Authorizer gives the requests of an SSE or streamable-HTTP connection
// their credentials (an OAuth login, Google credentials).
type Authorizer interface {
	// Authorization returns the Authorization header value for a request,
	// or "" to send it without one.
	Authorization(ctx context.Context) (string, error)
	// Unauthorized is told of a 401 to a request sent with the value sent,
	// and reports whether the request should be sent once more (the
	// credentials were renewed meanwhile).
	Unauthorized(ctx context.Context, resp *http.Response, sent string) bool
	// Accepted is told that a request sent with credentials was accepted.
	Accepted()
}

// authTransport adds an Authorizer's credentials to every request: as the
// Authorization header, or, when param is set, as that query parameter
// (the bearer token alone), for SSE servers that want it so. A 401 is shown
// to the Authorizer; when it renewed the credentials, the request is sent
// once more (a refused request reached no tool, so this is no replay).
type authTransport struct {
	auth  Authorizer
	param string
	base  http.RoundTripper
}

func (t *authTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	v, err := t.auth.Authorization(r.Context())
	if err != nil {
		if r.Body != nil {
			r.Body.Close()
		}
		return nil, fmt.Errorf("credentials: %w", err)
	}
	resp, err := t.base.RoundTrip(t.with(r, v, r.Body))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusUnauthorized {
		if v != "" && resp.StatusCode < 400 {
			t.auth.Accepted()
		}
		return resp, nil
	}
	if !t.auth.Unauthorized(r.Context(), resp, v) || (r.Body != nil && r.Body != http.NoBody && r.GetBody == nil) {
		return resp, nil
	}
	body := r.Body
	if r.GetBody != nil {
		if body, err = r.GetBody(); err != nil {
			return resp, nil
		}
	}
	v2, err := t.auth.Authorization(r.Context())
	if err != nil || v2 == "" {
		return resp, nil
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	resp, err = t.base.RoundTrip(t.with(r, v2, body))
	if err == nil && resp.StatusCode < 400 {
		t.auth.Accepted()
	}
	return resp, err
}

// with returns a copy of r carrying v (and body); r is not modified.
func (t *authTransport) with(r *http.Request, v string, body io.ReadCloser) *http.Request {
	c := r.Clone(r.Context())
	c.Body = body
	if v == "" {
		return c
	}
	if t.param != "" {
		tok := v
		if len(v) > 7 && (v[:7] == "Bearer " || v[:7] == "bearer ") {
			tok = v[7:]
		}
		q := c.URL.Query()
		q.Set(t.param, tok)
		c.URL.RawQuery = q.Encode()
		return c
	}
	c.Header.Set("Authorization", v)
	return c
}

// roundTripper returns the HTTP round tripper of the connection: c.web,
// behind the spec's Authorizer when there is one.
func (c *Conn) roundTripper() http.RoundTripper {
	if c.spec.Auth == nil {
		return c.web
	}
	return &authTransport{auth: c.spec.Auth, param: c.spec.TokenParam, base: c.web}
}
