package mcpbridge

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mcpgenai/bridge/mcpbridge/internal/login"
)

// One Bridge serves many users: the context of each operation names the
// user it acts for (WithUser), and the Bridge keeps apart what belongs to
// each while sharing the rest.
//
//   - Shared: stdio servers and every server whose credentials are not a
//     user's (static headers, Google credentials, the grants of a
//     service): one process or connection, one tools list, one set of
//     names. Protocol knowledge (era and transport) is found once per
//     server and kept for every user.
//   - Per user: for a remote server whose requests carry a user's OAuth
//     token (see perUserLocked), each user has an instance of the server
//     (server.base points to the configured one): their own login (tokens
//     and registered clients kept under their name), login state and
//     step-up, tools list and, before protocol 2026-07-28, their own
//     connection (the session is the user's). On 2026-07-28 over
//     streamable HTTP one connection (server.common) carries every user's
//     requests, each with its own user's token (userCreds). Identical
//     tools lists are kept once (see catalog.go). Roots are per user too.
//
// A user's state lives while the user is active and Options.UserIdle
// after, then it is dropped (its connections closed; tokens stay in the
// store). Options.MaxUsers caps how many users have state at once.

// userKey is the context key of the user an operation acts for.
type userKey struct{}

// WithUser returns a copy of ctx whose operations act for the user id:
// the host's own identifier of the person (a database key, an email
// address; it appears in no request, only in token store keys, logs and
// events). [Bridge.Execute], [Bridge.Declare] and the [Declarations]'
// calls, [Bridge.Login], [Bridge.SetRoots], prompts, resources, skills
// and completions then use that user's logins, tokens, connections
// (where a server keeps a session), tools lists and roots, and the host's
// callbacks asked during them (elicitation, sampling, the login URL)
// receive a context carrying the same user ([UserOf]). "" is the one user
// of a Bridge used without WithUser.
func WithUser(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, userKey{}, id)
}

// UserOf returns the user ctx acts for (see [WithUser]), "" when it names
// none. The contexts the Bridge gives the host's callbacks name the user
// whose operation asks.
func UserOf(ctx context.Context) string {
	id, _ := ctx.Value(userKey{}).(string)
	return id
}

// ErrNoUser is wrapped by the error of an operation on a Bridge for many
// users ([Options.MaxUsers] above zero) whose context names no user: such
// a Bridge never acts for a shared default user.
var ErrNoUser = errors.New("no user: the Bridge serves many users (Options.MaxUsers), and the operation's context names none (mcpbridge.WithUser)")

// ErrTooManyUsers is wrapped by the error of an operation of a new user
// when the Bridge already serves [Options.MaxUsers] users and every one of
// them has an operation in flight (a user without one makes room).
var ErrTooManyUsers = errors.New("too many users")

// defaultUserIdle is how long an idle user's state lives when
// Options.UserIdle is zero.
const defaultUserIdle = 10 * time.Minute

// userState is what a Bridge keeps for one user (not for "", whose state
// is the Bridge's own). Fields are guarded by Bridge.mu.
type userState struct {
	id string
	// inst holds the user's instance of each configured server whose
	// credentials are each user's.
	inst map[*server]*server
	// roots are the user's roots; nil: the Bridge's.
	roots *rootSet
	// cat is the user's tools; nil until catalogLocked builds it.
	cat *catalog
	// busy counts the operations in flight; last is when the last ended.
	busy int
	last time.Time
	// idle evicts the user once idle; nil while busy.
	idle *time.Timer
	// disc is closed when the discovery of the user's servers under way
	// ends; nil when none is. found: one ended without being cut short.
	disc  chan struct{}
	found bool
	// gone: the user was evicted; its instances are closed.
	gone bool
}

