package login

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/mcpgenai/bridge/mcpbridge/internal/egress"
)

// DPoP (RFC 9449; SEP-1932 for MCP) binds a login's tokens to a key of the
// client's. Every token request and every request to the server carries a
// proof: a JWT signed with the key, naming the request's method and URL
// (and, to the server, the hash of the token), with the key's public half
// in its header. A server or authorization server may demand that proofs
// carry a nonce it chose: it refuses the request with use_dpop_nonce and
// the nonce in a DPoP-Nonce header, and the request is signed again with
// it and sent once more. The key is the configured one or one made at
// login, stored beside the token it binds (auth.Token.DPoPKey).

// DPoPMode says when a login uses DPoP.
type DPoPMode string

// The modes of DPoPMode.
const (
	// DPoPAuto ("" or "auto") uses DPoP when the server asks for it (a
	// DPoP challenge, or dpop_bound_access_tokens_required in its
	// protected resource metadata) and the authorization server offers
	// ES256 proofs.
	DPoPAuto DPoPMode = "auto"
	// DPoPAlways uses DPoP with every authorization server.
	DPoPAlways DPoPMode = "always"
	// DPoPNever never uses DPoP.
	DPoPNever DPoPMode = "never"
)

// dpopAlg is the one proof algorithm made: ES256 on P-256.
const dpopAlg = "ES256"

// dpopKey is a key tokens are bound to.
type dpopKey struct {
	priv *ecdsa.PrivateKey
	jwk  map[string]string // the public key as a JWK (crv, kty, x, y)
	pem  string            // the private key, PKCS #8 PEM
}

// newDPoPKey makes a new P-256 key.
func newDPoPKey() (*dpopKey, error) {
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	return dpopKeyOf(priv)
}

// CheckDPoPKey reports why pemKey is not a key DPoP proofs can be signed
// with (a PEM EC P-256 private key), or nil.
func CheckDPoPKey(pemKey string) error {
	_, err := parseDPoPKey(pemKey)
	return err
}

// parseDPoPKey reads a PEM EC P-256 private key (PKCS #8 or SEC 1).
func parseDPoPKey(pemKey string) (*dpopKey, error) {
	signer, _, err := parsePrivateKey(pemKey, dpopAlg)
	if err != nil {
		return nil, err
	}
	priv, ok := signer.(*ecdsa.PrivateKey)
	if !ok {
		return nil, errors.New("private key: want an EC P-256 key")
	}
	return dpopKeyOf(priv)
}

func dpopKeyOf(priv *ecdsa.PrivateKey) (*dpopKey, error) {
	pub, err := priv.PublicKey.Bytes() // uncompressed point: 0x04 || X || Y
	if err != nil {
		return nil, err
	}
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return nil, err
	}
	enc := base64.RawURLEncoding.EncodeToString
	return &dpopKey{
		priv: priv,
		jwk:  map[string]string{"crv": "P-256", "kty": "EC", "x": enc(pub[1:33]), "y": enc(pub[33:65])},
		pem:  string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})),
	}, nil
}

