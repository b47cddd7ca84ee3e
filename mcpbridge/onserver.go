package mcpbridge

// An operation on a server: the connection made ready (reconnecting on
// use), the operation bounded by the Bridge's life and the server's
// timeout, and run for the user of its context.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mcpgenai/bridge/mcpbridge/internal/lifespan"
	"github.com/mcpgenai/bridge/mcpbridge/internal/mcpconn"
)

// ready returns a live connection to s, reconnecting when s is
// disconnected. Reconnecting on use is rate-limited: within
// ReconnectInterval of the last reconnect it fails at once with
// [ErrNotConnected] and the last error. The reconnect runs within ctx
// (which the caller bounds by the Bridge's life) and the server's timeout,
// re-lists the tools and re-registers them.
func (b *Bridge) ready(ctx context.Context, s *server) (*mcpconn.Conn, error) {
	if c, err := b.current(s); c != nil || err != nil {
		return c, err
	}
	s.dialMu.Lock()
	defer s.dialMu.Unlock()
	if c, err := b.current(s); c != nil || err != nil {
		return c, err
	}
	b.mu.Lock()
	if since := time.Since(s.lastReconnect); !s.lastReconnect.IsZero() && since < b.interval {
		last := s.err
		if last == nil {
			last = errors.New("no connection")
		}
		b.mu.Unlock()
		return nil, fmt.Errorf("mcp server %q: %w (last reconnect %v ago, next allowed after %v): %w",
			s.cfg.Name, ErrNotConnected, since.Round(time.Millisecond), b.interval, last)
	}
	s.lastReconnect = time.Now()
	b.setStateLocked(s, Connecting, nil)
	b.mu.Unlock()

	b.log.Info("mcp server reconnecting", "server", s.cfg.Name)
	return b.redial(ctx, s)
}

// redial connects s again for [Bridge.ready] and [Bridge.Login], which
// hold s.dialMu and have set s [Connecting]: it dials, installs the new
// link (closing the one it replaces), and re-lists the tools when the
// listing of the new connection says to.
func (b *Bridge) redial(ctx context.Context, s *server) (*mcpconn.Conn, error) {
	a := b.dial(ctx, s)
	b.mu.Lock()
	closeLink, relist := b.installLocked(s, a)
	b.mu.Unlock()
	if closeLink != nil {
		_ = closeLink.conn.Close()
	}
	if a.err != nil {
		return nil, a.err
	}
	if relist {
		b.relist(s, a.link)
	}
	return a.link.conn, nil
}

// current returns the live connection of s, or (nil, nil) when s must be
// (re)connected, or ErrClosed. A connection found dead is dropped.
func (b *Bridge) current(s *server) (*mcpconn.Conn, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, ErrClosed
	}
	if s.link == nil {
		return nil, nil
	}
	if err := s.link.conn.Err(); err != nil {
		b.dropLinkLocked(s, err)
		return nil, nil
	}
	return s.link.conn, nil
}

// callTool calls tool (the server's own name) on server with args and
// returns the raw CallToolResult JSON, through onServer: a disconnected
// server is reconnected first, and a call is never replayed once it may
// have reached the server. The call is bounded by ctx and the server's
// timeout.
func (b *Bridge) callTool(ctx context.Context, serverName, tool string, args any) (json.RawMessage, error) {
	ctx, stop := b.bounded(ctx)
	defer stop()
	return b.callToolBounded(ctx, nil, nil, serverName, tool, args, false)
}

// callToolBounded is callTool within ctx that the caller has already
// bounded by the Bridge's life (see [Bridge.within]). cancel, when not nil,
// ends ctx: the connection then uses ctx as the call's own context (see
// [mcpconn.Conn.CallToolIn]). task calls a tool that may run as a task
// (see [mcpconn.Conn.CallTask]). cc, when not nil, is the call's context
// to be (its Context is set to ctx), with the context ctx was bounded
// from, in which a task the server makes of the call is waited out (see
// callContext).
func (b *Bridge) callToolBounded(ctx context.Context, cc *callContext, cancel context.CancelFunc, serverName, tool string, args any, task bool) (json.RawMessage, error) {
	var raw json.RawMessage
	if cc == nil {
		cc = &callContext{call: elicitCall{tool: tool}}
	}
	cc.Context = ctx
	ctx = cc
	retried := false
	call := func(ctx context.Context, conn *mcpconn.Conn) (err error) {
		for {
			if task {
				raw, err = conn.CallTask(ctx, tool, args)
			} else {
				raw, err = conn.CallToolIn(ctx, cancel, tool, args)
			}
			if err == nil || retried {
				return err
			}
			var again bool
			if again, err = b.urlRequired(ctx, serverName, tool, conn, err); !again {
				return err
			}
			retried = true // once: the page was visited
		}
	}
	return raw, b.redact.redactErr(b.onBoundedServer(ctx, serverName, call))
}

