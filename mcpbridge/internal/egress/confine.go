package egress

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// alwaysCredential are the request headers that carry credentials whatever
// the configuration says.
var alwaysCredential = []string{"Authorization", "Cookie"}

// Confine keeps the credentials of one server to the origin of its
// configured URL. Its zero value confines nothing to no origin: every
// request loses Authorization and Cookie.
//
// A Confine is immutable once made and safe for concurrent use.
type Confine struct {
	origin  string
	headers []string // canonical header names, Authorization and Cookie among them
	params  []string // query parameter names
}

// NewConfine returns the Confine of the server at rawURL whose configured
// headers are named by headers (their values are not kept) and whose
// token, if any, travels in the query parameters params. Empty names are
// ignored; headers and params are not retained.
func NewConfine(rawURL string, headers, params []string) Confine {
	c := Confine{origin: Origin(rawURL)}
	for _, h := range append(slices.Clone(alwaysCredential), headers...) {
		if h = http.CanonicalHeaderKey(strings.TrimSpace(h)); h != "" && !slices.Contains(c.headers, h) {
			c.headers = append(c.headers, h)
		}
	}
	for _, p := range params {
		if p != "" && !slices.Contains(c.params, p) {
			c.params = append(c.params, p)
		}
	}
	return c
}

// Allows reports whether credentials may go to u: u has the configured
// origin.
func (c Confine) Allows(u *url.URL) bool {
	return c.origin != "" && OriginOf(u) == c.origin
}

// Request returns req when it goes to the configured origin or carries no
// credential, and otherwise a copy of req without the credential headers
// and query parameters. req itself is never modified.
func (c Confine) Request(req *http.Request) *http.Request {
	if c.Allows(req.URL) || !c.carries(req) {
		return req
	}
	out := req.Clone(req.Context())
	for k := range out.Header {
		if slices.Contains(c.headers, http.CanonicalHeaderKey(k)) {
			delete(out.Header, k)
		}
	}
	if len(c.params) > 0 && out.URL.RawQuery != "" {
		q := out.URL.Query()
		for _, p := range c.params {
			q.Del(p)
		}
		out.URL.RawQuery = q.Encode()
	}
	return out
}

// carries reports whether req has any of the credential headers or query
// parameters.
func (c Confine) carries(req *http.Request) bool {
	for k := range req.Header {
		if slices.Contains(c.headers, http.CanonicalHeaderKey(k)) {
			return true
		}
	}
	if len(c.params) == 0 || req.URL.RawQuery == "" {
		return false
	}
	q := req.URL.Query()
	for _, p := range c.params {
		if q.Has(p) {
			return true
		}
	}
	return false
}

// RoundTripper returns base behind c: every request passes through
// [Confine.Request] before base sees it.
func (c Confine) RoundTripper(base http.RoundTripper) http.RoundTripper {
	return confined{c: c, base: base}
}

type confined struct {
	c    Confine
	base http.RoundTripper
}

func (t confined) RoundTrip(req *http.Request) (*http.Response, error) {
	return t.base.RoundTrip(t.c.Request(req))
}
