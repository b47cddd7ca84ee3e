package mcpbridge

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpgenai/bridge/mcpbridge/internal/login"
	"github.com/mcpgenai/bridge/mcpbridge/internal/mcpconn"
	"github.com/mcpgenai/bridge/mcpbridge/internal/secrets"
	"github.com/mcpgenai/bridge/mcpbridge/internal/skills"
)

// server is one configured server and its connection. Fields after dialMu
// are guarded by Bridge.mu.
type server struct {
	cfg   ServerConfig
	redac *secrets.Keyring // the server's secrets, learned credentials included
	// subs counts the resource subscriptions per URI (under the Bridge's
	// mu), made again on each new connection.
	subs map[string]int

	// questions bound the server's questions per call and per minute,
	// across its connections.
	questions *mcpconn.Questions

	// dialMu is held while connecting (discovery or reconnect), so a server
	// has at most one attempt under way.
	dialMu sync.Mutex

	state ServerState
	link  *link // the current connection; nil when disconnected
	err   error // the last error; nil when none
	// stderr is the stderr tail of the last connection that ended.
	stderr string
	// defs are the server's tools as last listed (after filters), in the
	// server's order; they stay after the server dies.
	defs []*toolDef
	// skipped are the tools the last listing left out (see DroppedTool).
	skipped []DroppedTool
	// lastReconnect is when the last reconnect on use began; zero before.
	lastReconnect time.Time
	// kept is the tools list kept while its server says it is fresh
	// (see toolcache.go).
	kept keptTools
	// ownLists: the last listing of a user's instance of this server
	// (configured, per-user) said each user's list is the user's own;
	// the shared cache holds no list for it (see toolcache.go).
	ownLists bool
	// firstList (configured, per-user) is closed when the listing under
	// way that will say whether the server's list is every user's ends;
	// nil when none is (see toolcache.go).
	firstList chan struct{}

	// creds give the server's HTTP requests their credentials; login is
	// the OAuth login among them. Both nil when the server needs neither.
	creds mcpconn.Authorizer
	login *login.Client
	// skills are the server's skills as last listed, and loadedSkills
	// those read (by SKILL.md URI), with the entry each was loaded with
	// (see skills.go).
	skills       []skills.Entry
	loadedSkills map[string]skills.Entry
	// instructions are what the last connection's server said in
	// initialize; they stay after the server dies.
	instructions string
	// icons are the server's own, from the last connection.
	icons []Icon
	// era and via are the protocol version and transport of the last
	// connection that worked, so that a reconnect goes straight to them;
	// "" and the zero Kind when unknown. A failed attempt forgets them.
	era string
	via mcpconn.Kind
	// prompts is the prompt list of the current connection.
	prompts promptList

	// base is, for a user's instance of a server whose credentials are
	// each user's (see users.go), the configured server; nil for the
	// configured server itself, which serves the user "" and, unless
	// perUser, every user. user is whose instance it is.
	base *server
	user string
	// lsh is what the logins of the server for every user share, and
	// loginCfg the configuration a user's login is made from; nil and
	// zero unless the server's credentials may be each user's.
	lsh      *login.Shared
	loginCfg login.Config
	// perUser (configured server): its credentials are each user's
	// (see Bridge.perUserLocked); set once, never cleared.
	perUser bool
	// common (configured server) is the connection every user's instance
	// shares: 2026-07-28 over streamable HTTP, each request carrying its
	// own user's token. commonMu is held while the first connection of
	// the server for any user is made (see dialUser). gen counts the
	// tools list_changed of the shared connections; an instance whose
	// gen differs lists its tools again.
	common   *link
	commonMu sync.Mutex
	gen      int
	// listing (user's instance) is the interned tools list it holds.
	listing *listing
	// inflight (configured server) counts the operations in flight on
	// it per user, to tie a server's question to the one user asking
	// (see questionUser).
	inflight map[string]int
}

