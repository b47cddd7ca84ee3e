package mcpbridge

import (
	"context"
	"fmt"
)

// Discover connects every server that is not connected, in parallel, lists
// its tools (every page), applies its includeTools and excludeTools filters,
// converts the schemas and registers the tools. Each server's attempt is
// bounded by ctx, and its connecting (up to the initialize answer) and each
// tools/list page by its own [ServerConfig.Timeout].
//
// Tools are registered in configuration order: a server's tools are
// registered once every earlier server's attempt has ended, so the names
// never depend on which server answered first and no tool is renamed just
// because of timing. A server becomes [Connected] when its tools are
// registered. A server that fails is [Disconnected] with its error in the
// [Status]; one that offers no tools after the filters, and neither
// prompts nor resources, is closed and [Disconnected] with an error saying
// so (one that offers prompts or resources stays connected).
//
// With a user in ctx (see [WithUser]), Discover also connects that user's
// own connections and lists their tools (the servers whose credentials
// are each user's), retrying those that are not connected; a user's first
// operation does so too. Without one, such a server is tried for no user
// (on a Bridge for many users, where the user "" has no tokens, that
// only finds where it logs in).
//
// Discover returns when every attempt has ended, with nil even when some
// servers failed; it returns ctx's error when ctx ended first (the
// attempts still under way fail with it) and [ErrClosed] when the Bridge
// is closed. [Status.Discovering] is true meanwhile and [Status.Discovered]
// afterwards; [EventDiscoveryStarted] and [EventDiscoveryCompleted] mark
// both moments. Calling Discover again retries the
// servers that are not connected; concurrent calls run one after the
// other.
func (b *Bridge) Discover(ctx context.Context) error {
	b.discoverMu.Lock()
	defer b.discoverMu.Unlock()
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return ErrClosed
	}
	b.setDiscoveringLocked(true)
	var todo []*server
	for _, s := range b.servers {
		if s.link == nil {
			todo = append(todo, s)
		}
	}
	b.mu.Unlock()

	ctx, stop := b.bounded(ctx)
	defer stop()
	ctx, endSpan := b.startDiscoverySpan(ctx)
	defer endSpan()
	results := make([]chan attempt, len(todo))
	installed := make([]chan struct{}, len(todo))
	for i, s := range todo {
		results[i] = make(chan attempt, 1)
		installed[i] = make(chan struct{})
		b.bg.Go(func() {
			s.dialMu.Lock()
			defer s.dialMu.Unlock()
			b.mu.Lock()
			live := s.link != nil // reconnected on use meanwhile
			if !live {
				b.setStateLocked(s, Connecting, nil)
			}
			b.mu.Unlock()
			if live {
				results[i] <- attempt{}
				return
			}
			results[i] <- b.dial(ctx, s)
			<-installed[i] // keep dialMu until the tools are registered
		})
	}
	for i, s := range todo {
		a := <-results[i]
		if a.link == nil && a.err == nil {
			close(installed[i])
			continue
		}
		b.mu.Lock()
		closeLink, relist := b.installLocked(s, a)
		b.mu.Unlock()
		close(installed[i])
		if closeLink != nil {
			_ = closeLink.conn.Close()
		}
		if relist {
			b.relist(s, a.link)
		}
	}

	b.mu.Lock()
	b.setDiscoveringLocked(false)
	closed := b.closed
	var u *userState
	var err error
	if !closed && UserOf(ctx) != "" {
		u, err = b.enterLocked(ctx)
	}
	b.mu.Unlock()
	if closed {
		return ErrClosed
	}
	if err != nil {
		return err
	}
	if u != nil {
		defer b.leave(u)
		if err := b.discoverUser(ctx, u, true); err != nil {
			return err
		}
	}
	return context.Cause(ctx)
}

// setDiscoveringLocked starts (true) or completes (false) a discovery and
// emits the event.
func (b *Bridge) setDiscoveringLocked(on bool) {
	b.discovering = on
	kind := EventDiscoveryStarted
	if !on {
		b.discovered = true
		kind = EventDiscoveryCompleted
	}
	b.log.Debug("mcp discovery", "event", kind)
	b.emitLocked(Event{Kind: kind})
}

// undiscovered returns an error wrapping [ErrNotDiscovered] when servers are
// configured and Discover has never started; nil otherwise.
func (b *Bridge) undiscovered() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.undiscoveredLocked()
}

// undiscoveredLocked is undiscovered with b.mu held.
func (b *Bridge) undiscoveredLocked() error {
	if b.discovering || b.discovered || len(b.cfg.Servers) == 0 {
		return nil
	}
	return fmt.Errorf("%w: call Bridge.Discover first, so that the %d configured servers' tools can be offered", ErrNotDiscovered, len(b.cfg.Servers))
}
