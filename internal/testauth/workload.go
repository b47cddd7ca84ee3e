package testauth

import (
	"crypto"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// Workload identity federation: the authorization server trusts an
// external issuer (a platform that signs tokens for its workloads) and
// takes such a token as a JWT bearer grant (RFC 7523). The library's OP
// checks JWT bearer grants only against keys of its own example storage,
// which a test cannot add to, so the wrapper checks the workload's token
// itself, with go-jose, and issues a service token as for
// client_credentials.

// TrustWorkloads makes a accept, as a JWT bearer grant, a token signed
// by key (ES256 or RS256) whose audience is a's issuer and that has not
// expired. Workloads counts the grants it accepted.
func (a *Server) TrustWorkloads(key crypto.PublicKey) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.workloadKey = key
}

func (a *Server) trustsWorkloads() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.workloadKey != nil
}

// workloadGrant serves a JWT bearer grant of a trusted workload.
func (a *Server) workloadGrant(w http.ResponseWriter, form url.Values) {
	a.mu.Lock()
	key := a.workloadKey
	a.mu.Unlock()
	refuse := func(err error) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_ = json.NewEncoder(w).Encode(map[string]string{"error": "invalid_grant", "error_description": err.Error()})
	}
	obj, err := jose.ParseSigned(form.Get("assertion"), []jose.SignatureAlgorithm{jose.ES256, jose.RS256})
	if err != nil {
		refuse(err)
		return
	}
	payload, err := obj.Verify(key)
	if err != nil {
		refuse(err)
		return
	}
	var c struct {
		Aud any   `json:"aud"`
		Exp int64 `json:"exp"`
		Sub string
	}
	if err := json.Unmarshal(payload, &c); err != nil {
		refuse(err)
		return
	}
	aud, _ := c.Aud.(string)
	if strings.TrimSuffix(aud, "/") != strings.TrimSuffix(a.Issuer, "/") {
		refuse(errors.New("audience is not this authorization server"))
		return
	}
	if time.Now().After(time.Unix(c.Exp, 0)) {
		refuse(errors.New("the assertion expired"))
		return
	}
	tok := randomSecret()
	a.mu.Lock()
	if a.service == nil {
		a.service = map[string]bool{}
	}
	a.service[tok] = true
	a.mu.Unlock()
	a.Workloads.Add(1)
	a.remember(tok)
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"access_token": tok, "token_type": "Bearer", "expires_in": 3600})
}