// link is one connection of a server. Callbacks of the connection refer to
// it, so that events of an old connection are recognised and ignored.
type link struct {
	conn *mcpconn.Conn
	// changed records a list_changed that came before the link was
	// installed; installing it then re-lists.
	changed atomic.Bool
	// common marks the connection every user of a server shares (see
	// server.common): a user's instance never closes it.
	common atomic.Bool
	// pin is the user's instance whose credentials the connection's own
	// requests carry (the subscriptions/listen stream, notifications) on
	// a server whose credentials are each user's: the instance that
	// dialled it, then, on the connection every user shares, another
	// user's on it once that user is dropped (see repinLocked); nil when
	// no user is on it, and the next to come is pinned.
	pin atomic.Pointer[server]
}

// spec returns how to reach s through mcpconn; callbacks go to b for l.
func (b *Bridge) spec(s *server, l *link) mcpconn.Spec {
	cfg := &s.cfg
	sp := mcpconn.Spec{
		Name:            cfg.Name,
		Timeout:         cfg.effectiveTimeout(),
		MaxCallTime:     cfg.effectiveMaxCallTime(),
		DiscoverProbe:   b.hooks.discoverProbe,
		Logger:          b.log,
		MaxMessageBytes: b.maxMsg,
		Tracer:          b.tracer,
		OnToolsChanged: func() {
			if s.base != nil && l.common.Load() {
				b.commonToolsChanged(s.base)
				return
			}
			b.toolsChanged(s, l)
		},
		OnPromptsChanged: func() {
			if s.base != nil && l.common.Load() {
				b.commonPromptsChanged(s.base)
				return
			}
			b.promptsChanged(s, l)
		},
		OnNextEra: func(version string) {
			b.nextEra(s, l, version)
		},
		OnClose: func(err error) {
			if s.base != nil && l.common.Load() {
				b.commonLost(s.base, l)
				return
			}
			b.lost(s, l, err)
		},
		Sample:             b.askedSample(s, l, b.sampleFor(cfg.Name)),
		Roots:              b.rootsFunc(s, l),
		LogLevel:           mcp.LoggingLevel(b.logLevel),
		OnLog:              b.logFor(cfg.Name, s.user, l),
		OnResourceUpdated:  func(uri string) { b.resourceUpdated(s, l, uri) },
		OnResourcesChanged: func() { b.resourcesChanged(s, l) },
		Subscriptions:      b.subscriptionsOf(s),
		Questions:          s.questions,
		Tasks:              b.tasks,
		QuestionBytes:      b.questionBytes(),
		Outgoing:           b.redact,
	}
	if b.elicit != nil {
		sp.Elicit = b.askedElicit(s, l, elicitFor(cfg.Name, b.elicit))
	}
	switch cfg.Protocol {
	case "legacy":
		sp.Protocol = mcpconn.ProtocolLegacy
	case "modern":
		sp.Protocol = mcpconn.ProtocolModern
	}
	switch cfg.transport() {
	case TransportStdio:
		sp.Kind = mcpconn.Stdio
		sp.Command, sp.Args, sp.Dir = cfg.Command, cfg.Args, cfg.Cwd
		sp.Env = cfg.childEnv(os.Environ(), b.cfg.InheritSecretEnv)
	case TransportSSE:
		sp.Kind = mcpconn.SSE
		if cfg.allowsHTTPFallback() {
			sp.Kind = mcpconn.Auto
		}
	case TransportHTTP:
		sp.Kind = mcpconn.StreamableHTTP
	}
	if sp.Kind != mcpconn.Stdio {
		sp.URL, sp.Headers = cfg.endpoint(), cfg.Headers
		sp.Auth = s.creds
		if s.base != nil {
			l.pin.Store(s)
			sp.Auth = userCreds{l: l}
		}
		if cfg.OAuth != nil {
			sp.TokenParam = cfg.OAuth.TokenParamName
		}
	}
	k := s
	if s.base != nil {
		k = s.base // every user's connections use what the first found
	}
	b.mu.Lock()
	era, via := k.era, k.via
	b.mu.Unlock()
	if era == "" {
		era, via = b.protos.Get(cfg.protoKey())
	}
	sp.Era = era
	if sp.Kind == mcpconn.Auto && (via == mcpconn.SSE || via == mcpconn.StreamableHTTP) {
		sp.Kind = via
	}
	return sp
}

