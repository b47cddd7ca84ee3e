package postgres_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mcpgenai/bridge/internal/testpg"
	"github.com/mcpgenai/bridge/mcpbridge/auth"
	"github.com/mcpgenai/bridge/mcpbridge/store"
	"github.com/mcpgenai/bridge/mcpbridge/store/postgres"
	"github.com/mcpgenai/bridge/mcpbridge/store/storetest"
)

var (
	key1 = postgres.Key{ID: "k1", Secret: bytes.Repeat([]byte{1}, 32)}
	key2 = postgres.Key{ID: "k2", Secret: bytes.Repeat([]byte{2}, 32)}
)

// open opens a Store on the test database with tables of the test's own
// (prefix), closed at the test's end.
func open(t *testing.T, dsn, prefix string, keys ...postgres.Key) *postgres.Store {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := postgres.Open(ctx, dsn, postgres.Options{Keys: keys, TablePrefix: prefix})
	if err != nil {
		t.Fatalf("Open = %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

func TestContract(t *testing.T) {
	dsn := testpg.DSN(t)
	storetest.Run(t, open(t, dsn, testpg.Prefix(t, dsn), key1))
}

// TestDumpHoldsNoSecret: what a dump of the tables holds (every row, as
// text) has no token, client secret, task id or session id, in clear or
// hex-encoded; only the keys of the rows, which name users and servers.
func TestDumpHoldsNoSecret(t *testing.T) {
	dsn := testpg.DSN(t)
	prefix := testpg.Prefix(t, dsn)
	s := open(t, dsn, prefix, key1)
	ctx := context.Background()
	tok := &auth.Token{AccessToken: "access-7f3a9c", RefreshToken: "refresh-51bd2e", ClientID: "client-id-0c1", ClientSecret: "client-secret-d4e8", Issuer: "https://as.example"}
	if err := s.Save(ctx, auth.Key{User: "alice", Server: "https://mcp.example/mcp", Issuer: tok.Issuer}, tok); err != nil {
		t.Fatal(err)
	}
	task := &store.Task{Tool: "slow", Args: "hash", ID: "task-id-93ac", Protocol: "2025-11-25", Session: "session-id-6e02", Created: time.Now()}
	if err := s.PutTask(ctx, store.TaskKey{User: "alice", Server: "remote", Call: "call-1"}, task); err != nil {
		t.Fatal(err)
	}
	dump := testpg.Dump(t, dsn, prefix)
	if !strings.Contains(dump, "alice") || !strings.Contains(dump, "mcp.example") {
		t.Fatalf("dump lacks the rows:\n%s", dump)
	}
	for _, secret := range []string{tok.AccessToken, tok.RefreshToken, tok.ClientSecret, tok.ClientID, task.ID, task.Session} {
		if strings.Contains(dump, secret) || strings.Contains(dump, hex.EncodeToString([]byte(secret))) {
			t.Errorf("the dump holds %q:\n%s", secret, dump)
		}
	}
}

// TestRowsBoundToTheirKeys: a ciphertext moved to another row (another
// user's), or its key id changed, does not decrypt: Load fails instead of
// handing the token to another user.
func TestRowsBoundToTheirKeys(t *testing.T) {
	dsn := testpg.DSN(t)
	prefix := testpg.Prefix(t, dsn)
	s := open(t, dsn, prefix, key1, key2)
	ctx := context.Background()
	alice := auth.Key{User: "alice", Server: "https://mcp.example/mcp", Issuer: "https://as.example"}
	bob := auth.Key{User: "bob", Server: alice.Server, Issuer: alice.Issuer}
	for k, v := range map[auth.Key]string{alice: "alice-token", bob: "bob-token"} {
		if err := s.Save(ctx, k, &auth.Token{AccessToken: v}); err != nil {
			t.Fatal(err)
		}
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	table := pgx.Identifier{prefix + "tokens"}.Sanitize()
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := conn.Exec(ctx, q, args...); err != nil {
			t.Fatal(err)
		}
	}
	// Bob's row gets Alice's ciphertext.
	exec("UPDATE " + table + " SET sealed = (SELECT sealed FROM " + table + " WHERE usr = 'alice') WHERE usr = 'bob'")
	if got, err := s.Load(ctx, bob); err == nil || got != nil {
		t.Errorf("Load(bob) with alice's ciphertext = %v, %v; want an error", got, err)
	}
	if got, err := s.Load(ctx, alice); err != nil || got == nil || got.AccessToken != "alice-token" {
		t.Errorf("Load(alice) = %v, %v; want her token", got, err)
	}
	// Alice's row under another key id.
	exec("UPDATE " + table + " SET key_id = 'k2' WHERE usr = 'alice'")
	if got, err := s.Load(ctx, alice); err == nil || got != nil {
		t.Errorf("Load(alice) under another key id = %v, %v; want an error", got, err)
	}
	// A row moved to another issuer.
	exec("UPDATE " + table + " SET key_id = 'k1', issuer = 'https://other.example' WHERE usr = 'alice'")
	if got, err := s.Load(ctx, auth.Key{User: "alice", Server: alice.Server, Issuer: "https://other.example"}); err == nil || got != nil {
		t.Errorf("Load of a row moved to another issuer = %v, %v; want an error", got, err)
	}
}

// TestKeyRotation: with a new key first, rows of the old one still
// decrypt; Rekey rewrites them under the new key, after which the old key
// can go (and a store with only the old key can no longer read them).
func TestKeyRotation(t *testing.T) {
	dsn := testpg.DSN(t)
	prefix := testpg.Prefix(t, dsn)
	ctx := context.Background()
	k := auth.Key{User: "u", Server: "https://mcp.example/mcp", Issuer: "https://as.example"}
	tk := store.TaskKey{User: "u", Server: "remote", Call: "c"}
	old := open(t, dsn, prefix, key1)
	if err := old.Save(ctx, k, &auth.Token{AccessToken: "at"}); err != nil {
		t.Fatal(err)
	}
	if err := old.PutTask(ctx, tk, &store.Task{ID: "task", Tool: "slow"}); err != nil {
		t.Fatal(err)
	}
	both := open(t, dsn, prefix, key2, key1)
	if got, err := both.Load(ctx, k); err != nil || got == nil || got.AccessToken != "at" {
		t.Fatalf("Load with the new key first = %v, %v; want the token", got, err)
	}
	n, err := both.Rekey(ctx)
	if err != nil || n != 2 {
		t.Fatalf("Rekey = %d, %v; want 2 rows", n, err)
	}
	if n, err := both.Rekey(ctx); err != nil || n != 0 {
		t.Errorf("second Rekey = %d, %v; want 0", n, err)
	}
	onlyNew := open(t, dsn, prefix, key2)
	if got, err := onlyNew.Load(ctx, k); err != nil || got == nil || got.AccessToken != "at" {
		t.Errorf("Load with only the new key = %v, %v; want the token", got, err)
	}
	if got, err := onlyNew.LoadTask(ctx, tk); err != nil || got == nil || got.ID != "task" {
		t.Errorf("LoadTask with only the new key = %v, %v; want the record", got, err)
	}
	if got, err := old.Load(ctx, k); err == nil || got != nil {
		t.Errorf("Load with only the old key after Rekey = %v, %v; want an error", got, err)
	}
}

// TestLockEndsWithTheSession: a lock whose holder's connections close
// (as when its process dies) is free again.
func TestLockEndsWithTheSession(t *testing.T) {
	dsn := testpg.DSN(t)
	prefix := testpg.Prefix(t, dsn)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	k := auth.Key{User: "u", Server: prefix, Issuer: "https://as.example"}
	holder, err := postgres.Open(ctx, dsn, postgres.Options{Keys: []postgres.Key{key1}, TablePrefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := holder.Lock(ctx, k); err != nil {
		t.Fatal(err)
	}
	other := open(t, dsn, prefix, key1)
	short, stop := context.WithTimeout(ctx, 100*time.Millisecond)
	_, err = other.Lock(short, k)
	stop()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Lock while another session holds the key = %v; want context.DeadlineExceeded", err)
	}
	holder.Close()
	unlock, err := other.Lock(ctx, k)
	if err != nil {
		t.Fatalf("Lock after the holder's session ended = %v; want the key", err)
	}
	unlock()
}

func TestOpenRefusesBadKeys(t *testing.T) {
	for name, keys := range map[string][]postgres.Key{
		"none":      nil,
		"short":     {{ID: "k", Secret: make([]byte, 16)}},
		"no id":     {{Secret: make([]byte, 32)}},
		"duplicate": {key1, {ID: "k1", Secret: make([]byte, 32)}},
	} {
		t.Run(name, func(t *testing.T) {
			// No database is reached: the keys are checked first.
			_, err := postgres.Open(context.Background(), "postgres://127.0.0.1:1/none", postgres.Options{Keys: keys})
			if err == nil {
				t.Fatal("Open = nil; want an error")
			}
			if strings.Contains(err.Error(), string(make([]byte, 16))) {
				t.Errorf("error quotes the key: %v", err)
			}
		})
	}
}
