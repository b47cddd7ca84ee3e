package login

import (
	"net/http"
	"strings"
	"testing"
)

// FuzzChallengeParam: reading a WWW-Authenticate challenge never panics,
// and what it returns is a piece of the header, trimmed, never spanning
// a quote; the scopes are its space-separated fields.
func FuzzChallengeParam(f *testing.F) {
	for _, s := range []string{
		`Bearer resource_metadata="https://h/.well-known/x", scope="openid offline_access"`,
		`Bearer error="insufficient_scope", scope="a b", error_description="x, y"`,
		`Bearer scope=read, error="invalid_token"`,
		`Basic realm="x"`,
		`Bearer scope="a b`,
		`Bearer ,,,=,"",scope=`,
		`bearer SCOPE = "x"`,
	} {
		f.Add(s, "scope")
	}
	f.Fuzz(func(t *testing.T, header, name string) {
		h := http.Header{}
		h.Add("WWW-Authenticate", header)
		v := challengeParam(h, name)
		if v != "" && !strings.Contains(header, v) {
			t.Errorf("challengeParam(%q, %q) = %q, not part of the header", header, name, v)
		}
		if strings.Contains(v, `"`) && strings.HasPrefix(strings.TrimSpace(v), `"`) {
			t.Errorf("challengeParam(%q, %q) = %q, a quoted value with its quote", header, name, v)
		}
		for _, s := range challengeScopes(h) {
			if s == "" || strings.ContainsAny(s, " \t\n") {
				t.Errorf("challengeScopes(%q) has scope %q", header, s)
			}
		}
	})
}
