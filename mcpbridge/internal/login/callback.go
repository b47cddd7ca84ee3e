package login

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"html"
	"net"
	"net/http"
	"net/url"
	"sync"
)

// ErrIssuerMismatch is the error of a login whose authorization response
// names another issuer than the authorization server's (RFC 9207): a
// mix-up attack, or a misconfigured server.
var ErrIssuerMismatch = errors.New("authorization response from another issuer (RFC 9207)")

// listen opens the redirect listener: on the configured redirect URI's
// host and port, or on a free loopback port.
func listen(redirect string) (net.Listener, string, error) {
	if redirect == "" {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, "", fmt.Errorf("redirect listener: %w", err)
		}
		return ln, fmt.Sprintf("http://%s/oauth/callback", ln.Addr()), nil
	}
	u, err := url.Parse(redirect)
	if err != nil || u.Scheme != "http" || u.Port() == "" {
		return nil, "", fmt.Errorf("redirectUri %q: want http://localhost:PORT/path or http://127.0.0.1:PORT/path", redirect)
	}
	host := u.Hostname()
	if host != "localhost" && !isLoopback(host) {
		return nil, "", fmt.Errorf("redirectUri %q: host must be loopback", redirect)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, u.Port()))
	if err != nil {
		return nil, "", fmt.Errorf("redirect listener: %w", err)
	}
	return ln, redirect, nil
}

func isLoopback(host string) bool {
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

type callback struct {
	code string
	err  error
}

// callbackHandler accepts one redirect with the expected state. With
// issuer set (the server advertises RFC 9207), the response must carry
// iss equal to it; without, an iss it carries must still be the
// authorization server's, asIssuer.
func callbackHandler(path, state, issuer, asIssuer string, got chan<- callback) http.Handler {
	var once sync.Once
	deliver := func(cb callback) { once.Do(func() { got <- cb }) }
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != path {
			http.NotFound(w, r)
			return
		}
		q := r.URL.Query()
		if subtle.ConstantTimeCompare([]byte(q.Get("state")), []byte(state)) != 1 {
			http.Error(w, "unexpected state parameter", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		iss, hasISS := q.Get("iss"), q.Has("iss")
		if (issuer != "" && iss != issuer) || (issuer == "" && hasISS && asIssuer != "" && iss != asIssuer) {
			deliver(callback{err: fmt.Errorf("%w: iss %q, want %q", ErrIssuerMismatch, iss, asIssuer)})
			fmt.Fprint(w, "<!doctype html><p>Login failed: the response came from another authorization server.</p>")
			return
		}
		if e := q.Get("error"); e != "" {
			desc := q.Get("error_description")
			deliver(callback{err: fmt.Errorf("authorization server refused: %s %s", e, desc)})
			fmt.Fprintf(w, "<!doctype html><p>Login failed: %s</p>", html.EscapeString(e))
			return
		}
		code := q.Get("code")
		if code == "" {
			http.Error(w, "missing code", http.StatusBadRequest)
			return
		}
		deliver(callback{code: code})
		fmt.Fprint(w, "<!doctype html><p>Logged in. You can close this window.</p>")
	})
}