// thumbprint returns the key's JWK SHA-256 thumbprint (RFC 7638), the
// jkt a bound token names.
func (k *dpopKey) thumbprint() string {
	// The members in lexicographic order, no white space (RFC 7638 3.2).
	canon := fmt.Sprintf(`{"crv":%q,"kty":%q,"x":%q,"y":%q}`, k.jwk["crv"], k.jwk["kty"], k.jwk["x"], k.jwk["y"])
	sum := sha256.Sum256([]byte(canon))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// proof returns a DPoP proof for a request of method to target, for the
// access token token ("" at a token endpoint) and with nonce ("" for
// none). The URL's query and fragment are left out (RFC 9449 4.2).
func (k *dpopKey) proof(method string, target *url.URL, token, nonce string, now time.Time) (string, error) {
	jti := make([]byte, 16)
	if _, err := rand.Read(jti); err != nil {
		return "", err
	}
	htu := *target
	htu.RawQuery, htu.ForceQuery, htu.Fragment, htu.RawFragment, htu.User = "", false, "", "", nil
	claims := map[string]any{
		"jti": base64.RawURLEncoding.EncodeToString(jti),
		"htm": method,
		"htu": htu.String(),
		"iat": now.Unix(),
	}
	if token != "" {
		sum := sha256.Sum256([]byte(token))
		claims["ath"] = base64.RawURLEncoding.EncodeToString(sum[:])
	}
	if nonce != "" {
		claims["nonce"] = nonce
	}
	return signJWT(k.priv, dpopAlg, map[string]any{"typ": "dpop+jwt", "jwk": k.jwk}, claims)
}

// maxNonce bounds a server's DPoP nonce.
const maxNonce = 512

// parseNonce returns the DPoP-Nonce of h when it is one valid nonce: 1 to
// maxNonce characters of NQCHAR (RFC 9449 8.1: printable ASCII but the
// double quote and the backslash, no space).
func parseNonce(h http.Header) (string, bool) {
	vs := h.Values("DPoP-Nonce")
	if len(vs) != 1 || vs[0] == "" || len(vs[0]) > maxNonce {
		return "", false
	}
	for i := 0; i < len(vs[0]); i++ {
		c := vs[0][i]
		if c < 0x21 || c > 0x7e || c == '"' || c == '\\' {
			return "", false
		}
	}
	return vs[0], true
}

// nonceChallenge reports whether resp refuses a request for want of a
// DPoP nonce (RFC 9449 8 and 9): a 401 whose WWW-Authenticate has a DPoP
// challenge with error="use_dpop_nonce", or a 400 whose JSON body says
// error "use_dpop_nonce"; body is the 400's body, read by the caller.
func nonceChallenge(status int, h http.Header, body []byte) bool {
	switch status {
	case http.StatusUnauthorized:
		cs, err := egress.ParseChallenges(h)
		if err != nil {
			return false
		}
		return slices.ContainsFunc(cs, func(c egress.Challenge) bool {
			return strings.EqualFold(c.Scheme, "DPoP") && c.Params["error"] == "use_dpop_nonce"
		})
	case http.StatusBadRequest:
		var e struct {
			Error string `json:"error"`
		}
		return json.Unmarshal(body, &e) == nil && e.Error == "use_dpop_nonce"
	}
	return false
}

// dpopChallenged reports whether h asks for DPoP: a WWW-Authenticate
// challenge with the DPoP scheme.
func dpopChallenged(h http.Header) bool {
	cs, err := egress.ParseChallenges(h)
	if err != nil {
		return false
	}
	return slices.ContainsFunc(cs, func(c egress.Challenge) bool { return strings.EqualFold(c.Scheme, "DPoP") })
}

// maxNonceOrigins bounds the origins whose nonce is kept.
const maxNonceOrigins = 16

// noteNonce keeps the DPoP nonce resp's origin gave, if any.
func (c *Client) noteNonce(u *url.URL, h http.Header) {
	n, ok := parseNonce(h)
	if !ok {
		return
	}
	o := egress.OriginOf(u)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.nonces == nil {
		c.nonces = map[string]string{}
	}
	if _, known := c.nonces[o]; !known && len(c.nonces) >= maxNonceOrigins {
		clear(c.nonces)
	}
	c.nonces[o] = n
}

// nonce returns the DPoP nonce last given by u's origin, "" for none.
func (c *Client) nonce(u *url.URL) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.nonces[egress.OriginOf(u)]
}

// useDPoP reports whether a login at the authorization server of d
// binds its tokens, by the configured mode.
func (c *Client) useDPoP(d *discovery) bool {
	switch c.cfg.DPoP {
	case DPoPNever:
		return false
	case DPoPAlways:
		return true
	}
	challenge := c.sh.lastChallenge()
	challenged := challenge != nil && dpopChallenged(challenge)
	return (challenged || d.DPoPRequired) && slices.Contains(d.AS.DPoPAlgs, dpopAlg)
}

// bindKey chooses the key of a login at d: the configured one, else a
// new one, or none when the login does not use DPoP. The tokens stored
// from now on carry it.
func (c *Client) bindKey(d *discovery) error {
	var k *dpopKey
	if c.useDPoP(d) {
		var err error
		if c.cfg.DPoPKey != "" {
			k, err = parseDPoPKey(c.cfg.DPoPKey)
		} else {
			k, err = newDPoPKey()
		}
		if err != nil {
			return fmt.Errorf("dpop key: %w", err)
		}
		c.cfg.Learn.Learn(k.pem)
	}
	c.setKey(k)
	return nil
}

// setKey makes k the key of the tokens from now on (nil: bearer tokens).
func (c *Client) setKey(k *dpopKey) {
	c.mu.Lock()
	c.key = k
	c.mu.Unlock()
	c.store.mu.Lock()
	c.store.dpopKey = ""
	if k != nil {
		c.store.dpopKey = k.pem
	}
	c.store.mu.Unlock()
}

