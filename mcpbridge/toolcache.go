package mcpbridge

import (
	"context"
	"encoding/json"
	"time"

	"github.com/mcpgenai/bridge/mcpbridge/internal/mcpconn"
)

// A server of protocol 2026-07-28 says how long its tools/list stays fresh
// (ttlMs). While it is, a reconnect takes the tools from the list kept in
// memory instead of listing them again, and with a protocol cache
// ([Options.ProtocolCache]) so does the first connection of a later run,
// for a list the server marked public (the same for every user; a private
// list stays in memory, where the credentials are the same). A kept list
// is taken only once the server has acknowledged the connection's
// subscription to its changes, so that a change made after connecting is
// announced; without the acknowledgement (within about two seconds) the
// tools are listed. A tools/list_changed notification makes the list stale
// at once. Tools taken from a kept list report no skipped tools.
//
// On a Bridge for many users, a server whose lists are each user's own
// (marked private, or not marked) is listed for every user; once one
// user's listing has said so, the others' neither look in the shared
// cache (with [Options.Store], a database) nor write to it that it holds
// no list: without this, each user's first calls cost two round trips
// to the store for each such server. A public listing or a change of
// the list makes the next listing look again. While it is not known
// whether the list is every user's (before the first listing, after a
// change, once a public list is stale), one user lists and the others
// wait for its answer: a public list is then taken by all, where users
// arriving together each listed it (185 listings of one list for 100
// users at once).

// keptTools is a server's tools list kept while it is fresh.
type keptTools struct {
	raws  []json.RawMessage // each tool's JSON object as the server sent it
	until time.Time
	// public: the server said the list is the same for every user.
	public bool
}

// listTools lists the tools of s over conn, or takes them from the list
// kept in memory or in the protocol cache when that is fresh. A user's
// instance (see users.go) keeps no list of its own: it takes the list
// kept for the server when the server marked it public.
func (b *Bridge) listTools(ctx context.Context, s *server, conn *mcpconn.Conn) ([]mcpconn.Tool, error) {
	if mcpconn.IsModern(conn.ProtocolVersion()) {
		kept, own, first, err := b.keptFor(ctx, s)
		if err != nil {
			return nil, err
		}
		if first != nil {
			defer b.firstListed(s.base, first)
		}
		now := time.Now()
		if (kept.raws == nil || !now.Before(kept.until)) && !own {
			kept.raws, kept.until = b.protos.Tools(s.cfg.protoKey(), now)
			if kept.raws != nil && s.base != nil {
				// The shared cache holds only public lists: the
				// users waiting on this one take it too.
				kept.public = true
				b.mu.Lock()
				s.base.kept = kept
				b.mu.Unlock()
			}
		}
		// A change reaches this connection only from the server's
		// acknowledgement of its subscription on: one made before (by
		// the caller, right after connecting) would reach neither the
		// kept list nor the connection. Waiting for the acknowledgement
		// takes about the round trip the tools/list would have; without
		// one, the tools are listed (and read again once it comes).
		if kept.raws != nil && !conn.Subscribed(ctx) {
			b.log.Debug("mcp server did not acknowledge the subscription to its changes; listing its tools instead of taking the kept list", "server", s.cfg.Name)
			kept.raws = nil
		}
		if kept.raws != nil {
			b.log.Debug("mcp server tools taken from the kept list", "server", s.cfg.Name, "tools", len(kept.raws), "fresh until", kept.until)
			if s.base == nil {
				b.mu.Lock()
				s.kept = kept
				b.mu.Unlock()
			}
			return mcpconn.DecodeTools(kept.raws), nil
		}
	}
	listed, err := conn.ListTools(ctx)
	if err != nil {
		return nil, err
	}
	b.keepTools(s, conn, listed)
	return listed, nil
}

// waitingFirstList is logged (at debug) by a user waiting for another's
// listing of a server to say whether its list is every user's.
const waitingFirstList = "mcp server tools being listed for another user first"

// keptFor returns the list kept for s while it is fresh (zero when there
// is none) and whether its server's lists are each user's own (own). For
// a user's instance whose server has not said yet whether its list is
// every user's, it waits for a listing under way to say so, within ctx;
// when none is, the caller's listing is the one that will (first is
// non-nil, and the caller ends it with firstListed). A listing that
// failed said nothing: those that waited for it list on their own rather
// than one after another.
func (b *Bridge) keptFor(ctx context.Context, s *server) (kept keptTools, own bool, first chan struct{}, err error) {
	for waited := false; ; waited = true {
		now := time.Now()
		b.mu.Lock()
		if s.base == nil {
			kept = s.kept
			b.mu.Unlock()
			return kept, false, nil, nil
		}
		base := s.base
		if base.kept.public {
			kept = base.kept
		}
		own = base.ownLists
		if own || kept.raws != nil && now.Before(kept.until) {
			b.mu.Unlock()
			return kept, own, nil, nil
		}
		if waited {
			b.mu.Unlock()
			return keptTools{}, false, nil, nil
		}
		wait := base.firstList
		if wait == nil {
			first = make(chan struct{})
			base.firstList = first
			b.mu.Unlock()
			return keptTools{}, false, first, nil
		}
		b.mu.Unlock()
		b.log.Debug(waitingFirstList, "server", s.cfg.Name, "user", s.user)
		select {
		case <-wait:
			kept = keptTools{}
		case <-ctx.Done():
			return keptTools{}, false, nil, context.Cause(ctx)
		}
	}
}

// firstListed ends the listing that was to say whether the lists of base
// are every user's (see keptFor), whatever its outcome: the users waiting
// take what it said, or list on their own when it said nothing.
func (b *Bridge) firstListed(base *server, first chan struct{}) {
	b.mu.Lock()
	if base.firstList == first {
		base.firstList = nil
	}
	b.mu.Unlock()
	close(first)
}

// keepTools keeps the tools just listed over conn for as long as their
// server says they stay fresh, or forgets any kept list when it says
// nothing (or 0).
func (b *Bridge) keepTools(s *server, conn *mcpconn.Conn, listed []mcpconn.Tool) {
	until, public := conn.ToolsFresh()
	var kept keptTools
	if !until.IsZero() {
		kept.until, kept.public = until, public
		kept.raws = make([]json.RawMessage, len(listed))
		for i, t := range listed {
			kept.raws[i] = t.Raw
		}
	}
	b.mu.Lock()
	said := false // the shared cache was told already that it holds no list
	switch {
	case s.base == nil:
		s.kept = kept
	case public:
		s.base.kept = kept // a user's public list is every user's
		s.base.ownLists = false
	default:
		said = s.base.ownLists
		s.base.ownLists = true
	}
	b.mu.Unlock()
	if public {
		b.protos.PutTools(s.cfg.protoKey(), kept.raws, kept.until)
	} else if !said {
		b.protos.PutTools(s.cfg.protoKey(), nil, time.Time{})
	}
}

// forgetTools makes the kept tools list of s stale (a list_changed came).
func (b *Bridge) forgetTools(s *server) {
	b.mu.Lock()
	if s.base != nil {
		s = s.base // a user's instance keeps no list: the server's public one may be stale
	}
	s.kept = keptTools{}
	s.ownLists = false
	b.mu.Unlock()
	b.protos.PutTools(s.cfg.protoKey(), nil, time.Time{})
}
