package testauth

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"

	"github.com/zitadel/oidc/v3/example/server/storage"
	"github.com/zitadel/oidc/v3/pkg/oidc"
)

// Issued returns every credential the server issued or was sent so far, in
// the order first seen: authorization codes, access, refresh and ID tokens,
// and the client secrets of dynamic registration (see ClientSecrets).
func (a *Server) Issued() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.issued)
}

func (a *Server) remember(creds ...string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, c := range creds {
		if c != "" && !slices.Contains(a.issued, c) {
			a.issued = append(a.issued, c)
		}
	}
}

// randomSecret returns a random client secret in standard base64, so that
// it holds characters ('+', '/', '=') that URL encoding changes.
func randomSecret() string {
	b := make([]byte, 30)
	_, _ = rand.Read(b)
	s := base64.StdEncoding.EncodeToString(b)
	if !strings.ContainsAny(s, "+/") {
		s = "+/" + s
	}
	return s
}

// serveToken passes a token request to next and remembers the code it
// carries and the tokens it answers.
func (a *Server) serveToken(w http.ResponseWriter, r *http.Request, form url.Values, next http.Handler) {
	a.remember(form.Get("code"), form.Get("refresh_token"), form.Get("client_secret"))
	if _, secret, ok := r.BasicAuth(); ok {
		s, err := url.QueryUnescape(secret)
		if err != nil {
			s = secret
		}
		a.remember(s)
	}
	if a.EchoRefused.Load() {
		id, secret, _ := r.BasicAuth()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_ = json.NewEncoder(w).Encode(map[string]string{"error": "invalid_grant",
			"error_description": "grant " + form.Get("code") + form.Get("refresh_token") + " of client " + id + ":" + secret + " (" + r.Header.Get("Authorization") + ") refused"})
		return
	}
	rec := httptest.NewRecorder()
	next.ServeHTTP(rec, r)
	var tok struct {
		Access  string `json:"access_token"`
		Refresh string `json:"refresh_token"`
		ID      string `json:"id_token"`
	}
	if json.Unmarshal(rec.Body.Bytes(), &tok) == nil {
		a.remember(tok.Access, tok.Refresh, tok.ID)
	}
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	_, _ = w.Write(bytes.Clone(rec.Body.Bytes()))
}

// secretClient is a native client (any loopback port, RFC 8252) that
// authenticates with its secret at the token endpoint.
type secretClient struct{ *storage.Client }

func (secretClient) AuthMethod() oidc.AuthMethod { return oidc.AuthMethodBasic }

// addConfidential adds a client with its secret.
func (s *clientStore) addConfidential(c *storage.Client, secret string) {
	s.add(c)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.secrets == nil {
		s.secrets = map[string]string{}
	}
	s.secrets[c.GetID()] = secret
}

// AuthorizeClientIDSecret checks the secret of a client of the test's own,
// and leaves the others to the example storage.
func (s *clientStore) AuthorizeClientIDSecret(ctx context.Context, id, secret string) error {
	s.mu.Lock()
	want, ok := s.secrets[id]
	s.mu.Unlock()
	if !ok {
		return s.Storage.AuthorizeClientIDSecret(ctx, id, secret)
	}
	if subtle.ConstantTimeCompare([]byte(want), []byte(secret)) != 1 {
		return errors.New("invalid secret")
	}
	return nil
}
