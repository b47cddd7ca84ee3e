package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mcpgenai/bridge/mcpbridge/auth"
	"github.com/mcpgenai/bridge/mcpbridge/store"
)

// Load returns the token kept for key, decrypted, or (nil, nil).
func (s *Store) Load(ctx context.Context, key auth.Key) (*auth.Token, error) {
	var keyID string
	var sealed []byte
	err := s.pool.QueryRow(ctx, "SELECT key_id, sealed FROM "+s.tokens+" WHERE usr = $1 AND server = $2 AND issuer = $3",
		key.User, key.Server, key.Issuer).Scan(&keyID, &sealed)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("postgres store: token: %w", err)
	}
	plain, err := s.keys.open(keyID, sealed, tokensName, key.User, key.Server, key.Issuer)
	if err != nil {
		return nil, fmt.Errorf("postgres store: token: %w", err)
	}
	var t auth.Token
	if err := json.Unmarshal(plain, &t); err != nil {
		return nil, fmt.Errorf("postgres store: token: %w", err)
	}
	return &t, nil
}

// Save keeps t for key, encrypted.
func (s *Store) Save(ctx context.Context, key auth.Key, t *auth.Token) error {
	if t == nil {
		return errNil
	}
	plain, err := json.Marshal(t)
	if err != nil {
		return fmt.Errorf("postgres store: token: %w", err)
	}
	keyID, sealed := s.keys.seal(plain, tokensName, key.User, key.Server, key.Issuer)
	_, err = s.pool.Exec(ctx, "INSERT INTO "+s.tokens+" (usr, server, issuer, key_id, sealed) VALUES ($1, $2, $3, $4, $5) "+
		"ON CONFLICT (usr, server, issuer) DO UPDATE SET key_id = excluded.key_id, sealed = excluded.sealed, updated = now()",
		key.User, key.Server, key.Issuer, keyID, sealed)
	if err != nil {
		return fmt.Errorf("postgres store: token: %w", err)
	}
	return nil
}

// Delete removes what is kept for key.
func (s *Store) Delete(ctx context.Context, key auth.Key) error {
	_, err := s.pool.Exec(ctx, "DELETE FROM "+s.tokens+" WHERE usr = $1 AND server = $2 AND issuer = $3", key.User, key.Server, key.Issuer)
	if err != nil {
		return fmt.Errorf("postgres store: token: %w", err)
	}
	return nil
}

// PutTask records t for key, encrypted (its expiry in clear, so that
// expired records can go), and deletes the records that have expired.
func (s *Store) PutTask(ctx context.Context, key store.TaskKey, t *store.Task) error {
	switch {
	case t == nil:
		return errNil
	case key.Call == "" || t.ID == "":
		return errors.New("postgres store: a task record needs a call id and a task id")
	}
	plain, err := json.Marshal(t)
	if err != nil {
		return fmt.Errorf("postgres store: task: %w", err)
	}
	var expires *time.Time
	if !t.Expires.IsZero() {
		expires = &t.Expires
	}
	keyID, sealed := s.keys.seal(plain, tasksName, key.User, key.Server, key.Call)
	b := &pgx.Batch{}
	b.Queue("INSERT INTO "+s.tasks+" (usr, server, call, key_id, sealed, expires) VALUES ($1, $2, $3, $4, $5, $6) "+
		"ON CONFLICT (usr, server, call) DO UPDATE SET key_id = excluded.key_id, sealed = excluded.sealed, expires = excluded.expires",
		key.User, key.Server, key.Call, keyID, sealed, expires)
	b.Queue("DELETE FROM "+s.tasks+" WHERE expires <= $1", time.Now())
	if err := s.pool.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("postgres store: task: %w", err)
	}
	return nil
}

