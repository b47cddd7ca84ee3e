// Package egress decides where the requests of a remote MCP server and of
// its login may go, what they may carry there, and how much of an answer
// is read.
//
//   - [Confine] keeps credentials (the Authorization header, configured
//     headers, token query parameters) to one origin: a request to any
//     other origin (after a redirect, or to a URL a server handed out)
//     leaves without them.
//   - [Bound] caps the bodies of the login's responses at [MaxBody], and
//     turns an error body into a short excerpt.
//   - [Transport] dials no link-local or cloud-metadata address unless the
//     configured server is on one ([Forbidden]), checked on the address
//     being connected to, after name resolution.
//   - [Scopes] reads the scope of a Bearer challenge and refuses one over
//     [MaxChallenge] bytes or [MaxScopes] scopes.
//
// A login client combines them ([LoginClient]):
//
//	hc := egress.LoginClient(nil, "https://mcp.example.com/mcp")
//	resp, err := hc.Get(metadataURL) // bounded, never to 169.254.169.254
package egress

import (
	"net/url"
	"strings"
)

// Origin returns the origin of the absolute URL raw, scheme://host:port,
// lower-case and with the scheme's default port made explicit; "" when raw
// is not an absolute URL.
func Origin(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return OriginOf(u)
}

// OriginOf returns the origin of u as [Origin] does; "" when u has no host.
func OriginOf(u *url.URL) string {
	if u == nil || u.Host == "" {
		return ""
	}
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		switch scheme {
		case "http", "ws":
			port = "80"
		case "https", "wss":
			port = "443"
		}
	}
	host := strings.ToLower(u.Hostname())
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	return scheme + "://" + host + ":" + port
}
