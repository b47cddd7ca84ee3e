package mcpbridge

// The connections of users' instances: connecting and listing a user's
// servers, the one 2026-07-28 connection every user of a server shares
// (each request with its own user's credentials), and the server's
// questions put to the user they are for. See users.go for what is per
// user and what is shared.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpgenai/bridge/mcpbridge/auth"
	"github.com/mcpgenai/bridge/mcpbridge/internal/mcpconn"
	"github.com/mcpgenai/bridge/mcpbridge/internal/rpcerr"
)

// discoverUser connects u's instances of the servers whose credentials
// are each user's and lists their tools, once (again when the last one
// was cut short, or when a connection all users share said its tools
// changed); concurrent callers wait for the one under way, within ctx.
// force connects again every instance that is not connected (Discover
// for a user).
func (b *Bridge) discoverUser(ctx context.Context, u *userState, force bool) error {
	for {
		b.mu.Lock()
		if b.closed {
			b.mu.Unlock()
			return ErrClosed
		}
		if u.disc != nil {
			ch := u.disc
			b.mu.Unlock()
			select {
			case <-ch:
				continue
			case <-ctx.Done():
				return context.Cause(ctx)
			}
		}
		var todo []*server
		for _, base := range b.servers {
			if !b.perUserLocked(base) {
				continue
			}
			s := b.instanceLocked(u, base)
			stale := s.link != nil && s.link.common.Load() && s.gen != base.gen
			if stale || (s.link == nil && (force || !u.found)) {
				todo = append(todo, s)
			}
		}
		if len(todo) == 0 {
			u.found = true
			b.mu.Unlock()
			return nil
		}
		ch := make(chan struct{})
		u.disc = ch
		b.mu.Unlock()

		done := make(chan struct{}, len(todo))
		for _, s := range todo {
			b.bg.Go(func() {
				defer func() { done <- struct{}{} }()
				b.attachUser(ctx, s)
			})
		}
		for range todo {
			<-done
		}
		b.mu.Lock()
		u.disc = nil
		u.found = ctx.Err() == nil
		close(ch)
		b.mu.Unlock()
		return context.Cause(ctx)
	}
}

// attachUser connects (or lists again over the shared connection) one of
// a user's instances and installs the outcome.
func (b *Bridge) attachUser(ctx context.Context, s *server) {
	s.dialMu.Lock()
	defer s.dialMu.Unlock()
	b.mu.Lock()
	l := s.link
	if l != nil && !(l.common.Load() && s.gen != s.base.gen) {
		b.mu.Unlock()
		return // connected meanwhile
	}
	gen := s.base.gen
	if l == nil {
		b.setStateLocked(s, Connecting, nil)
	}
	b.mu.Unlock()
	var a attempt
	if l != nil {
		a = b.listOver(ctx, s, l)
	} else {
		a = b.dial(ctx, s)
	}
	b.mu.Lock()
	closeLink, relist := b.installLocked(s, a)
	if a.err == nil {
		s.gen = gen
	}
	b.mu.Unlock()
	if closeLink != nil {
		_ = closeLink.conn.Close()
	}
	if relist {
		b.relist(s, a.link)
	}
}

// dialUser connects s, a user's instance, within ctx (acting for its
// user): over the connection every user shares when the server speaks
// 2026-07-28 over streamable HTTP and one is live, else a connection of
// its own, which becomes the shared one when it turns out to speak
// 2026-07-28 over streamable HTTP. The first connection of a server
// whose era is not known yet is made by one user at a time, so the era
// is found once. The user's tools are listed over whichever it is.
func (b *Bridge) dialUser(ctx context.Context, s *server) attempt {
	base := s.base
	if l := b.commonOf(base); l != nil {
		return b.listOver(ctx, s, l)
	}
	b.mu.Lock()
	era := base.era
	b.mu.Unlock()
	if era == "" {
		era, _ = b.protos.Get(base.cfg.protoKey())
	}
	if era == "" || base.cfg.transport() == TransportHTTP && mcpconn.IsModern(era) || base.cfg.allowsHTTPFallback() && mcpconn.IsModern(era) {
		base.commonMu.Lock()
		if l := b.commonOf(base); l != nil {
			base.commonMu.Unlock()
			return b.listOver(ctx, s, l)
		}
		l, err := b.connect(ctx, s)
		base.commonMu.Unlock()
		if err != nil {
			return attempt{err: err}
		}
		return b.listOver(ctx, s, l)
	}
	l, err := b.connect(ctx, s)
	if err != nil {
		return attempt{err: err}
	}
	return b.listOver(ctx, s, l)
}

// connect dials a connection for s, a user's instance, and learns the
// server's era from it. A connection of 2026-07-28 over streamable HTTP
// becomes the one every user of the server shares.
func (b *Bridge) connect(ctx context.Context, s *server) (*link, error) {
	base := s.base
	l := &link{}
	conn, err := mcpconn.Dial(ctx, b.spec(s, l))
	if err != nil {
		return nil, loginError(s, err)
	}
	l.conn = conn
	b.learnEra(base, conn.NextEra(), conn.Kind())
	if conn.Kind() == mcpconn.StreamableHTTP && mcpconn.IsModern(conn.ProtocolVersion()) {
		l.common.Store(true)
		b.mu.Lock()
		if b.closed {
			b.mu.Unlock()
			_ = conn.Close()
			return nil, ErrClosed
		}
		base.common = l
		b.mu.Unlock()
	}
	return l, nil
}