// onServer runs op on a live connection to the named server, counted as an
// operation that Close waits for and bounded by ctx and the Bridge's life.
// A disconnected server is reconnected first (see ready). When op fails
// because the connection died, the connection is dropped at once (not at
// OnClose), and op is not run again: a request that may have reached the
// server is never replayed. The one exception is a request found
// unsendable because the server had died unnoticed (mcpconn.ErrNotSent):
// it never left, so op runs once more on a new connection. The error is
// redacted.
func (b *Bridge) onServer(ctx context.Context, name string, op func(context.Context, *mcpconn.Conn) error) error {
	return b.redact.redactErr(b.onServerRaw(ctx, name, op))
}

// onServerAt is onServer for an op that needs the server it runs on: the
// user's instance (see users.go) or the configured server.
func (b *Bridge) onServerAt(ctx context.Context, name string, op func(context.Context, *server, *mcpconn.Conn) error) error {
	ctx, stop := b.bounded(ctx)
	defer stop()
	return b.redact.redactErr(b.onBoundedInstance(ctx, name, op))
}

// onServerRaw is onServer before the error's redaction.
func (b *Bridge) onServerRaw(ctx context.Context, name string, op func(context.Context, *mcpconn.Conn) error) error {
	ctx, stop := b.bounded(ctx)
	defer stop()
	return b.onBoundedServer(ctx, name, op)
}

// onBoundedServer is onServerRaw within ctx that the caller has already
// bounded by the Bridge's life.
func (b *Bridge) onBoundedServer(ctx context.Context, name string, op func(context.Context, *mcpconn.Conn) error) error {
	return b.onBoundedInstance(ctx, name, func(ctx context.Context, _ *server, conn *mcpconn.Conn) error { return op(ctx, conn) })
}

// onBoundedInstance is onBoundedServer for an op that needs the server it
// runs on: a user's instance (see users.go) or the configured server.
func (b *Bridge) onBoundedInstance(ctx context.Context, name string, op func(context.Context, *server, *mcpconn.Conn) error) error {
	s, u, err := b.use(ctx, name)
	if err != nil {
		return err
	}
	defer b.done(s, u)
	ctx = actingAs(ctx, s)
	for attempt := 0; ; attempt++ {
		conn, err := b.ready(ctx, s)
		if err != nil {
			return err
		}
		err = op(ctx, s, conn)
		if err != nil && conn.Err() != nil {
			_, _ = b.current(s)
		}
		if err != nil {
			err = loginError(s, err)
		}
		if attempt == 0 && errors.Is(err, mcpconn.ErrNotSent) && ctx.Err() == nil {
			continue
		}
		return err
	}
}

// use looks up a server for an operation of ctx's user and counts the
// operation, so Close waits for it and the user stays: the user's
// instance of a server whose credentials are each user's (see users.go),
// else the configured server, which counts the operation per user (see
// questionUser). Unless it fails, b.done(s, u) must be called when the
// operation ends (a method value returned instead would cost an
// allocation per call).
func (b *Bridge) use(ctx context.Context, name string) (*server, *userState, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	u, err := b.enterLocked(ctx)
	if err != nil {
		return nil, nil, err
	}
	s, ok := b.byName[name]
	if !ok {
		b.leaveLocked(u)
		return nil, nil, fmt.Errorf("%w: %q", ErrUnknownServer, name)
	}
	if u != nil && b.perUserLocked(s) {
		s = b.instanceLocked(u, s)
	} else {
		s.inflight[UserOf(ctx)]++
	}
	b.ops.Add(1)
	return s, u, nil
}

// done ends an operation that use counted.
func (b *Bridge) done(s *server, u *userState) {
	b.mu.Lock()
	if s.base == nil {
		if n := s.inflight[uOf(u)] - 1; n > 0 {
			s.inflight[uOf(u)] = n
		} else {
			delete(s.inflight, uOf(u))
		}
	}
	b.leaveLocked(u)
	b.mu.Unlock()
	b.ops.Done()
}

// uOf is the id of u; "" for nil.
func uOf(u *userState) string {
	if u == nil {
		return ""
	}
	return u.id
}

// bounded returns ctx, also cancelled when the Bridge closes.
func (b *Bridge) bounded(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel, key := b.within(ctx, 0)
	return ctx, func() {
		b.inLife.Remove(key)
		cancel()
	}
}

// within returns ctx, also cancelled when the Bridge closes and, when
// timeout > 0, ended after timeout with the cause errServerTimeout: one
// context for both, so a call does not stack two cancellable contexts.
// When the work ends, b.inLife.Remove(key) must be called, then cancel
// (rather than one function that does both: that one would cost an
// allocation, as would a context.AfterFunc on b.life per call).
func (b *Bridge) within(ctx context.Context, timeout time.Duration) (_ context.Context, cancel context.CancelFunc, key lifespan.Key) {
	if timeout > 0 {
		ctx, cancel = context.WithTimeoutCause(ctx, timeout, errServerTimeout)
	} else {
		ctx, cancel = context.WithCancel(ctx)
	}
	return ctx, cancel, b.inLife.Add(cancel)
}
