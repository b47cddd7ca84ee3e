package login

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"

	gauth "cloud.google.com/go/auth"
	"cloud.google.com/go/auth/credentials"
	"cloud.google.com/go/auth/credentials/impersonate"
	"cloud.google.com/go/auth/httptransport"

	"github.com/mcpgenai/bridge/mcpbridge/auth"
)

// GoogleHost reports whether Google access tokens may go to endpoint: an
// https URL whose host is under googleapis.com or luci.app, the hosts
// Gemini CLI allows.
func GoogleHost(endpoint string) bool {
	u, err := url.Parse(endpoint)
	if err != nil || u.Scheme != "https" {
		return false
	}
	h := strings.ToLower(u.Hostname())
	return strings.HasSuffix(h, ".googleapis.com") || h == "luci.app" || strings.HasSuffix(h, ".luci.app")
}

// GoogleConfig says how a server gets Google credentials.
type GoogleConfig struct {
	Server string
	// Scopes of the access token from the Application Default
	// Credentials; empty means cloud-platform.
	Scopes []string
	// TargetAudience and TargetServiceAccount, when set, make the
	// credentials an ID token for TargetAudience minted as
	// TargetServiceAccount (service-account impersonation) instead of an
	// access token.
	TargetAudience, TargetServiceAccount string
	// Transport carries the requests for tokens; nil means
	// http.DefaultTransport.
	Transport http.RoundTripper
	// Refuse, when set, is the error of every request: the credentials
	// must not go to this server.
	Refuse error
}

// CloudPlatformScope is the scope of Google credentials when none is
// configured.
const CloudPlatformScope = "https://www.googleapis.com/auth/cloud-platform"

// Google gives requests Google credentials: an access token from the
// Application Default Credentials, or an impersonated ID token. The
// credentials are looked up at the first request and cached, with their
// tokens, by Google's library, which refreshes them before they expire.
// Its methods are safe for concurrent use.
type Google struct {
	cfg GoogleConfig

	once  sync.Once
	creds *gauth.Credentials
	err   error

	mu    sync.Mutex
	state auth.State
}

// NewGoogle returns a Google for cfg. It does no I/O.
func NewGoogle(cfg GoogleConfig) *Google { return &Google{cfg: cfg} }

// State returns where the credentials stand.
func (g *Google) State() auth.State {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.state
}

func (g *Google) setState(s auth.State) {
	g.mu.Lock()
	g.state = s
	g.mu.Unlock()
}

func (g *Google) load() (*gauth.Credentials, error) {
	g.once.Do(func() { g.creds, g.err = g.detect() })
	return g.creds, g.err
}

func (g *Google) detect() (*gauth.Credentials, error) {
	if g.cfg.Refuse != nil {
		return nil, g.cfg.Refuse
	}
	base := g.cfg.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	scopes := g.cfg.Scopes
	if len(scopes) == 0 || g.cfg.TargetAudience != "" {
		scopes = []string{CloudPlatformScope}
	}
	creds, err := credentials.DetectDefault(&credentials.DetectOptions{
		Scopes: scopes,
		Client: &http.Client{Transport: base},
	})
	if err != nil {
		return nil, fmt.Errorf("application default credentials: %w", err)
	}
	if g.cfg.TargetAudience == "" {
		return creds, nil
	}
	client := &http.Client{Transport: base}
	if err := httptransport.AddAuthorizationMiddleware(client, creds); err != nil {
		return nil, err
	}
	id, err := impersonate.NewIDTokenCredentials(&impersonate.IDTokenOptions{
		Audience:        g.cfg.TargetAudience,
		TargetPrincipal: g.cfg.TargetServiceAccount,
		Client:          client,
	})
	if err != nil {
		return nil, fmt.Errorf("service account impersonation: %w", err)
	}
	return id, nil
}

// Authorization returns "Bearer <token>".
func (g *Google) Authorization(ctx context.Context) (string, error) {
	creds, err := g.load()
	if err != nil {
		g.setState(auth.StateFailed)
		return "", fmt.Errorf("google credentials: %w", err)
	}
	tok, err := creds.Token(ctx)
	if err != nil {
		g.setState(auth.StateFailed)
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", fmt.Errorf("google credentials: %w", err)
	}
	if tok.Value == "" {
		g.setState(auth.StateFailed)
		return "", errors.New("google credentials: empty token")
	}
	return "Bearer " + tok.Value, nil
}

// Unauthorized records that the server refused the credentials; there is
// nothing to retry with (Google's library already refreshes before expiry).
func (g *Google) Unauthorized(context.Context, *http.Response, string) bool {
	g.setState(auth.StateFailed)
	return false
}

// Accepted records that the server accepted the credentials.
func (g *Google) Accepted(context.Context) { g.setState(auth.StateAuthenticated) }
