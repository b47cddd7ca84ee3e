package testauth

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// stepUp is what tools/call needs beyond a valid token.
type stepUp struct {
	scope, claim string
}

// StepUp makes tools/call need scope: a token whose userinfo (the
// authorization server's, for the token) lacks claim is refused with 403
// and a Bearer challenge with error insufficient_scope and scope "openid
// scope" (RFC 6750 section 3.1). Other requests need only a valid token.
func (p *Protected) StepUp(scope, claim string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stepUp = &stepUp{scope: scope, claim: claim}
}

// insufficient answers 403 to a tools/call whose token lacks the step-up
// claim, and reports whether it did.
func (p *Protected) insufficient(w http.ResponseWriter, r *http.Request, tok string) bool {
	p.mu.Lock()
	su := p.stepUp
	p.mu.Unlock()
	if su == nil || r.Method != http.MethodPost {
		return false
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	r.Body = io.NopCloser(bytes.NewReader(body))
	var msg struct {
		Method string `json:"method"`
	}
	if json.Unmarshal(body, &msg) != nil || msg.Method != "tools/call" {
		return false
	}
	if claims := p.userinfo(r, tok); claims[su.claim] != nil {
		return false
	}
	w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer error="insufficient_scope", scope="openid %s", resource_metadata=%q`, su.scope, p.HTTP.URL+"/.well-known/oauth-protected-resource"+p.path))
	http.Error(w, "insufficient scope", http.StatusForbidden)
	return true
}

// userinfo returns the claims the authorization server gives for tok.
func (p *Protected) userinfo(r *http.Request, tok string) map[string]any {
	req, _ := http.NewRequestWithContext(r.Context(), http.MethodGet, p.server().Issuer+"/userinfo", nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	var claims map[string]any
	_ = json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&claims)
	return claims
}
