// Package postgres is a [store.Store] in PostgreSQL, for the replicas of
// a service: the OAuth tokens and registered clients of every user, the
// MCP tasks running, and the protocol and tools-list caches, in four
// tables it creates. Tokens and task records are encrypted at rest with
// AES-256-GCM under keys the host gives ([Key]); the refresh of a token is
// held by an advisory lock of the database, which ends with the session
// of the process that holds it.
//
//	st, err := postgres.Open(ctx, os.Getenv("DATABASE_URL"), postgres.Options{
//		Keys: []postgres.Key{{ID: "2026-11", Secret: key}}, // 32 bytes from the host's secret manager
//	})
//	if err != nil {
//		log.Fatal(err)
//	}
//	defer st.Close()
//	b, err := mcpbridge.New(cfg, &mcpbridge.Options{Store: st})
//
// A host that does not import this package does not build its client
// library (github.com/jackc/pgx).
package postgres

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mcpgenai/bridge/mcpbridge/store"
)

// Options configure [Open].
type Options struct {
	// Keys encrypt the tokens and task records. The first one encrypts
	// what is written; each one decrypts what was written with it. To
	// rotate, put a new key first and keep the old ones until
	// [Store.Rekey] has run on every row. At least one is required.
	Keys []Key
	// TablePrefix begins the names of the tables; "" means "mcpbridge_"
	// (mcpbridge_tokens, mcpbridge_tasks, mcpbridge_protocols,
	// mcpbridge_tools).
	TablePrefix string
	// MaxLocks bounds the database connections that hold or wait for the
	// lock of a token refresh at one time, apart from the connections of
	// the connection string's pool (pool_max_conns), so that refreshes
	// waiting for each other never starve the reads and writes they need;
	// 0 means 16.
	MaxLocks int32
}

// Store is a [store.Store] in PostgreSQL. Its methods are safe for
// concurrent use, by any number of goroutines and processes sharing the
// database. Close it when done.
type Store struct {
	pool   *pgxpool.Pool // reads and writes
	locks  *pgxpool.Pool // the connections of held locks
	keys   *keyring
	tokens string // the tables' quoted names
	tasks  string
	protos string
	tools  string

	heldMu sync.Mutex
	held   map[*heldLock]struct{} // the locks held, for Close
}

var _ store.Store = (*Store)(nil)

// Open connects to the database of dsn (a PostgreSQL URL or key=value
// connection string, as pgx reads it), creates the tables it lacks and
// returns the Store. Nothing in the returned error quotes the keys.
func Open(ctx context.Context, dsn string, o Options) (*Store, error) {
	keys, err := newKeyring(o.Keys)
	if err != nil {
		return nil, err
	}
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("postgres store: %w", err)
	}
	lockCfg := cfg.Copy()
	lockCfg.MaxConns = o.MaxLocks
	if lockCfg.MaxConns <= 0 {
		lockCfg.MaxConns = 16
	}
	lockCfg.MinConns = 0
	prefix := o.TablePrefix
	if prefix == "" {
		prefix = "mcpbridge_"
	}
	s := &Store{
		keys:   keys,
		tokens: pgx.Identifier{prefix + "tokens"}.Sanitize(),
		tasks:  pgx.Identifier{prefix + "tasks"}.Sanitize(),
		protos: pgx.Identifier{prefix + "protocols"}.Sanitize(),
		tools:  pgx.Identifier{prefix + "tools"}.Sanitize(),
	}
	if s.pool, err = pgxpool.NewWithConfig(ctx, cfg); err != nil {
		return nil, fmt.Errorf("postgres store: %w", err)
	}
	if s.locks, err = pgxpool.NewWithConfig(ctx, lockCfg); err != nil {
		s.pool.Close()
		return nil, fmt.Errorf("postgres store: %w", err)
	}
	if err := s.migrate(ctx, prefix); err != nil {
		s.Close()
		return nil, fmt.Errorf("postgres store: %w", err)
	}
	return s, nil
}

// Close closes the Store's connections, which ends the locks it holds
// (their unlock functions then do nothing). The Store must not be used
// afterwards.
func (s *Store) Close() {
	s.releaseAll()
	s.locks.Close()
	s.pool.Close()
}

// migrate creates the tables, one process at a time.
func (s *Store) migrate(ctx context.Context, prefix string) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", lockID("mcpbridge schema", prefix)); err != nil {
			return err
		}
		for _, q := range []string{
			`CREATE TABLE IF NOT EXISTS ` + s.tokens + ` (
				usr text NOT NULL, server text NOT NULL, issuer text NOT NULL,
				key_id text NOT NULL, sealed bytea NOT NULL,
				updated timestamptz NOT NULL DEFAULT now(),
				PRIMARY KEY (usr, server, issuer))`,
			`CREATE TABLE IF NOT EXISTS ` + s.tasks + ` (
				usr text NOT NULL, server text NOT NULL, call text NOT NULL,
				key_id text NOT NULL, sealed bytea NOT NULL,
				expires timestamptz,
				PRIMARY KEY (usr, server, call))`,
			`CREATE TABLE IF NOT EXISTS ` + s.protos + ` (
				server text PRIMARY KEY, version text NOT NULL, transport text NOT NULL)`,
			`CREATE TABLE IF NOT EXISTS ` + s.tools + ` (
				server text NOT NULL, usr text NOT NULL,
				until timestamptz NOT NULL, list bytea NOT NULL,
				PRIMARY KEY (server, usr))`,
		} {
			if _, err := tx.Exec(ctx, q); err != nil {
				return err
			}
		}
		return nil
	})
}

// errNil is returned by the writes of nil.
var errNil = errors.New("postgres store: nil value")
