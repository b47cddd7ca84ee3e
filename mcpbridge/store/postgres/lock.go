package postgres

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mcpgenai/bridge/mcpbridge/auth"
)

// unlockTimeout bounds the release of a lock; a connection that cannot
// release it in time is closed, which releases it too.
const unlockTimeout = 5 * time.Second

// Lock holds key (see [auth.Locker]) with a session-level advisory lock
// of the database, on a connection of its own until unlock: the lock ends
// with the session, so a process that dies holding it holds it no
// longer. Waiting for it costs a connection (see Options.MaxLocks).
func (s *Store) Lock(ctx context.Context, key auth.Key) (func(), error) {
	id := lockID("mcpbridge token", key.User, key.Server, key.Issuer)
	conn, err := s.locks.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("postgres store: lock: %w", err)
	}
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", id); err != nil {
		// A wait cut short may leave the session holding the lock
		// (granted as it was cancelled): end the session.
		_ = conn.Conn().Close(context.Background())
		conn.Release()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("postgres store: lock: %w", err)
	}
	held := &heldLock{conn: conn, id: id}
	s.heldMu.Lock()
	if s.held == nil {
		s.held = map[*heldLock]struct{}{}
	}
	s.held[held] = struct{}{}
	s.heldMu.Unlock()
	return func() { s.release(held, false) }, nil
}

// heldLock is a lock held on its connection.
type heldLock struct {
	once sync.Once
	conn *pgxpool.Conn
	id   int64
}

// release releases h: with pg_advisory_unlock, or by closing its
// connection when that fails or end is true (Close).
func (s *Store) release(h *heldLock, end bool) {
	h.once.Do(func() {
		s.heldMu.Lock()
		delete(s.held, h)
		s.heldMu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), unlockTimeout)
		defer cancel()
		var released bool
		if end || h.conn.QueryRow(ctx, "SELECT pg_advisory_unlock($1)", h.id).Scan(&released) != nil || !released {
			_ = h.conn.Conn().Close(ctx)
		}
		h.conn.Release()
	})
}

// releaseAll releases every lock held, by closing its connection.
func (s *Store) releaseAll() {
	s.heldMu.Lock()
	all := make([]*heldLock, 0, len(s.held))
	for h := range s.held {
		all = append(all, h)
	}
	s.heldMu.Unlock()
	for _, h := range all {
		s.release(h, true)
	}
}
