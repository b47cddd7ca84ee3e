// Package testauth is a real OAuth 2.1 / OpenID authorization server on
// loopback for tests, built on github.com/zitadel/oidc/v3's op package and
// its example storage and login page, and MCP servers (mcp-go, SSE or
// streamable HTTP) that it protects. The test plays the person with
// [Server.Consent].
//
// The library's OP has no dynamic client registration; the server adds an
// RFC 7591 registration endpoint (and advertises it in the discovery
// document) that registers a native PKCE client in the example storage.
// Everything else (authorize, login, token, refresh, revocation, userinfo,
// discovery) is the library's.
package testauth

import (
	"bytes"
	"context"
	"crypto"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zitadel/oidc/v3/example/server/exampleop"
	"github.com/zitadel/oidc/v3/example/server/storage"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// Username and Password are those of the example storage's second user.
const (
	Username = "test-user2"
	Password = "verysecure"
)

// Server is the authorization server.
type Server struct {
	Issuer string
	HTTP   *httptest.Server
	store  *clientStore

	// Refreshes counts refresh_token grants; Registrations counts dynamic
	// registrations; Codes counts authorization_code grants.
	Refreshes, Registrations, Codes atomic.Int64
	// Workloads counts the JWT bearer grants of trusted workloads (see
	// TrustWorkloads).
	Workloads atomic.Int64
	// ClientSecrets makes dynamic registration register a confidential
	// client with a random secret (client_secret_basic) instead of a
	// public one.
	ClientSecrets atomic.Bool
	// HoldRefresh, when it holds a func(), is called (after Refreshes
	// counts it) before a refresh_token grant is served: the grant waits
	// for it to return.
	HoldRefresh atomic.Value
	// EchoRefused makes the token endpoint refuse every grant with an
	// error that quotes the code or refresh token and the client's
	// credentials, as a careless server might.
	EchoRefused atomic.Bool

	mu        sync.Mutex
	lastToken url.Values     // the form of the last token request
	lastReg   map[string]any // the body of the last registration
	// service holds the access tokens of client_credentials grants, which
	// the library's userinfo does not know (they name no user).
	service map[string]bool
	issued  []string // see Issued

	dpop        dpopState        // see RequireDPoP
	workloadKey crypto.PublicKey // see TrustWorkloads
}

// clientCredentials serves a client_credentials grant and records the
// access token it issues.
func (a *Server) clientCredentials(w http.ResponseWriter, r *http.Request, next http.Handler) {
	rec := httptest.NewRecorder()
	next.ServeHTTP(rec, r)
	var tr struct {
		AccessToken string `json:"access_token"`
	}
	if rec.Code == http.StatusOK && json.Unmarshal(rec.Body.Bytes(), &tr) == nil && tr.AccessToken != "" {
		a.mu.Lock()
		if a.service == nil {
			a.service = map[string]bool{}
		}
		a.service[tr.AccessToken] = true
		a.mu.Unlock()
	}
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	_, _ = w.Write(rec.Body.Bytes())
}

// LastRegistration returns the body of the last dynamic registration.
func (a *Server) LastRegistration() map[string]any {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.lastReg
}

// LastTokenRequest returns the form of the last token request.
func (a *Server) LastTokenRequest() url.Values {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.lastToken
}

// clientStore is the example storage with clients of the test's own: those
// registered in Go and dynamically.
type clientStore struct {
	*storage.Storage
	mu      sync.Mutex
	clients map[string]*storage.Client
	secrets map[string]string // of the confidential clients among clients
}

func (s *clientStore) GetClientByClientID(ctx context.Context, id string) (op.Client, error) {
	s.mu.Lock()
	c, ok := s.clients[id]
	_, confidential := s.secrets[id]
	s.mu.Unlock()
	if ok && confidential {
		return secretClient{c}, nil
	}
	if ok {
		return c, nil
	}
	return s.Storage.GetClientByClientID(ctx, id)
}

func (s *clientStore) add(c *storage.Client) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clients[c.GetID()] = c
}

// Start runs an authorization server until the end of t.
func Start(t testing.TB) *Server {
	t.Helper()
	a := &Server{}
	var handler http.Handler
	a.HTTP = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		handler.ServeHTTP(w, r)
	}))
	t.Cleanup(a.HTTP.Close)
	a.Issuer = a.HTTP.URL
	a.store = &clientStore{
		Storage: storage.NewStorageWithClients(manyUsers{storage.NewUserStore(a.Issuer)}, map[string]*storage.Client{}),
		clients: map[string]*storage.Client{},
	}
	op := exampleop.SetupServer(a.Issuer, a.store, nil, false)
	handler = a.wrap(op)
	return a
}

// RegisterNative registers a public PKCE client with a loopback redirect
// path (any port is accepted, RFC 8252).
func (a *Server) RegisterNative(id, redirect string) {
	a.store.add(storage.NativeClient(id, redirect))
}