// enterLocked counts an operation of the user of ctx and returns the
// user's state: nil for "" (the Bridge's own state). A Bridge for many
// users refuses "" ([ErrNoUser]); at [Options.MaxUsers] a new user makes
// the longest-idle one leave, or is refused ([ErrTooManyUsers]). Each
// successful enter is matched by leaveLocked.
func (b *Bridge) enterLocked(ctx context.Context) (*userState, error) {
	if b.closed {
		return nil, ErrClosed
	}
	id := UserOf(ctx)
	if id == "" {
		if b.maxUsers > 0 {
			return nil, ErrNoUser
		}
		return nil, nil
	}
	u := b.users[id]
	if u == nil {
		if b.maxUsers > 0 && len(b.users) >= b.maxUsers && !b.evictIdlestLocked() {
			return nil, fmt.Errorf("%w: %d users are served, each with an operation in flight (Options.MaxUsers)", ErrTooManyUsers, len(b.users))
		}
		u = &userState{id: id, inst: map[*server]*server{}}
		b.users[id] = u
	}
	u.busy++
	if u.idle != nil {
		u.idle.Stop()
		u.idle = nil
	}
	return u, nil
}

// enter is enterLocked taking b.mu.
func (b *Bridge) enter(ctx context.Context) (*userState, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.enterLocked(ctx)
}

// leaveLocked ends an operation of u (nil: nothing): the last one arms
// the user's eviction after Options.UserIdle.
func (b *Bridge) leaveLocked(u *userState) {
	if u == nil {
		return
	}
	u.busy--
	u.last = time.Now()
	if u.busy > 0 || u.gone || b.closed {
		return
	}
	u.idle = time.AfterFunc(b.userIdle, func() { b.evictIdle(u) })
}

// leave is leaveLocked taking b.mu.
func (b *Bridge) leave(u *userState) {
	if u == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.leaveLocked(u)
}

// evictIdle drops u when it is still idle (its timer fired).
func (b *Bridge) evictIdle(u *userState) {
	b.mu.Lock()
	if b.closed || u.gone || u.busy > 0 || time.Since(u.last) < b.userIdle {
		b.mu.Unlock()
		return
	}
	b.bg.Add(1) // before Close's wait: Close sets closed under mu first
	links := b.evictLocked(u)
	b.mu.Unlock()
	defer b.bg.Done()
	closeLinks(links)
}

// evictIdlestLocked drops the user idle longest to make room for another,
// reporting false when every user is busy. Its connections close in the
// background.
func (b *Bridge) evictIdlestLocked() bool {
	var idlest *userState
	for _, u := range b.users {
		if u.busy == 0 && (idlest == nil || u.last.Before(idlest.last)) {
			idlest = u
		}
	}
	if idlest == nil {
		return false
	}
	links := b.evictLocked(idlest)
	b.bg.Go(func() { closeLinks(links) })
	return true
}

// evictLocked forgets u: its instances become Disconnected, their own
// connections are returned for closing (a connection all users share
// stays), and what it held of the shared catalogs and listings is
// released.
func (b *Bridge) evictLocked(u *userState) []*link {
	u.gone = true
	if u.idle != nil {
		u.idle.Stop()
		u.idle = nil
	}
	delete(b.users, u.id)
	b.releaseCatalogLocked(u)
	b.retireLocked(u)
	var links []*link
	for base, s := range u.inst {
		if s.link != nil {
			if !s.link.common.Load() {
				links = append(links, s.link)
			} else {
				b.repinLocked(u, s)
			}
			s.link = nil
			b.setStateLocked(s, Disconnected, nil)
		}
		b.setListingLocked(s, nil)
		delete(u.inst, base)
	}
	b.log.Debug("mcp user state dropped", "user", u.id)
	return links
}

// repinLocked hands the shared connection of s (u's instance, u being
// dropped) from s to another user's instance on it, when s was its pin:
// the connection's own requests then carry that user's credentials, never
// those of a user the Bridge dropped. With no other user on it, none
// (the next user on it is pinned when installed).
func (b *Bridge) repinLocked(u *userState, s *server) {
	l := s.link
	if l.pin.Load() != s {
		return
	}
	var next *server
	for _, o := range b.users {
		if o == u {
			continue
		}
		if in := o.inst[s.base]; in != nil && in.link == l {
			next = in
			break
		}
	}
	l.pin.CompareAndSwap(s, next)
}

