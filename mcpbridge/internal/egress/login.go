package egress

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"
)

// ErrCrossOriginRedirect is the error of a login request with a body (a
// token or registration request) redirected to another origin.
var ErrCrossOriginRedirect = errors.New("redirect to another origin refused")

// LoginTimeout bounds each request of a login client whose base has no
// timeout.
const LoginTimeout = 30 * time.Second

// LoginClient returns the HTTP client of the login of the server at
// serverURL, built on base (nil means a client with [LoginTimeout]; its
// Jar, Timeout and CheckRedirect are kept). Its responses are bounded
// ([Bound]); when base has no Transport of its own, it connects to no
// forbidden address ([Transport]); and redirects to another origin follow
// [Redirects]. These rules live in the client's Transport, so a client
// rebuilt around that Transport keeps them. base is not modified.
func LoginClient(base *http.Client, serverURL string) *http.Client {
	c := &http.Client{Timeout: LoginTimeout}
	if base != nil {
		*c = *base
	}
	rt := c.Transport
	if rt == nil {
		rt = Transport(serverURL)
	}
	c.Transport = Bound(Redirects(rt))
	return c
}

// Redirects returns base (http.DefaultTransport when nil) with the
// redirect rule of a login: a request that an http.Client makes to follow
// a redirect to another origin than its first request's is refused with
// [ErrCrossOriginRedirect] when it has a body (a token or registration
// request, kept by a 307 or 308: its body carries the client's secret or
// the authorization code), and otherwise sent without its Authorization
// and Cookie headers.
func Redirects(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return redirects{base}
}

type redirects struct{ base http.RoundTripper }

func (t redirects) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Response == nil {
		return t.base.RoundTrip(req)
	}
	// The client copies the first request's headers to every hop, so each
	// hop is judged against the first request's origin.
	first := req
	for first.Response != nil && first.Response.Request != nil {
		first = first.Response.Request
	}
	if OriginOf(req.URL) == OriginOf(first.URL) {
		return t.base.RoundTrip(req)
	}
	if req.Method != http.MethodGet && req.Method != http.MethodHead {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, fmt.Errorf("%s %s to %s: %w", first.Method, OriginOf(first.URL), OriginOf(req.URL), ErrCrossOriginRedirect)
	}
	if req.Header.Get("Authorization") != "" || req.Header.Get("Cookie") != "" {
		req = req.Clone(req.Context())
		req.Header.Del("Authorization")
		req.Header.Del("Cookie")
	}
	return t.base.RoundTrip(req)
}

// MaxAuthorizationURL bounds the authorization URL a login hands to the
// host, in bytes; real ones are well under 2 KiB.
const MaxAuthorizationURL = 8 << 10

// ErrAuthorizationURLTooLong is the error of an authorization URL over
// [MaxAuthorizationURL] bytes (a server asking for thousands of scopes).
var ErrAuthorizationURLTooLong = errors.New("authorization URL too long")

// CheckAuthorizationURL returns an error wrapping
// [ErrAuthorizationURLTooLong] when authURL is over [MaxAuthorizationURL]
// bytes, one wrapping [ErrForbiddenAddress] when its host is one
// [ForbiddenHost] refuses and the server at serverURL is not on such a
// host itself, and nil otherwise.
func CheckAuthorizationURL(authURL, serverURL string) error {
	if len(authURL) > MaxAuthorizationURL {
		return fmt.Errorf("%w: %d bytes, over %d KiB (too many scopes?)", ErrAuthorizationURLTooLong, len(authURL), MaxAuthorizationURL>>10)
	}
	u, err := url.Parse(authURL)
	if err != nil {
		return fmt.Errorf("authorization URL: %w", err)
	}
	if s, err := url.Parse(serverURL); ForbiddenHost(u.Hostname()) && (err != nil || !ForbiddenHost(s.Hostname())) {
		return fmt.Errorf("authorization endpoint %s: %w", OriginOf(u), ErrForbiddenAddress)
	}
	return nil
}

// closeIdle closes the idle connections of rt, when it keeps any: the
// wrappers of this package pass CloseIdleConnections on to what they
// wrap, so that an http.Client built on them can let its connections go.
func closeIdle(rt http.RoundTripper) {
	if c, ok := rt.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// CloseIdleConnections closes the idle connections of the transport t wraps.
func (t redirects) CloseIdleConnections() { closeIdle(t.base) }

// CloseIdleConnections closes the idle connections of the transport h wraps.
func (h hostCheck) CloseIdleConnections() { closeIdle(h.base) }

// CloseIdleConnections closes the idle connections of the transport b wraps.
func (b bound) CloseIdleConnections() { closeIdle(b.base) }