// RevokeRefresh revokes a refresh token.
func (a *Server) RevokeRefresh(t testing.TB, clientID, refresh string) {
	t.Helper()
	form := url.Values{"token": {refresh}, "token_type_hint": {"refresh_token"}, "client_id": {clientID}}
	resp, err := http.PostForm(a.Issuer+"/revoke", form)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("revoke: %s %s", resp.Status, body)
	}
}

// wrap adds the registration endpoint and counts grants.
func (a *Server) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/.well-known/openid-configuration":
			rec := httptest.NewRecorder()
			next.ServeHTTP(rec, r)
			var doc map[string]any
			if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			doc["registration_endpoint"] = a.Issuer + "/register"
			if a.dpopOn() {
				doc["dpop_signing_alg_values_supported"] = []string{"ES256"}
			}
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(doc)
			return
		case r.URL.Path == "/register" && r.Method == http.MethodPost:
			a.register(w, r)
			return
		case r.URL.Path == "/oauth/token":
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			q, _ := url.ParseQuery(string(body))
			a.mu.Lock()
			a.lastToken = q
			a.mu.Unlock()
			if q.Get("grant_type") == "refresh_token" {
				a.Refreshes.Add(1)
				if hold, _ := a.HoldRefresh.Load().(func()); hold != nil {
					hold()
				}
			} else if q.Get("grant_type") == "authorization_code" {
				a.Codes.Add(1)
			} else if q.Get("grant_type") == "client_credentials" {
				a.clientCredentials(w, r, next)
				return
			} else if q.Get("grant_type") == "urn:ietf:params:oauth:grant-type:jwt-bearer" && a.trustsWorkloads() {
				a.workloadGrant(w, q)
				return
			}
			if a.dpopOn() {
				a.dpopToken(w, r, q, next)
				return
			}
			a.serveToken(w, r, q, next)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (a *Server) register(w http.ResponseWriter, r *http.Request) {
	var req struct {
		RedirectURIs []string `json:"redirect_uris"`
		AuthMethod   string   `json:"token_endpoint_auth_method"`
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<10))
	var all map[string]any
	_ = json.Unmarshal(body, &all)
	a.mu.Lock()
	a.lastReg = all
	a.mu.Unlock()
	if err := json.Unmarshal(body, &req); err != nil || len(req.RedirectURIs) == 0 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, `{"error":"invalid_client_metadata"}`)
		return
	}
	n := a.Registrations.Add(1)
	id := fmt.Sprintf("dyn-%d", n)
	answer := map[string]any{
		"client_id":                  id,
		"redirect_uris":              req.RedirectURIs,
		"token_endpoint_auth_method": "none",
		"grant_types":                []string{"authorization_code", "refresh_token"},
		"response_types":             []string{"code"},
	}
	if a.ClientSecrets.Load() {
		secret := randomSecret()
		a.remember(secret)
		a.store.addConfidential(storage.NativeClient(id, req.RedirectURIs...), secret)
		answer["client_secret"], answer["token_endpoint_auth_method"] = secret, "client_secret_basic"
	} else {
		a.store.add(storage.NativeClient(id, req.RedirectURIs...))
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	_ = json.NewEncoder(w).Encode(answer)
}

// Consent plays the person: it opens authURL, logs in on the login page
// as Username and follows the redirects to the client's loopback
// listener, whose answer it returns.
func Consent(authURL string) (string, error) {
	return ConsentAs(authURL, Username)
}

// ConsentAs is Consent as the user username: Username, or any name
// starting with UserPrefix (see User), with Password.
func ConsentAs(authURL, username string) (string, error) {
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	resp, err := c.Get(authURL)
	if err != nil {
		return "", err
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	id := resp.Request.URL.Query().Get("authRequestID")
	if id == "" {
		return "", fmt.Errorf("no login page at %s: %s %s", resp.Request.URL.Redacted(), resp.Status, body)
	}
	login := *resp.Request.URL
	login.RawQuery = ""
	resp, err = c.PostForm(login.String(), url.Values{"id": {id}, "username": {username}, "password": {Password}})
	if err != nil {
		return "", err
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("after login: %s %s", resp.Status, body)
	}
	return string(body), nil
}

// Proxy is an origin of its own that forwards to a; its discovery document
// names a's issuer, not its own.
func (a *Server) Proxy(t testing.TB) string {
	t.Helper()
	u, _ := url.Parse(a.Issuer)
	p := httptest.NewServer(httputil.NewSingleHostReverseProxy(u))
	t.Cleanup(p.Close)
	return p.URL
}

// Protected serves next (an MCP endpoint at path) behind bearer tokens that
// the authorization server's userinfo endpoint accepts (or that it issued
// to a client_credentials grant), with protected
// resource metadata (RFC 9728) naming authServer (a.Issuer when "") at
// /.well-known/oauth-protected-resource<path>. Tokens marked with Expire
// are refused as the server would an expired one. A token's userinfo
// answer is taken as true for checkedFor (by the authorization server
// that gave it), as a resource server that caches token introspection
// does (RFC 7662, section 4) rather than asking about every request; each
// request's token still names the user the request acts for.
type Protected struct {
	URL    string // the MCP endpoint
	HTTP   *httptest.Server
	as     *Server
	authAS string
	param  string // the query parameter of the token; "" for the header
	legacy bool   // server/discover is refused (see ServeLegacyMCP)
	path   string
	next   http.Handler

	mu      sync.Mutex
	seen    map[string]checked // every valid token -> whose it is, and when checked
	offered map[string]bool    // every token a request presented
	stalls  int                // metadata requests still to stall
	expired map[string]bool
	stepUp  *stepUp
	Refused atomic.Int64
	// Forbidden counts the 403 insufficient_scope answers.
	Forbidden atomic.Int64
	// Discovers counts the server/discover requests that carried a valid
	// token.
	Discovers atomic.Int64

	listens listens
}

// StallMetadata makes the next request for the protected resource
// metadata go unanswered until its client gives up on it, as from a
// server slower than the request that needs it.
func (p *Protected) StallMetadata() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stalls++
}