// attempt is the outcome of one connection attempt.
type attempt struct {
	link    *link
	defs    []*toolDef
	listing *listing // a user's instance's interned list (see catalog.go)
	skipped []DroppedTool
	err     error
}

// dial connects to s, lists its tools page by page and converts them, and
// keeps its prompt list (a failure there is only logged), within ctx;
// connecting and each page are bounded by the server's timeout.
// A server without tools after the filters that offers no prompts or
// resources either is closed and reported with errNoTools. On error
// nothing is left running.
func (b *Bridge) dial(ctx context.Context, s *server) (a attempt) {
	if err := ctx.Err(); err != nil {
		return attempt{err: fmt.Errorf("mcp server %q: not connected: %w", s.cfg.Name, context.Cause(ctx))}
	}
	// A user's instance acts for its user; a server all users share, and
	// the Bridge's own connections, for none.
	ctx = WithUser(ctx, s.user)
	ctx, end := b.startConnectSpan(ctx, s)
	defer func() { end(a.err) }()
	if s.base != nil {
		return b.dialUser(ctx, s)
	}
	l := &link{}
	conn, err := mcpconn.Dial(ctx, b.spec(s, l))
	if err != nil {
		b.protos.Put(s.cfg.protoKey(), "", 0)
		return attempt{err: loginError(s, err)}
	}
	b.protos.Put(s.cfg.protoKey(), conn.NextEra(), conn.Kind())
	l.conn = conn
	var listed []mcpconn.Tool
	if offersTools(conn) {
		listed, err = b.listTools(ctx, s, conn)
		if err != nil {
			_ = conn.Close()
			return attempt{err: loginError(s, err)}
		}
	}
	defs := convertTools(&s.cfg, listed, b.schemaOptions(), b.log)
	if len(defs) == 0 && !keepsWithoutTools(conn) {
		_ = conn.Close()
		return attempt{err: fmt.Errorf("mcp server %q: %w", s.cfg.Name, errNoTools)}
	}
	if _, err := b.promptsOver(ctx, s, conn); err != nil {
		b.log.Warn("mcp server prompts could not be listed; listing them again on use",
			"server", s.cfg.Name, "err", s.redac.Text(err.Error()))
	}
	return attempt{link: l, defs: defs, skipped: skippedOf(&s.cfg, conn)}
}

// installLocked records the outcome of an attempt on s: on success the link
// becomes current, the tools are registered and s is Connected; on failure s
// is Disconnected with the error and its earlier tools, if any, stay
// registered. A link whose connection died meanwhile, or any link once the
// Bridge is closed, is closed instead. It returns a link to close (outside
// b.mu) and whether a list_changed came before installation.
func (b *Bridge) installLocked(s *server, a attempt) (closeLink *link, relist bool) {
	if a.err == nil && (b.closed || b.goneLocked(s)) {
		a = attempt{link: a.link, err: ErrClosed}
	} else if a.err == nil {
		if err := a.link.conn.Err(); err != nil {
			a = attempt{link: a.link, err: err}
		}
	}
	if a.err != nil {
		if a.link != nil {
			s.stderr = a.link.conn.Stderr()
			if !a.link.common.Load() {
				closeLink = a.link
			}
		} else if tail := mcpconn.StderrOf(a.err); tail != "" {
			s.stderr = tail
		}
		if errors.Is(a.err, errNoTools) {
			b.setToolsLocked(s, nil, nil)
		} else if s.base == nil {
			s.era, s.via = "", 0 // a user's failure teaches nothing of the server
		}
		b.setStateLocked(s, Disconnected, a.err)
		return closeLink, false
	}
	if old := s.link; old != nil && old != a.link && !old.common.Load() {
		closeLink = old
	}
	s.link = a.link
	if s.base != nil {
		a.link.pin.CompareAndSwap(nil, s) // a user on the shared connection again
	}
	s.stderr = ""
	s.instructions = a.link.conn.Instructions()
	s.icons = serverIcons(a.link.conn.ServerIcons())
	if s.base == nil {
		s.era, s.via = a.link.conn.NextEra(), a.link.conn.Kind()
	}
	b.setToolsLocked(s, a.defs, a.listing)
	b.setSkippedLocked(s, a.skipped)
	b.setStateLocked(s, Connected, nil)
	return nil, a.link.changed.Load()
}