// LoadTask returns the record of key, decrypted, or nil when none is kept
// or it has expired.
func (s *Store) LoadTask(ctx context.Context, key store.TaskKey) (*store.Task, error) {
	var keyID string
	var sealed []byte
	err := s.pool.QueryRow(ctx, "SELECT key_id, sealed FROM "+s.tasks+" WHERE usr = $1 AND server = $2 AND call = $3 AND (expires IS NULL OR expires > $4)",
		key.User, key.Server, key.Call, time.Now()).Scan(&keyID, &sealed)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("postgres store: task: %w", err)
	}
	plain, err := s.keys.open(keyID, sealed, tasksName, key.User, key.Server, key.Call)
	if err != nil {
		return nil, fmt.Errorf("postgres store: task: %w", err)
	}
	var t store.Task
	if err := json.Unmarshal(plain, &t); err != nil {
		return nil, fmt.Errorf("postgres store: task: %w", err)
	}
	return &t, nil
}

// DeleteTask forgets the record of key.
func (s *Store) DeleteTask(ctx context.Context, key store.TaskKey) error {
	_, err := s.pool.Exec(ctx, "DELETE FROM "+s.tasks+" WHERE usr = $1 AND server = $2 AND call = $3", key.User, key.Server, key.Call)
	if err != nil {
		return fmt.Errorf("postgres store: task: %w", err)
	}
	return nil
}

// LoadProtocol returns the protocol kept for server.
func (s *Store) LoadProtocol(ctx context.Context, server string) (store.Protocol, error) {
	var p store.Protocol
	err := s.pool.QueryRow(ctx, "SELECT version, transport FROM "+s.protos+" WHERE server = $1", server).Scan(&p.Version, &p.Transport)
	if errors.Is(err, pgx.ErrNoRows) {
		return store.Protocol{}, nil
	}
	if err != nil {
		return store.Protocol{}, fmt.Errorf("postgres store: protocol: %w", err)
	}
	return p, nil
}

// SaveProtocol keeps p for server; the zero Protocol forgets the server
// and its tools lists.
func (s *Store) SaveProtocol(ctx context.Context, server string, p store.Protocol) error {
	b := &pgx.Batch{}
	if p == (store.Protocol{}) {
		b.Queue("DELETE FROM "+s.protos+" WHERE server = $1", server)
		b.Queue("DELETE FROM "+s.tools+" WHERE server = $1", server)
	} else {
		b.Queue("INSERT INTO "+s.protos+" (server, version, transport) VALUES ($1, $2, $3) "+
			"ON CONFLICT (server) DO UPDATE SET version = excluded.version, transport = excluded.transport", server, p.Version, p.Transport)
	}
	if err := s.pool.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("postgres store: protocol: %w", err)
	}
	return nil
}

// LoadTools returns the fresh list kept for key, or nil.
func (s *Store) LoadTools(ctx context.Context, key store.ToolsKey) (*store.ToolList, error) {
	var until time.Time
	var list []byte
	err := s.pool.QueryRow(ctx, "SELECT until, list FROM "+s.tools+" WHERE server = $1 AND usr = $2 AND until > $3",
		key.Server, key.User, time.Now()).Scan(&until, &list)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("postgres store: tools: %w", err)
	}
	l := &store.ToolList{Until: until}
	if err := json.Unmarshal(list, &l.Tools); err != nil {
		return nil, fmt.Errorf("postgres store: tools: %w", err)
	}
	return l, nil
}

// SaveTools keeps l for key, or forgets key's list when l is nil or
// stale.
func (s *Store) SaveTools(ctx context.Context, key store.ToolsKey, l *store.ToolList) error {
	if l == nil || !time.Now().Before(l.Until) {
		if _, err := s.pool.Exec(ctx, "DELETE FROM "+s.tools+" WHERE server = $1 AND usr = $2", key.Server, key.User); err != nil {
			return fmt.Errorf("postgres store: tools: %w", err)
		}
		return nil
	}
	list, err := json.Marshal(l.Tools)
	if err != nil {
		return fmt.Errorf("postgres store: tools: %w", err)
	}
	_, err = s.pool.Exec(ctx, "INSERT INTO "+s.tools+" (server, usr, until, list) VALUES ($1, $2, $3, $4) "+
		"ON CONFLICT (server, usr) DO UPDATE SET until = excluded.until, list = excluded.list", key.Server, key.User, l.Until, list)
	if err != nil {
		return fmt.Errorf("postgres store: tools: %w", err)
	}
	return nil
}
