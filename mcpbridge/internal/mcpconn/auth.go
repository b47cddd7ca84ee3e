package mcpconn

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"

	"github.com/mcpgenai/bridge/mcpbridge/internal/egress"
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
	// Accepted is told that a request (of context ctx) sent with
	// credentials was accepted.
	Accepted(ctx context.Context)
}

// Forbidder is an [Authorizer] that is told of a 403 to a request sent
// with credentials (the value sent), such as a refusal for want of scope
// that asks for a step-up login. The request is not sent again.
type Forbidder interface {
	Forbidden(ctx context.Context, resp *http.Response, sent string)
}

// Prover is an [Authorizer] whose tokens may be bound to a key of the
// client's (DPoP, RFC 9449): every request that carries such a token
// carries a fresh proof of the key in its DPoP header too.
type Prover interface {
	// DPoPProof returns the DPoP header of a request (of context ctx)
	// of method to u that carries authorization; "" when that is no
	// bound token.
	DPoPProof(ctx context.Context, method string, u *url.URL, authorization string) (string, error)
	// DPoPNonce is told of every response to a request sent with
	// credentials, and reports whether it refused the request for want
	// of a nonce it now gave (use_dpop_nonce): the request is then
	// signed again and sent once more.
	DPoPNonce(ctx context.Context, u *url.URL, resp *http.Response) bool
}

// authTransport adds an Authorizer's credentials to every request: as the
// Authorization header, or, when param is set, as that query parameter
// (the bearer token alone), for SSE servers that want it so. A 401 is shown
// to the Authorizer; when it renewed the credentials, the request is sent
// once more (a refused request reached no tool, so this is no replay).
//
// A request to another origin than the configured one (after a redirect)
// gets no credentials, and its answer is not shown to the Authorizer: a
// 401 from elsewhere is no challenge of this server's. A 401 whose
// WWW-Authenticate exceeds egress's bounds fails the request with an error
// wrapping [egress.ErrChallengeTooLarge].
type authTransport struct {
	auth    Authorizer
	param   string
	confine egress.Confine
	base    http.RoundTripper
}

func (t *authTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if !t.confine.Allows(r.URL) {
		return t.base.RoundTrip(r)
	}
	v, err := t.auth.Authorization(r.Context())
	if err != nil {
		if r.Body != nil {
			r.Body.Close()
		}
		return nil, fmt.Errorf("credentials: %w", err)
	}
	resp, err := t.send(r, v, r.Body)
	if err != nil {
		return nil, err
	}
	if p, ok := t.auth.(Prover); ok && v != "" && p.DPoPNonce(r.Context(), r.URL, resp) {
		// The server wants its nonce in the proof: once more, signed
		// with it (the refused request reached no tool).
		if body, ok := t.again(r); ok {
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
			resp.Body.Close()
			if resp, err = t.send(r, v, body); err != nil {
				return nil, err
			}
		}
	}
	if resp.StatusCode == http.StatusForbidden && v != "" {
		// A challenge over egress's bounds is no step-up's: the 403
		// goes back as it is.
		if f, ok := t.auth.(Forbidder); ok && scopesOK(resp.Header) {
			f.Forbidden(r.Context(), resp, v)
		}
		return resp, nil
	}
	if resp.StatusCode != http.StatusUnauthorized {
		if v != "" && resp.StatusCode < 400 {
			t.auth.Accepted(r.Context())
		}
		return resp, nil
	}
	if _, err := egress.Scopes(resp.Header); err != nil {
		resp.Body.Close()
		if r.Body != nil {
			r.Body.Close()
		}
		return nil, fmt.Errorf("401 from %s: %w", egress.OriginOf(r.URL), err)
	}
	if !t.auth.Unauthorized(r.Context(), resp, v) || (r.Body != nil && r.Body != http.NoBody && r.GetBody == nil) {
		return resp, nil
	}
	body, ok := t.again(r)
	if !ok {
		return resp, nil
	}
	v2, err := t.auth.Authorization(r.Context())
	if err != nil || v2 == "" {
		return resp, nil
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	resp, err = t.send(r, v2, body)
	if err == nil && resp.StatusCode < 400 {
		t.auth.Accepted(r.Context())
	}
	return resp, err
}

// send sends r with the credentials v, body, and, for a DPoP-bound
// token, a fresh proof.
func (t *authTransport) send(r *http.Request, v string, body io.ReadCloser) (*http.Response, error) {
	c := t.with(r, v, body)
	if p, ok := t.auth.(Prover); ok && v != "" && t.param == "" {
		proof, err := p.DPoPProof(r.Context(), r.Method, r.URL, v)
		if err != nil {
			if body != nil {
				body.Close()
			}
			return nil, fmt.Errorf("credentials: %w", err)
		}
		if proof != "" {
			c.Header.Set("DPoP", proof)
		}
	}
	return t.base.RoundTrip(c)
}

// again returns the body to send r once more with, and whether r can be.
func (t *authTransport) again(r *http.Request) (io.ReadCloser, bool) {
	if r.Body == nil || r.Body == http.NoBody {
		return r.Body, true
	}
	if r.GetBody == nil {
		return nil, false
	}
	body, err := r.GetBody()
	return body, err == nil
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
	return &authTransport{auth: c.spec.Auth, param: c.spec.TokenParam, confine: c.spec.confine(), base: c.web}
}

// confine returns the rule that keeps the credentials of s to the origin
// of its URL: the configured headers and the token query parameter.
func (s *Spec) confine() egress.Confine {
	names := make([]string, 0, len(s.Headers))
	for name := range s.Headers {
		names = append(names, name)
	}
	slices.Sort(names)
	var params []string
	if s.TokenParam != "" {
		params = []string{s.TokenParam}
	}
	return egress.NewConfine(s.URL, names, params)
}

// scopesOK reports whether a challenge is within egress's bounds.
func scopesOK(h http.Header) bool {
	_, err := egress.Scopes(h)
	return err == nil
}