// learnEra records the era and transport a connection of base found,
// for every later connection of the server, whoever makes it; the
// protocol cache is written only when they change.
func (b *Bridge) learnEra(base *server, era string, via mcpconn.Kind) {
	b.mu.Lock()
	same := base.era == era && base.via == via
	base.era, base.via = era, via
	b.mu.Unlock()
	if !same {
		b.protos.Put(base.cfg.protoKey(), era, via)
	}
}

// commonOf returns the live connection every user of base shares, nil
// when there is none (one found dead is forgotten).
func (b *Bridge) commonOf(base *server) *link {
	b.mu.Lock()
	defer b.mu.Unlock()
	l := base.common
	if l == nil {
		return nil
	}
	if l.conn.Err() != nil {
		b.dropCommonLocked(base, l)
		return nil
	}
	return l
}

// dropCommonLocked forgets l, the shared connection of base, and closes it
// in the background.
func (b *Bridge) dropCommonLocked(base *server, l *link) {
	if base.common != l {
		return
	}
	base.common = nil
	b.bg.Go(func() { _ = l.conn.Close() })
}

// listOver lists the tools of s, a user's instance, over l, within ctx.
// Listings equal to one kept for another user share its tools (see
// catalog.go). On failure a connection of the user's own is closed.
func (b *Bridge) listOver(ctx context.Context, s *server, l *link) attempt {
	ctx = actingAs(ctx, s)
	fail := func(err error) attempt {
		if !l.common.Load() {
			_ = l.conn.Close()
		}
		return attempt{err: loginError(s, err)}
	}
	var listed []mcpconn.Tool
	if offersTools(l.conn) {
		var err error
		if listed, err = b.listTools(ctx, s, l.conn); err != nil {
			return fail(err)
		}
	}
	defs, lst := b.internDefs(s, listed)
	if len(defs) == 0 && !keepsWithoutTools(l.conn) {
		return fail(fmt.Errorf("mcp server %q: %w", s.cfg.Name, errNoTools))
	}
	return attempt{link: l, defs: defs, listing: lst, skipped: skippedOf(&s.cfg, l.conn)}
}

// commonLost handles the death of the connection every user of base
// shares: it is forgotten, and each user's next operation connects
// again.
func (b *Bridge) commonLost(base *server, l *link) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.dropCommonLocked(base, l)
}

// commonPromptsChanged handles a prompts list_changed on the connection
// every user of base shares: the notification comes once, to the
// connection's callbacks of the user who dialled it, yet every user's
// instance may hold a list read over it. Each is dropped, and read again
// at its user's next use.
func (b *Bridge) commonPromptsChanged(base *server) {
	b.mu.Lock()
	var lists []*promptList
	for _, u := range b.users {
		if s := u.inst[base]; s != nil {
			lists = append(lists, &s.prompts)
		}
	}
	b.mu.Unlock()
	for _, p := range lists {
		p.changed()
	}
	b.log.Info("mcp server prompts changed", "server", base.cfg.Name, "users", len(lists))
}

// commonToolsChanged handles a tools list_changed on the connection
// every user of base shares: the kept lists are forgotten, and each
// user's tools are listed again at the user's next operation.
func (b *Bridge) commonToolsChanged(base *server) {
	b.forgetTools(base)
	b.mu.Lock()
	base.gen++
	for _, u := range b.users {
		if s := u.inst[base]; s != nil && s.link != nil && s.link.common.Load() {
			u.found = false
		}
	}
	b.mu.Unlock()
}

// credsKey carries the credentials of the user instance an operation
// runs on, for userCreds.
type credsKey struct{}

// actingAs returns ctx for the requests of s: those of a user's instance
// name its user and carry its credentials (credsKey), so that over the
// connection every user shares they go out with that user's token, not
// with the token of the user whose call opened the connection.
func actingAs(ctx context.Context, s *server) context.Context {
	if s.base == nil {
		return ctx
	}
	return context.WithValue(WithUser(ctx, s.user), credsKey{}, s.creds)
}

// userCreds gives each request on a connection of a server whose
// credentials are each user's those of the request's user: the
// instance's the operation carries (credsKey), else those of the
// connection's pinned instance (its own requests: the listen stream,
// notifications), else none.
type userCreds struct {
	l *link
}

func (c userCreds) of(ctx context.Context) mcpconn.Authorizer {
	if a, ok := ctx.Value(credsKey{}).(mcpconn.Authorizer); ok {
		return a
	}
	if s := c.l.pin.Load(); s != nil {
		return s.creds
	}
	return noCreds{}
}

