package login

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/mcpgenai/bridge/mcpbridge/auth"
)

// Several processes may share one token store (the replicas of a
// service). Within one process, mcp-go's handler sends one refresh for
// every caller that finds the token expired. Across processes, the store's
// lock (Config.Lock) does: a process whose token must be refreshed holds
// the entry, reads it again, and refreshes only if no other process did
// meanwhile; otherwise it uses the token the other one got. The lock is
// held until the refresh has ended, even when the caller gives up first:
// the refresh token may be spent by then.

// refreshTimeout bounds a refresh that holds the store's lock; mcp-go
// bounds its own refreshes by the same time.
const refreshTimeout = 30 * time.Second

// errIssuerUnknown: no discovery has been made, and none is wanted yet.
var errIssuerUnknown = errors.New("authorization server not discovered yet")

// issuer returns the issuer of the authorization server the discovery
// finds: the token store's key. Discovery costs requests, and a server
// that needs no login may answer them badly (slowly, or with an endless
// stream), so it is made only when the configuration names the endpoints
// (no request), for an eager client (see earlyDiscovery), or once the
// server has asked for a token (a 401), a login or a grant needs it:
// before, there is no token to send, and errIssuerUnknown says so.
func (c *Client) issuer(ctx context.Context) (string, error) {
	c.sh.mu.Lock()
	d, seek := c.sh.disc, c.sh.seek
	c.sh.mu.Unlock()
	if d == nil && !seek && (c.cfg.AuthorizationURL == "" || c.cfg.TokenURL == "") {
		if !c.cfg.Eager {
			return "", errIssuerUnknown
		}
		if d = c.earlyDiscovery(ctx); d == nil {
			return "", errIssuerUnknown
		}
		return d.AS.Issuer, nil
	}
	d, err := c.discovered(ctx)
	if err != nil {
		return "", err
	}
	return d.AS.Issuer, nil
}

// earlyTimeout bounds the discovery of an eager client made before the
// server asked for a token: the first request waits for it, and a server
// whose metadata is slow to come must not hold that request up for
// long. Past it the request goes as it did without the discovery.
const earlyTimeout = 2 * time.Second

// earlyDiscovery makes, once for every client of the server, the
// discovery an eager client (configured for OAuth) makes before the
// server asked for a token, so that a stored token (whose key names the
// issuer) goes with the first request instead of after a 401: after a
// restart, each user's first request would otherwise be refused once.
// With no challenge to go by, it is kept only when protected resource
// metadata at a well-known URL names the authorization server and its
// metadata is found; otherwise, or when it fails or ctx ends first, it
// returns nil and the clients wait for a 401 as before. Concurrent
// callers wait for the one under way, within ctx.
func (c *Client) earlyDiscovery(ctx context.Context) *discovery {
	sh := c.sh
	sh.mu.Lock()
	done := sh.early
	if done == nil {
		done = make(chan struct{})
		sh.early = done
		sh.mu.Unlock()
		dctx, cancel := context.WithTimeout(ctx, earlyTimeout)
		d, err := c.discover(dctx, nil)
		cancel()
		sh.mu.Lock()
		if err == nil && d.Named && d.Found && sh.disc == nil {
			sh.disc = d
		}
		close(done)
		sh.mu.Unlock()
	} else {
		sh.mu.Unlock()
	}
	select {
	case <-done:
	case <-ctx.Done():
		return nil
	}
	sh.mu.Lock()
	defer sh.mu.Unlock()
	return sh.disc
}

// header returns h's Authorization value and the token it started from
// (nil when none). A token that must be refreshed is refreshed under the
// store's lock, when there is one, after reading the store again.
func (c *Client) header(ctx context.Context, h *transport.OAuthHandler) (string, *auth.Token, error) {
	before, _ := c.store.load(ctx)
	if c.cfg.Lock == nil || before == nil || before.RefreshToken == "" || c.store.usable(before) {
		v, err := h.GetAuthorizationHeader(ctx)
		return v, before, err
	}
	key, err := c.store.key(ctx)
	if err != nil {
		return "", before, err
	}
	unlock, err := c.cfg.Lock.Lock(ctx, key)
	if err != nil {
		return "", before, err
	}
	type header struct {
		v      string
		before *auth.Token
		err    error
	}
	done := make(chan header, 1)
	go func() {
		defer unlock()
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), refreshTimeout)
		defer cancel()
		// Another process may have refreshed the token meanwhile.
		c.store.drop()
		now, err := c.store.load(rctx)
		if err != nil {
			done <- header{before: before, err: err}
			return
		}
		v, err := h.GetAuthorizationHeader(rctx)
		done <- header{v, now, err}
	}()
	select {
	case r := <-done:
		return r.v, r.before, r.err
	case <-ctx.Done():
		return "", before, ctx.Err()
	}
}

// known returns the discovery made so far, nil when none is.
func (s *Shared) known() *discovery {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.disc
}

// lastChallenge returns the server's last WWW-Authenticate challenge, nil
// when none came.
func (s *Shared) lastChallenge() http.Header {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.challenge
}
