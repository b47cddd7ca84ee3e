package mcpconn

import (
	"net/http"
	"net/url"
	"strings"
)

// originHeaders keeps a server's configured headers (API keys, say) to the
// configured origin: a request to any other origin, after a cross-origin
// redirect or to an SSE message endpoint elsewhere, goes without them. Go's
// http.Client drops only Authorization, Cookie and WWW-Authenticate on such
// redirects; mcp-go sets the configured headers on every request.
type originHeaders struct {
	origin string   // scheme://host:port of the configured URL, lower-case
	names  []string // the configured header names
}

func newOriginHeaders(rawURL string, headers map[string]string) originHeaders {
	o := originHeaders{origin: originOf(rawURL)}
	for name := range headers {
		o.names = append(o.names, name)
	}
	return o
}

// originOf returns scheme://host:port of raw, lower-case, with the
// scheme's default port made explicit; "" when raw is not a URL.
func originOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return ""
	}
	return originOfURL(u)
}

func originOfURL(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		switch scheme {
		case "http":
			port = "80"
		case "https":
			port = "443"
		}
	}
	return scheme + "://" + strings.ToLower(u.Hostname()) + ":" + port
}

// strip returns req, or a copy without the configured headers when req goes
// to another origin.
func (o originHeaders) strip(req *http.Request) *http.Request {
	if len(o.names) == 0 || originOfURL(req.URL) == o.origin {
		return req
	}
	has := false
	for _, name := range o.names {
		if req.Header.Get(name) != "" {
			has = true
			break
		}
	}
	if !has {
		return req
	}
	req = req.Clone(req.Context())
	for _, name := range o.names {
		req.Header.Del(name)
	}
	return req
}