// noCreds sends a request without credentials: the requests of a shared
// connection's own (its listen stream) while no user is on it. No
// dropped user's token goes in their stead.
type noCreds struct{}

func (noCreds) Authorization(context.Context) (string, error)             { return "", nil }
func (noCreds) Unauthorized(context.Context, *http.Response, string) bool { return false }
func (noCreds) Accepted(context.Context)                                  {}

func (c userCreds) Authorization(ctx context.Context) (string, error) {
	return c.of(ctx).Authorization(ctx)
}

func (c userCreds) Unauthorized(ctx context.Context, resp *http.Response, sent string) bool {
	return c.of(ctx).Unauthorized(ctx, resp, sent)
}

func (c userCreds) Accepted(ctx context.Context) { c.of(ctx).Accepted(ctx) }

func (c userCreds) Forbidden(ctx context.Context, resp *http.Response, sent string) {
	if f, ok := c.of(ctx).(mcpconn.Forbidder); ok {
		f.Forbidden(ctx, resp, sent)
	}
}

func (c userCreds) DPoPProof(ctx context.Context, method string, u *url.URL, authorization string) (string, error) {
	if p, ok := c.of(ctx).(mcpconn.Prover); ok {
		return p.DPoPProof(ctx, method, u, authorization)
	}
	return "", nil
}

func (c userCreds) DPoPNonce(ctx context.Context, u *url.URL, resp *http.Response) bool {
	if p, ok := c.of(ctx).(mcpconn.Prover); ok {
		return p.DPoPNonce(ctx, u, resp)
	}
	return false
}

// errUntied refuses a server's question that cannot be tied to one user.
var errUntied = errors.New("the question cannot be tied to one user: it came on a connection several users share, while none or several of them had a request in flight there; refused rather than put to someone who may be the wrong person")

// questionUser returns ctx naming the user a question of a server (an
// elicitation, a sampling request, a roots request) that came on a
// connection l of s is for: the user ctx names (a question that came
// within a request carries it); else, on a user's own connection, that
// user; on a connection of a configured server, the one user with
// requests in flight on it, or "" on a Bridge used by no user. A
// question that cannot be tied to exactly one user (several users, or
// none on a Bridge for many, in flight; any question outside a request on
// the 2026-07-28 connection every user shares) is refused (errUntied).
func (b *Bridge) questionUser(ctx context.Context, s *server, l *link) (context.Context, error) {
	if UserOf(ctx) != "" {
		return ctx, nil
	}
	if l != nil && l.common.Load() {
		return nil, errUntied // every user's connection, and no call of one user asks
	}
	if s.base != nil {
		return WithUser(ctx, s.user), nil
	}
	b.mu.Lock()
	who, n := "", 0
	for id := range s.inflight {
		who = id
		n++
	}
	many := b.maxUsers > 0
	b.mu.Unlock()
	if n > 1 || who == "" && many {
		return nil, errUntied
	}
	return WithUser(ctx, who), nil
}

// noTokens is the token store of the Bridge's own login on a Bridge for
// many users: the user "" has no tokens there.
type noTokens struct{}

func (noTokens) Load(context.Context, auth.Key) (*auth.Token, error) { return nil, nil }
func (noTokens) Save(context.Context, auth.Key, *auth.Token) error   { return nil }
func (noTokens) Delete(context.Context, auth.Key) error              { return nil }

// goneLocked reports whether s is the instance of a user who was evicted
// (a connection made for it meanwhile is closed, not installed).
func (b *Bridge) goneLocked(s *server) bool {
	if s.base == nil {
		return false
	}
	u := b.users[s.user]
	return u == nil || u.inst[s.base] != s
}

// askedElicit returns the elicitation hook of a connection of s, putting
// each question to the user it is for (see questionUser).
func (b *Bridge) askedElicit(s *server, l *link, ask func(context.Context, mcp.ElicitationParams) (mcp.ElicitationResponse, error)) func(context.Context, mcp.ElicitationParams) (mcp.ElicitationResponse, error) {
	return func(ctx context.Context, p mcp.ElicitationParams) (mcp.ElicitationResponse, error) {
		ctx, err := b.questionUser(ctx, s, l)
		if err != nil {
			b.log.Info("mcp server question refused", "server", s.cfg.Name, "err", err)
			return mcp.ElicitationResponse{}, err
		}
		return ask(ctx, p)
	}
}

// askedSample returns the sampling hook of a connection of s (nil when
// sampling is off), answering each request for the user it is for (see
// questionUser).
func (b *Bridge) askedSample(s *server, l *link, sample func(context.Context, string, json.RawMessage) (json.RawMessage, error)) func(context.Context, string, json.RawMessage) (json.RawMessage, error) {
	if sample == nil {
		return nil
	}
	return func(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
		ctx, err := b.questionUser(ctx, s, l)
		if err != nil {
			b.log.Info("mcp server sampling request refused", "server", s.cfg.Name, "err", err)
			return nil, &rpcerr.Error{Code: rpcerr.Rejected, Message: err.Error(), Err: err}
		}
		return sample(ctx, method, params)
	}
}
