package postgres

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
)

// Key is a key that encrypts rows: AES-256-GCM with a random nonce per
// write. The associated data of each ciphertext is the key's ID, the
// table and the row's key (user, server, and issuer or call id), so a
// ciphertext decrypts only in the row it was written to, under the key
// named beside it: rows swapped or moved in the database fail to decrypt
// instead of handing one user's token to another.
type Key struct {
	// ID names the key in the rows it encrypts (the key_id column): a
	// short label, such as the month it was made, unique among the keys.
	ID string
	// Secret is the key itself: 32 random bytes, kept outside the
	// database (a secret manager, an environment variable).
	Secret []byte
}

// keyring holds the keys: first encrypts, all decrypt.
type keyring struct {
	first string
	aeads map[string]cipher.AEAD
}

func newKeyring(keys []Key) (*keyring, error) {
	if len(keys) == 0 {
		return nil, errors.New("postgres store: Options.Keys is empty: tokens are never stored in clear")
	}
	k := &keyring{first: keys[0].ID, aeads: map[string]cipher.AEAD{}}
	for i, key := range keys {
		if key.ID == "" || len(key.ID) > 64 || strings.ContainsRune(key.ID, 0) {
			return nil, fmt.Errorf("postgres store: key %d: its ID must be 1 to 64 bytes without NUL", i)
		}
		if len(key.Secret) != 32 {
			return nil, fmt.Errorf("postgres store: key %q: the secret has %d bytes, want 32 (AES-256)", key.ID, len(key.Secret))
		}
		if _, dup := k.aeads[key.ID]; dup {
			return nil, fmt.Errorf("postgres store: key ID %q given twice", key.ID)
		}
		block, err := aes.NewCipher(key.Secret)
		if err != nil {
			return nil, fmt.Errorf("postgres store: key %q: %w", key.ID, err)
		}
		aead, err := cipher.NewGCM(block)
		if err != nil {
			return nil, fmt.Errorf("postgres store: key %q: %w", key.ID, err)
		}
		k.aeads[key.ID] = aead
	}
	return k, nil
}

// errUnsealable is wrapped by the error of a row that does not decrypt.
var errUnsealable = errors.New("a row does not decrypt: its key is not among Options.Keys, or the row was altered or moved")

// The names of the tables in the associated data: whatever their prefix,
// a ciphertext of one table does not decrypt in the other.
const (
	tokensName = "tokens"
	tasksName  = "tasks"
)

// associated is the associated data of a row of table with the key id and
// the row's key parts.
func associated(table, keyID string, parts ...string) []byte {
	b := []byte("mcpbridge/postgres v1\x00")
	for _, s := range append([]string{table, keyID}, parts...) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	return b
}

// seal encrypts plain for the row of table with parts, under the first
// key; it returns the key's id and nonce||ciphertext.
func (k *keyring) seal(plain []byte, table string, parts ...string) (string, []byte) {
	aead := k.aeads[k.first]
	nonce := make([]byte, aead.NonceSize(), aead.NonceSize()+len(plain)+aead.Overhead())
	_, _ = rand.Read(nonce) // crypto/rand.Read never fails
	return k.first, aead.Seal(nonce, nonce, plain, associated(table, k.first, parts...))
}

// open decrypts what seal wrote for the row of table with parts.
func (k *keyring) open(keyID string, sealed []byte, table string, parts ...string) ([]byte, error) {
	aead := k.aeads[keyID]
	if aead == nil || len(sealed) < aead.NonceSize() {
		return nil, errUnsealable
	}
	n := aead.NonceSize()
	plain, err := aead.Open(nil, sealed[:n], sealed[n:], associated(table, keyID, parts...))
	if err != nil {
		return nil, errUnsealable
	}
	return plain, nil
}

// Rekey encrypts again, under the first of Options.Keys, every token and
// task record written under another key, and returns how many rows it
// rewrote. A row changed meanwhile by another writer is left to that
// writer (which wrote it under its own first key). A row that no key
// decrypts is an error; the rows before it stay rewritten. Run it after
// putting a new key first; once it returns 0 with every replica on the
// new keys, the old key can go.
func (s *Store) Rekey(ctx context.Context) (int, error) {
	n := 0
	for _, t := range []struct {
		table, name string
		cols        string // the key columns, in order
	}{{s.tokens, tokensName, "usr, server, issuer"}, {s.tasks, tasksName, "usr, server, call"}} {
		rows, err := s.pool.Query(ctx, "SELECT "+t.cols+", key_id, sealed FROM "+t.table+" WHERE key_id <> $1", s.keys.first)
		if err != nil {
			return n, fmt.Errorf("postgres store: rekey: %w", err)
		}
		type row struct {
			a, b, c, keyID string
			sealed         []byte
		}
		var old []row
		for rows.Next() {
			var r row
			if err := rows.Scan(&r.a, &r.b, &r.c, &r.keyID, &r.sealed); err != nil {
				rows.Close()
				return n, fmt.Errorf("postgres store: rekey: %w", err)
			}
			old = append(old, r)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return n, fmt.Errorf("postgres store: rekey: %w", err)
		}
		for _, r := range old {
			plain, err := s.keys.open(r.keyID, r.sealed, t.name, r.a, r.b, r.c)
			if err != nil {
				return n, fmt.Errorf("postgres store: rekey: %w", err)
			}
			keyID, sealed := s.keys.seal(plain, t.name, r.a, r.b, r.c)
			cols := strings.Split(t.cols, ", ")
			tag, err := s.pool.Exec(ctx, "UPDATE "+t.table+" SET key_id = $1, sealed = $2 WHERE "+
				cols[0]+" = $3 AND "+cols[1]+" = $4 AND "+cols[2]+" = $5 AND key_id = $6 AND sealed = $7",
				keyID, sealed, r.a, r.b, r.c, r.keyID, r.sealed)
			if err != nil {
				return n, fmt.Errorf("postgres store: rekey: %w", err)
			}
			n += int(tag.RowsAffected())
		}
	}
	return n, nil
}

// lockID is the advisory lock's number for parts.
func lockID(parts ...string) int64 {
	h := sha256.New()
	for _, p := range parts {
		h.Write(binary.AppendUvarint(nil, uint64(len(p))))
		h.Write([]byte(p))
	}
	return int64(binary.BigEndian.Uint64(h.Sum(nil)))
}