// Offered reports whether a request presented tok as its access token,
// valid or not.
func (p *Protected) Offered(tok string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.offered[tok]
}

// Expire makes every access token seen so far be refused.
func (p *Protected) Expire() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for tok := range p.seen {
		p.expired[tok] = true
	}
}

// ExpireSubject makes every access token of the user with the ID sub seen
// so far be refused, as the server would expired ones; it returns how
// many there were.
func (p *Protected) ExpireSubject(sub string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for tok, c := range p.seen {
		if c.sub == sub {
			p.expired[tok] = true
			n++
		}
	}
	return n
}

func (p *Protected) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/.well-known/oauth-protected-resource"+p.path {
		p.mu.Lock()
		stall := p.stalls > 0
		if stall {
			p.stalls--
		}
		p.mu.Unlock()
		if stall {
			<-r.Context().Done()
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"resource":              p.URL,
			"authorization_servers": []string{p.authServer()},
		})
		return
	}
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if p.server().dpopOn() {
		if tok = p.dpopResource(w, r); tok == "" {
			return
		}
		ok = true
	}
	if p.param != "" {
		tok = r.URL.Query().Get(p.param)
		ok = tok != ""
	}
	if ok && tok != "" {
		p.mu.Lock()
		p.offered[tok] = true
		p.mu.Unlock()
	}
	sub, valid := p.valid(r.Context(), tok)
	if isListen(r) {
		r = p.listened(r, sub, ok && valid)
		defer p.listenDone(r)
	}
	if !ok || !valid {
		p.Refused.Add(1)
		w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer resource_metadata=%q, scope="openid offline_access"`, p.HTTP.URL+"/.well-known/oauth-protected-resource"+p.path))
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	if p.insufficient(w, r, tok) {
		p.Forbidden.Add(1)
		return
	}
	if r.Method == http.MethodPost && isDiscover(r) {
		p.Discovers.Add(1)
	}
	if p.legacy && r.Method == http.MethodPost && refuseDiscover(w, r, p.path == "/sse") {
		return
	}
	ctx := context.WithValue(context.WithValue(r.Context(), subjectKey{}, sub), tokenKey{}, tok)
	p.next.ServeHTTP(w, r.WithContext(ctx))
}

// userinfoClient asks the authorization server about tokens, keeping
// enough connections for a server under load.
var userinfoClient = &http.Client{Transport: func() http.RoundTripper {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = 64
	return t
}()}

// checkedFor is how long a token's userinfo answer is taken as still
// true: far shorter than the tokens' lifetime, longer than a benchmark's
// run, so that a service restarted in front of running servers finds its
// users' tokens known to them, as it would.
const checkedFor = 30 * time.Second

// checked is a valid token's subject ("" for a service's) and, for a
// user's, the authorization server whose userinfo named it, and when.
type checked struct {
	as  *Server
	sub string
	at  time.Time
}

// valid reports whether tok is a token of the authorization server that
// has not expired, and whose it is: the subject (the user's ID) its
// userinfo names, "" for a service's token.
func (p *Protected) valid(ctx context.Context, tok string) (string, bool) {
	if tok == "" {
		return "", false
	}
	p.mu.Lock()
	expired := p.expired[tok]
	p.mu.Unlock()
	if expired {
		return "", false
	}
	as := p.server()
	p.mu.Lock()
	c, ok := p.seen[tok]
	p.mu.Unlock()
	if ok && c.as == as && time.Since(c.at) < checkedFor {
		return c.sub, true
	}
	as.mu.Lock()
	service := as.service[tok]
	as.mu.Unlock()
	if service {
		p.mu.Lock()
		p.seen[tok] = checked{} // a service's: checked at each request
		p.mu.Unlock()
		return "", true
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, as.Issuer+"/userinfo", nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := userinfoClient.Do(req)
	if err != nil {
		return "", false
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", false
	}
	var info struct {
		Sub string `json:"sub"`
	}
	_ = json.Unmarshal(body, &info)
	p.mu.Lock()
	p.seen[tok] = checked{as: as, sub: info.Sub, at: time.Now()}
	p.mu.Unlock()
	return info.Sub, true
}
