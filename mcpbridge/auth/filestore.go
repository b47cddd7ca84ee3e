package auth

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
)

// FileStore is a [Store] in one JSON file, a list of entries (a key's
// user, server and issuer, and its token), written with mode 0600 in a
// directory of mode 0700. Writes replace the file atomically (a temporary
// file renamed over it). It is safe for concurrent use within one process;
// two processes writing the same file may lose each other's last write,
// never the file. It is no [Locker]: a service whose replicas share tokens
// needs a store that is (see package
// [github.com/mcpgenai/bridge/mcpbridge/store]).
//
// A file of the earlier format, an object from server URL to token, is
// read as the entries of user "" with each token's own Issuer, and
// written in the list format at the next change.
type FileStore struct {
	path string
	mu   sync.Mutex
}

// DefaultFileName is the name of the default token file inside
// [os.UserConfigDir]/mcpbridge.
const DefaultFileName = "oauth-tokens.json"

// DefaultPath returns [os.UserConfigDir]/mcpbridge/oauth-tokens.json.
func DefaultPath() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("token store: %w", err)
	}
	return filepath.Join(dir, "mcpbridge", DefaultFileName), nil
}

// NewFileStore returns a FileStore at path; "" means [DefaultPath]. The file
// need not exist yet.
func NewFileStore(path string) (*FileStore, error) {
	if path == "" {
		p, err := DefaultPath()
		if err != nil {
			return nil, err
		}
		path = p
	}
	return &FileStore{path: path}, nil
}

// Path returns the file's path.
func (s *FileStore) Path() string { return s.path }

// Load returns the token kept for key, or (nil, nil).
func (s *FileStore) Load(ctx context.Context, key Key) (*Token, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	all, err := s.read()
	if err != nil {
		return nil, err
	}
	return all[key], nil
}

// Save keeps t for key.
func (s *FileStore) Save(ctx context.Context, key Key, t *Token) error {
	if err := checkSave(ctx, t); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	all, err := s.read()
	if err != nil {
		return err
	}
	all[key] = t.clone()
	return s.write(all)
}

// Delete removes the token of key; a missing one is not an error.
func (s *FileStore) Delete(ctx context.Context, key Key) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	all, err := s.read()
	if err != nil {
		return err
	}
	if _, ok := all[key]; !ok {
		return nil
	}
	delete(all, key)
	return s.write(all)
}

// maxFileSize bounds what read accepts.
const maxFileSize = 16 << 20

// fileEntry is one entry of the file.
type fileEntry struct {
	User   string `json:"user,omitempty"`
	Server string `json:"server"`
	Issuer string `json:"issuer,omitempty"`
	Token  *Token `json:"token"`
}

func (s *FileStore) read() (map[Key]*Token, error) {
	all := map[Key]*Token{}
	f, err := os.Open(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return all, nil
	}
	if err != nil {
		return nil, fmt.Errorf("token store: %w", err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > maxFileSize {
		return nil, fmt.Errorf("token store %s: file larger than %d bytes", s.path, maxFileSize)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("token store %s: %w", s.path, err)
	}
	all, err = decodeFile(data)
	if err != nil {
		// The decoder's message quotes no content of the file.
		return nil, fmt.Errorf("token store %s: %w", s.path, err)
	}
	return all, nil
}

// decodeFile reads the file's entries, in the list format or the earlier
// object format; entries without a token are left out.
func decodeFile(data []byte) (map[Key]*Token, error) {
	all := map[Key]*Token{}
	if len(data) > maxFileSize {
		return nil, fmt.Errorf("file larger than %d bytes", maxFileSize)
	}
	if trimmed := bytes.TrimSpace(data); len(trimmed) > 0 && trimmed[0] == '{' {
		var old map[string]*Token
		if err := json.Unmarshal(trimmed, &old); err != nil {
			return nil, err
		}
		for server, t := range old {
			if t != nil {
				all[Key{Server: server, Issuer: t.Issuer}] = t
			}
		}
		return all, nil
	}
	var entries []fileEntry
	if err := json.Unmarshal(data, &entries); err != nil {
		return nil, err
	}
	for _, e := range entries {
		if e.Token != nil {
			all[Key{User: e.User, Server: e.Server, Issuer: e.Issuer}] = e.Token
		}
	}
	return all, nil
}

func (s *FileStore) write(all map[Key]*Token) error {
	entries := make([]fileEntry, 0, len(all))
	for k, t := range all {
		entries = append(entries, fileEntry{User: k.User, Server: k.Server, Issuer: k.Issuer, Token: t})
	}
	slices.SortFunc(entries, func(a, b fileEntry) int {
		return cmp.Or(cmp.Compare(a.User, b.User), cmp.Compare(a.Server, b.Server), cmp.Compare(a.Issuer, b.Issuer))
	})
	data, err := json.MarshalIndent(entries, "", "  ")
	if err != nil {
		return fmt.Errorf("token store: %w", err)
	}
	dir := filepath.Dir(s.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("token store: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".oauth-tokens-*")
	if err != nil {
		return fmt.Errorf("token store: %w", err)
	}
	defer os.Remove(tmp.Name()) // fails harmlessly after the rename
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("token store: %w", err)
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("token store: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("token store: %w", err)
	}
	if err := os.Rename(tmp.Name(), s.path); err != nil {
		return fmt.Errorf("token store: %w", err)
	}
	return nil
}