// currentKey returns the key of the tokens, nil for bearer tokens.
func (c *Client) currentKey() *dpopKey {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.key
}

// keyOfToken makes the key a stored token names the key of the tokens.
func (c *Client) keyOfToken(pemKey string) {
	if k := c.currentKey(); (k == nil && pemKey == "") || (k != nil && k.pem == pemKey) {
		return
	}
	if pemKey == "" {
		c.setKey(nil)
		return
	}
	k, err := parseDPoPKey(pemKey)
	if err != nil {
		c.cfg.Logger.Warn("mcp server token: its DPoP key is unusable; the token is sent without proofs", "server", c.cfg.Server, "err", err)
		k = nil
	}
	c.setKey(k)
}

// DPoPProof returns the DPoP header of a request of method to u that
// carries authorization, the Authorization value Authorization gave; ""
// when that is not a DPoP-bound token.
func (c *Client) DPoPProof(_ context.Context, method string, u *url.URL, authorization string) (string, error) {
	scheme, tok, _ := strings.Cut(authorization, " ")
	k := c.currentKey()
	if !strings.EqualFold(scheme, "DPoP") || tok == "" || k == nil {
		return "", nil
	}
	return k.proof(method, u, tok, c.nonce(u), time.Now())
}

// DPoPNonce is told of a response to a request to u: it keeps the nonce
// the response gives, and reports whether the response refused the
// request for want of it, so that it is signed again and sent once more.
func (c *Client) DPoPNonce(_ context.Context, u *url.URL, resp *http.Response) bool {
	c.noteNonce(u, resp.Header)
	_, fresh := parseNonce(resp.Header)
	return fresh && c.currentKey() != nil && nonceChallenge(resp.StatusCode, resp.Header, nil)
}

// dpopTransport signs the token requests of a login whose tokens are
// bound: a form POST to the discovered token endpoint gets a proof, and
// a refusal for want of a nonce is answered once with the nonce given.
type dpopTransport struct {
	c    *Client
	base http.RoundTripper
}

// maxNonceBody bounds the 400 body read to tell a nonce challenge.
const maxNonceBody = 16 << 10

func (t dpopTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	k := t.c.currentKey()
	if k == nil || r.Method != http.MethodPost || !t.tokenEndpoint(r.URL) {
		return t.base.RoundTrip(r)
	}
	send := func(body io.ReadCloser) (*http.Response, error) {
		p, err := k.proof(http.MethodPost, r.URL, "", t.c.nonce(r.URL), time.Now())
		if err != nil {
			if body != nil {
				body.Close()
			}
			return nil, fmt.Errorf("dpop proof: %w", err)
		}
		c := r.Clone(r.Context())
		c.Body = body
		c.Header.Set("DPoP", p)
		resp, err := t.base.RoundTrip(c)
		if err == nil {
			t.c.noteNonce(r.URL, resp.Header)
		}
		return resp, err
	}
	resp, err := send(r.Body)
	if err != nil || resp.StatusCode != http.StatusBadRequest || r.GetBody == nil {
		return resp, err
	}
	if _, ok := parseNonce(resp.Header); !ok {
		return resp, nil
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxNonceBody))
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if !nonceChallenge(resp.StatusCode, resp.Header, body) {
		return resp, nil
	}
	again, err := r.GetBody()
	if err != nil {
		return resp, nil
	}
	return send(again)
}

// tokenEndpoint reports whether u is the discovered token endpoint.
func (t dpopTransport) tokenEndpoint(u *url.URL) bool {
	d := t.c.sh.known()
	return d != nil && d.AS.TokenEndpoint != "" && u.String() == d.AS.TokenEndpoint
}

// tokenOf returns the token of an Authorization value, Bearer or DPoP
// (schemes are case-insensitive).
func tokenOf(authorization string) (string, bool) {
	scheme, tok, _ := strings.Cut(authorization, " ")
	if tok == "" || (!strings.EqualFold(scheme, "Bearer") && !strings.EqualFold(scheme, "DPoP")) {
		return "", false
	}
	return tok, true
}

// schemeOf returns the Authorization scheme of a token of type tokenType:
// "DPoP" for a DPoP-bound token, "Bearer" otherwise.
func schemeOf(tokenType string) string {
	if strings.EqualFold(tokenType, "DPoP") {
		return "DPoP"
	}
	return "Bearer"
}