// closeLinks closes each link's connection, concurrently.
func closeLinks(links []*link) {
	done := make(chan struct{}, len(links))
	for _, l := range links {
		go func() {
			_ = l.conn.Close()
			done <- struct{}{}
		}()
	}
	for range links {
		<-done
	}
}

// perUserLocked reports whether the credentials of s (a configured
// server) are each user's: a remote server that may ask for an OAuth
// login made by a person (no grant of the service's), configured with
// an oauth entry or seen asking for a token (a 401). Such a server gets
// an instance per user. A change (the first 401 of a server without an
// oauth entry) drops the users' catalogs, which then leave out the
// tools the server listed for no user.
func (b *Bridge) perUserLocked(s *server) bool {
	if !s.perUser && s.lsh != nil && (s.cfg.OAuth != nil || s.lsh.Asked()) {
		b.markPerUserLocked(s)
	}
	return s.perUser
}

// markPerUserLocked makes s, a server whose credentials may be each
// user's, one whose credentials are (see perUserLocked): a user's login
// there does too.
func (b *Bridge) markPerUserLocked(s *server) {
	if s.perUser || s.lsh == nil {
		return
	}
	s.perUser = true
	for _, u := range b.users {
		u.found = false
		b.releaseCatalogLocked(u)
	}
}

// perUserCapable reports whether the credentials of cfg may be each
// user's: remote, OAuth, and no grant that gets the service's own
// tokens.
func perUserCapable(cfg *ServerConfig) bool {
	if !cfg.usesOAuth() {
		return false
	}
	return cfg.OAuth == nil || cfg.OAuth.GrantType == "" || cfg.OAuth.GrantType == "authorization_code"
}

// instanceLocked returns u's instance of the configured server base,
// making it (and the user's login for it) on first use.
func (b *Bridge) instanceLocked(u *userState, base *server) *server {
	if s := u.inst[base]; s != nil {
		return s
	}
	s := &server{cfg: base.cfg, redac: base.redac, base: base, user: u.id, questions: base.questions.Fresh()}
	lc := base.loginCfg
	lc.User = u.id
	lc.Learn = b.learner(base, u.id, "login")
	c := login.New(lc)
	s.login = c
	s.creds = learning(c, b.learner(base, u.id, "auth"))
	u.inst[base] = s
	return s
}

// serverAt returns the server an operation of ctx's user on the named one
// reaches: the user's instance where credentials are each user's, else
// the configured server; nil when none has the name. The caller has
// entered ctx's user (see enterLocked), so that it stays.
func (b *Bridge) serverAt(ctx context.Context, name string) *server {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.byName[name]
	if s == nil {
		return nil
	}
	if u := b.users[UserOf(ctx)]; u != nil && UserOf(ctx) != "" && b.perUserLocked(s) {
		return b.instanceLocked(u, s)
	}
	return s
}

// connectedLocked returns the names of the servers connected for u (nil:
// the user ""), in configuration order: u's instances where credentials
// are each user's, the configured servers elsewhere.
func (b *Bridge) connectedLocked(u *userState) []string {
	var names []string
	for _, s := range b.servers {
		if u != nil && b.perUserLocked(s) {
			s = b.instanceLocked(u, s)
		}
		if s.link != nil {
			names = append(names, s.cfg.Name)
		}
	}
	return names
}

// userView returns the tools u sees, once its servers whose credentials
// are each user's have been connected and listed for it (discoverUser).
// A discovery cut short by ctx is an error; one that failed for some
// servers is not (their tools are missing, as after Discover).
func (b *Bridge) userView(ctx context.Context, u *userState) (toolView, error) {
	if err := b.discoverUser(ctx, u, false); err != nil {
		return toolView{}, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.viewLocked(u), nil
}

// hasTool reports whether a tool is registered under name for ctx's user.
func (b *Bridge) hasTool(ctx context.Context, name string) bool {
	u, err := b.enter(ctx)
	if err != nil {
		return false
	}
	if u == nil {
		_, ok := b.Tool(name)
		return ok
	}
	defer b.leave(u)
	view, err := b.userView(ctx, u)
	if err != nil {
		return false
	}
	_, ok := view.tools[name]
	return ok
}
