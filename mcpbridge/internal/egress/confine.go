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
	headers []string // canonical header names besides alwaysCredential
	params  []string // query parameter names
}

// NewConfine returns the Confine of the server at rawURL whose configured
// headers are named by headers (their values are not kept) and whose
// token, if any, travels in the query parameters params. Empty names are
// ignored; headers and params are not retained.
func NewConfine(rawURL string, headers, params []string) Confine {
	c := Confine{origin: Origin(rawURL)}
	for _, h := range headers {
		if h = http.CanonicalHeaderKey(strings.TrimSpace(h)); h != "" && !slices.Contains(c.headers, h) && !slices.Contains(alwaysCredential, h) {
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
		if c.credentialHeader(k) {
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
		if c.credentialHeader(k) {
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

// credentialHeader reports whether the header name carries credentials.
func (c Confine) credentialHeader(name string) bool {
	name = http.CanonicalHeaderKey(name)
	return slices.Contains(alwaysCredential, name) || slices.Contains(c.headers, name)
}
