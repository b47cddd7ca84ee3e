package testauth

import (
	"bytes"
	"crypto"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// DPoP (RFC 9449) on top of the library's OP, which knows no DPoP (nor
// does any maintained Go authorization server the Go module proxy serves
// today: zitadel/oidc's op, ory/fosite). The proofs are verified with
// go-jose, the library zitadel/oidc itself signs and verifies with.
// [Server.RequireDPoP] turns it on: the metadata offers ES256 proofs,
// every token request must carry a valid proof (with the server's nonce,
// when it sets one), the tokens it answers are bound to the proof's key
// (token_type DPoP, refresh tokens included), and the MCP servers it
// protects take a token only as "DPoP" with a fresh proof of that key
// for the request (and their nonce, when set).

// dpopState is a Server's DPoP requirement.
type dpopState struct {
	mu      sync.Mutex
	on      bool
	asNonce string            // the nonce token requests must carry; "" for none
	rsNonce string            // the nonce resource requests must carry
	bound   map[string]string // access or refresh token -> the jkt it is bound to
	jtis    map[string]bool   // proofs seen at resources, against replay
	// counts
	tokenProofs, resourceProofs, asChallenges, rsChallenges int
}

// RequireDPoP makes a require DPoP from now on. asNonce and rsNonce,
// when not "", are the nonces that token requests and the requests to
// the MCP servers a protects must carry; a request without it is refused
// with use_dpop_nonce and the nonce in DPoP-Nonce.
func (a *Server) RequireDPoP(asNonce, rsNonce string) {
	a.dpop.mu.Lock()
	defer a.dpop.mu.Unlock()
	a.dpop.on, a.dpop.asNonce, a.dpop.rsNonce = true, asNonce, rsNonce
	a.dpop.bound, a.dpop.jtis = map[string]string{}, map[string]bool{}
}

// DPoPCounts returns the valid proofs seen at the token endpoint and at
// the resources, and the nonce challenges each sent.
func (a *Server) DPoPCounts() (tokenProofs, resourceProofs, asChallenges, rsChallenges int) {
	a.dpop.mu.Lock()
	defer a.dpop.mu.Unlock()
	d := &a.dpop
	return d.tokenProofs, d.resourceProofs, d.asChallenges, d.rsChallenges
}

func (a *Server) dpopOn() bool {
	a.dpop.mu.Lock()
	defer a.dpop.mu.Unlock()
	return a.dpop.on
}

// dpopProof is a verified proof.
type dpopProof struct {
	jkt                string
	jti, htm, htu, ath string
	nonce              string
	iat                int64
}

// verifyProof checks the DPoP header of r: one ES256 dpop+jwt signed by
// the public key in its header, for r's method and URL (target), issued
// within a minute.
func verifyProof(r *http.Request, target string) (*dpopProof, error) {
	vs := r.Header.Values("DPoP")
	if len(vs) != 1 {
		return nil, fmt.Errorf("want one DPoP header, got %d", len(vs))
	}
	obj, err := jose.ParseSigned(vs[0], []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		return nil, err
	}
	if len(obj.Signatures) != 1 {
		return nil, errors.New("want one signature")
	}
	h := obj.Signatures[0].Protected
	if typ, _ := h.ExtraHeaders["typ"].(string); typ != "dpop+jwt" {
		return nil, fmt.Errorf("typ %q, want dpop+jwt", typ)
	}
	if h.JSONWebKey == nil || !h.JSONWebKey.IsPublic() {
		return nil, errors.New("no public jwk in the header")
	}
	payload, err := obj.Verify(h.JSONWebKey.Key)
	if err != nil {
		return nil, err
	}
	var c struct {
		JTI   string `json:"jti"`
		HTM   string `json:"htm"`
		HTU   string `json:"htu"`
		IAT   int64  `json:"iat"`
		ATH   string `json:"ath"`
		Nonce string `json:"nonce"`
	}
	if err := json.Unmarshal(payload, &c); err != nil {
		return nil, err
	}
	thumb, err := h.JSONWebKey.Thumbprint(crypto.SHA256)
	if err != nil {
		return nil, err
	}
	switch {
	case c.JTI == "":
		return nil, errors.New("no jti")
	case c.HTM != r.Method:
		return nil, fmt.Errorf("htm %q, want %q", c.HTM, r.Method)
	case strings.TrimSuffix(c.HTU, "/") != strings.TrimSuffix(target, "/"):
		return nil, fmt.Errorf("htu %q, want %q", c.HTU, target)
	case time.Since(time.Unix(c.IAT, 0)).Abs() > time.Minute:
		return nil, fmt.Errorf("iat %d is not now", c.IAT)
	}
	return &dpopProof{jkt: base64.RawURLEncoding.EncodeToString(thumb), jti: c.JTI, htm: c.HTM, htu: c.HTU, ath: c.ATH, nonce: c.Nonce, iat: c.IAT}, nil
}

// dpopError answers a refused DPoP request.
func dpopError(w http.ResponseWriter, status int, code, desc, nonce string) {
	w.Header().Set("Content-Type", "application/json")
	if nonce != "" {
		w.Header().Set("DPoP-Nonce", nonce)
	}
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": code, "error_description": desc})
}

// dpopToken serves a token request of a server that requires DPoP: the
// proof is checked (a refresh token only with the key it is bound to),
// then next answers, and the tokens answered are bound to the key.
func (a *Server) dpopToken(w http.ResponseWriter, r *http.Request, form url.Values, next http.Handler) {
	p, err := verifyProof(r, a.Issuer+"/oauth/token")
	if err != nil {
		dpopError(w, http.StatusBadRequest, "invalid_dpop_proof", err.Error(), "")
		return
	}
	d := &a.dpop
	d.mu.Lock()
	if d.asNonce != "" && p.nonce != d.asNonce {
		d.asChallenges++
		nonce := d.asNonce
		d.mu.Unlock()
		dpopError(w, http.StatusBadRequest, "use_dpop_nonce", "the authorization server requires a DPoP nonce", nonce)
		return
	}
	if rt := form.Get("refresh_token"); rt != "" && d.bound[rt] != p.jkt {
		d.mu.Unlock()
		dpopError(w, http.StatusBadRequest, "invalid_grant", "the refresh token is bound to another key", "")
		return
	}
	d.tokenProofs++
	d.mu.Unlock()

	rec := httptest.NewRecorder()
	a.serveToken(rec, r, form, next)
	var tok map[string]any
	if rec.Code == http.StatusOK && json.Unmarshal(rec.Body.Bytes(), &tok) == nil {
		tok["token_type"] = "DPoP"
		d.mu.Lock()
		for _, k := range []string{"access_token", "refresh_token"} {
			if s, _ := tok[k].(string); s != "" {
				d.bound[s] = p.jkt
			}
		}
		d.mu.Unlock()
		body, _ := json.Marshal(tok)
		rec.Body = bytes.NewBuffer(body)
		rec.Header().Del("Content-Length")
	}
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	_, _ = w.Write(rec.Body.Bytes())
}

// dpopResource checks the credentials of a request to a protected MCP
// server under DPoP and returns the access token, or answers the refusal
// itself and returns "".
func (p *Protected) dpopResource(w http.ResponseWriter, r *http.Request) string {
	a := p.server()
	challenge := func(params string) {
		w.Header().Set("WWW-Authenticate", fmt.Sprintf(`DPoP %sresource_metadata=%q, scope="openid offline_access", algs="ES256"`, params, p.HTTP.URL+"/.well-known/oauth-protected-resource"+p.path))
	}
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "DPoP ")
	if !ok || tok == "" {
		p.Refused.Add(1)
		challenge("")
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return ""
	}
	proof, err := verifyProof(r, p.URL)
	sum := sha256.Sum256([]byte(tok))
	d := &a.dpop
	d.mu.Lock()
	defer d.mu.Unlock()
	switch {
	case err != nil:
	case proof.ath != base64.RawURLEncoding.EncodeToString(sum[:]):
		err = errors.New("ath is not the token's hash")
	case d.bound[tok] != proof.jkt:
		err = errors.New("the token is not bound to the proof's key")
	case d.jtis[proof.jti]:
		err = errors.New("proof replayed")
	}
	if err != nil {
		p.Refused.Add(1)
		challenge(`error="invalid_token", error_description="` + strings.ReplaceAll(err.Error(), `"`, `'`) + `", `)
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return ""
	}
	d.jtis[proof.jti] = true
	if d.rsNonce != "" && proof.nonce != d.rsNonce {
		d.rsChallenges++
		challenge(`error="use_dpop_nonce", `)
		w.Header().Set("DPoP-Nonce", d.rsNonce)
		http.Error(w, "use_dpop_nonce", http.StatusUnauthorized)
		return ""
	}
	d.resourceProofs++
	return tok
}
