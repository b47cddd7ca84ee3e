package mcpbridge

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/mcpgenai/bridge/mcpbridge/internal/mcpconn"
)

// ErrNotOffered is wrapped by the error of a request for something the
// server did not declare (resource subscriptions, say).
var ErrNotOffered = errors.New("not offered by the server")

// SubscribeResource asks the named server to report changes of the
// resource uri: each one it reports becomes an [EventResourceUpdated] for
// [Bridge.Subscribe]'s channels (read the resource again with
// [Bridge.ReadResource]). A report of a resource nobody subscribed to is
// dropped. The subscription lasts until unsubscribe is
// called or the Bridge closes, and is made again when the server
// reconnects. A server that did not declare resource subscriptions is an
// error wrapping [ErrNotOffered]. Subscribing twice to one resource is
// counted: the server is asked to stop only when the last subscription
// ends. unsubscribe may be called more than once and from any goroutine;
// it tells the server within ctx's values and the server's timeout, and
// returns the server's error, if any, the first time.
func (b *Bridge) SubscribeResource(ctx context.Context, server, uri string) (unsubscribe func() error, err error) {
	return b.subscribe(ctx, server, uri)
}

// subscribe is SubscribeResource of the named server.
func (b *Bridge) subscribe(ctx context.Context, name, uri string) (unsubscribe func() error, err error) {
	if uri == "" {
		return nil, fmt.Errorf("mcp server %q: subscribe: empty resource uri", name)
	}
	var s *server
	err = b.onServerAt(ctx, name, func(ctx context.Context, at *server, conn *mcpconn.Conn) error {
		s = at
		if !conn.OffersSubscriptions() {
			return fmt.Errorf("mcp server %q: resource subscriptions: %w", name, ErrNotOffered)
		}
		if at.base != nil && at.link != nil && at.link.common.Load() {
			// The shared connection's subscriptions are its own, not a user's.
			return fmt.Errorf("mcp server %q: resource subscriptions on the connection every user shares: %w", name, ErrNotOffered)
		}
		b.mu.Lock()
		first := s.subs[uri] == 0
		if s.subs == nil {
			s.subs = map[string]int{}
		}
		s.subs[uri]++
		b.mu.Unlock()
		if !first {
			return nil
		}
		if err := conn.SubscribeResource(ctx, uri); err != nil {
			b.mu.Lock()
			b.dropSubLocked(s, uri)
			b.mu.Unlock()
			return err
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var once sync.Once
	return func() (err error) {
		once.Do(func() { err = b.unsubscribe(context.WithoutCancel(ctx), s, uri) })
		return err
	}, nil
}

// unsubscribe ends one subscription of uri on s, telling the server when
// it was the last one and the server is connected.
func (b *Bridge) unsubscribe(ctx context.Context, s *server, uri string) error {
	b.mu.Lock()
	last := b.dropSubLocked(s, uri)
	var conn *mcpconn.Conn
	if last && s.link != nil && !b.closed {
		conn = s.link.conn
	}
	b.mu.Unlock()
	if conn == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.effectiveTimeout())
	defer cancel()
	return b.redact.redactErr(conn.UnsubscribeResource(ctx, uri))
}

// dropSubLocked forgets one subscription of uri on s and reports whether
// it was the last.
func (b *Bridge) dropSubLocked(s *server, uri string) bool {
	if s.subs[uri] == 0 {
		return false
	}
	s.subs[uri]--
	if s.subs[uri] > 0 {
		return false
	}
	delete(s.subs, uri)
	return true
}

// subscriptionsOf returns the resources s is subscribed to, sorted, for a
// new connection to subscribe to again.
func (b *Bridge) subscriptionsOf(s *server) []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Sorted(maps.Keys(s.subs))
}

// resourceUpdated turns a notifications/resources/updated of s's link l
// into an event, when uri is subscribed to; one nobody subscribed to is
// dropped.
func (b *Bridge) resourceUpdated(s *server, l *link, uri string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed || (s.link != nil && s.link != l) || s.subs[uri] == 0 {
		return
	}
	b.emitLocked(Event{Kind: EventResourceUpdated, Server: s.cfg.Name, User: linkUser(s, l), URI: shown(uri, b.redact.Text, maxNoteBytes)})
}

// resourcesChanged turns a notifications/resources/list_changed of s's
// link l into an event.
func (b *Bridge) resourcesChanged(s *server, l *link) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed || (s.link != nil && s.link != l) {
		return
	}
	b.emitLocked(Event{Kind: EventResourcesChanged, Server: s.cfg.Name, User: linkUser(s, l)})
}

// linkUser is the user the events of s's link l concern: s's user, ""
// for the connection every user shares.
func linkUser(s *server, l *link) string {
	if l.common.Load() {
		return ""
	}
	return s.user
}
