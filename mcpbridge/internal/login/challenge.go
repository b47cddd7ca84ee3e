package login

import (
	"net/http"
	"strings"

	"github.com/mcpgenai/bridge/mcpbridge/internal/egress"
)

// challengeParam returns the named parameter of the first Bearer or DPoP
// challenge in WWW-Authenticate that has it, "" when none does or the
// header is over egress's bounds.
func challengeParam(h http.Header, name string) string {
	cs, err := egress.ParseChallenges(h)
	if err != nil {
		return ""
	}
	name = strings.ToLower(name)
	for _, c := range cs {
		if !strings.EqualFold(c.Scheme, "Bearer") && !strings.EqualFold(c.Scheme, "DPoP") {
			continue
		}
		if v, ok := c.Params[name]; ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// challengeScopes returns the scope parameter of a Bearer challenge in
// WWW-Authenticate (the scopes the server asks for), split at spaces; nil
// for none, or for a header over egress's bounds.
func challengeScopes(h http.Header) []string {
	s, err := egress.Scopes(h)
	if err != nil || len(s) == 0 {
		return nil
	}
	return s
}