// setStateLocked changes the state of s and emits the event.
func (b *Bridge) setStateLocked(s *server, st ServerState, err error) {
	s.state, s.err = st, err
	log := b.log
	if s.user != "" {
		log = log.With("user", s.user)
	}
	if err != nil {
		log.Warn("mcp server disconnected", "server", s.cfg.Name, "err", s.redac.Text(err.Error()))
	} else {
		log.Debug("mcp server state", "server", s.cfg.Name, "state", st)
	}
	b.emitLocked(Event{Kind: EventServerState, Server: s.cfg.Name, User: s.user, State: st, Err: err})
}

// lost handles the death of a connection (mcpconn's OnClose, on the
// connection's event goroutine): the server becomes Disconnected with the
// error and its tools stay registered, so the next call reconnects. The
// connection is closed on a goroutine of its own, since Close waits for the
// goroutine running this.
func (b *Bridge) lost(s *server, l *link, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if s.link != l || b.closed {
		return
	}
	b.dropLinkLocked(s, err)
}

// dropLinkLocked closes the current link of s in the background and marks s
// Disconnected with err.
func (b *Bridge) dropLinkLocked(s *server, err error) {
	l := s.link
	s.link = nil
	s.stderr = l.conn.Stderr()
	b.setStateLocked(s, Disconnected, err)
	if l.common.Load() {
		b.dropCommonLocked(s.base, l)
		return
	}
	b.bg.Add(1)
	go func() {
		defer b.bg.Done()
		_ = l.conn.Close()
	}()
}

// nextEra records that s, connected over l (a stdio link) with the
// handshake, answered server/discover late: its reconnects and, with a
// protocol cache, later runs ask the 2026-07-28 way first.
func (b *Bridge) nextEra(s *server, l *link, version string) {
	b.mu.Lock()
	if s.link == l {
		s.era = version
		if s.base != nil {
			s.base.era = version
		}
	}
	b.mu.Unlock()
	b.protos.Put(s.cfg.protoKey(), version, mcpconn.Stdio)
}

// toolsChanged handles notifications/tools/list_changed (on the
// connection's event goroutine; mcpconn coalesces them): it re-lists the
// server's tools and re-registers them. A failed re-list keeps the old
// tools. An empty list unregisters the tools but keeps the connection, so
// a later notification can bring tools back.
func (b *Bridge) toolsChanged(s *server, l *link) {
	b.mu.Lock()
	installed := s.link == l && !b.closed
	if !installed {
		l.changed.Store(true)
	}
	b.mu.Unlock()
	b.forgetTools(s)
	if installed {
		b.relist(s, l)
	}
}

// relist re-reads the tools of s over l and registers them.
func (b *Bridge) relist(s *server, l *link) {
	ctx, cancel := context.WithTimeout(actingAs(b.life, s), s.cfg.effectiveTimeout())
	defer cancel()
	listed, err := l.conn.ListTools(ctx)
	if err != nil {
		b.log.Warn("mcp server tools changed, but listing them failed; keeping the old list",
			"server", s.cfg.Name, "err", s.redac.Text(err.Error()))
		return
	}
	b.keepTools(s, l.conn, listed)
	defs, lst := b.internDefs(s, listed)
	b.mu.Lock()
	defer b.mu.Unlock()
	if s.link != l || b.closed {
		return
	}
	b.log.Info("mcp server tools changed", "server", s.cfg.Name, "tools", len(defs))
	b.setToolsLocked(s, defs, lst)
	b.setSkippedLocked(s, skippedOf(&s.cfg, l.conn))
}
