package login

import (
	"net/http"
	"strings"
)

// challengeParam returns the named parameter of the first Bearer challenge
// in WWW-Authenticate that has it, "" when none does.
func challengeParam(h http.Header, name string) string {
	for _, v := range h.Values("WWW-Authenticate") {
		scheme, params, _ := strings.Cut(strings.TrimSpace(v), " ")
		if !strings.EqualFold(scheme, "Bearer") {
			continue
		}
		for params != "" {
			var key, val string
			params = strings.TrimLeft(params, " ,")
			key, params, _ = strings.Cut(params, "=")
			params = strings.TrimLeft(params, " ")
			if strings.HasPrefix(params, `"`) {
				end := strings.IndexByte(params[1:], '"')
				if end < 0 {
					break
				}
				val, params = params[1:1+end], params[2+end:]
			} else {
				val, params, _ = strings.Cut(params, ",")
			}
			if strings.EqualFold(strings.TrimSpace(key), name) {
				return strings.TrimSpace(val)
			}
		}
	}
	return ""
}

// challengeScopes returns the scope parameter of a Bearer challenge in
// WWW-Authenticate (the scopes the server asks for), split at spaces.
func challengeScopes(h http.Header) []string {
	v := challengeParam(h, "scope")
	if strings.TrimSpace(v) == "" {
		return nil
	}
	return strings.Fields(v)
}
