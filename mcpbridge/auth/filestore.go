package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// FileStore is a [Store] in one JSON file, an object from key to Token,
// written with mode 0600 in a directory of mode 0700. Writes replace the
// file atomically (a temporary file renamed over it). It is safe for
// concurrent use within one process; two processes writing the same file
// may lose each other's last write, never the file.
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
func (s *FileStore) Load(ctx context.Context, key string) (*Token, error) {
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
func (s *FileStore) Save(ctx context.Context, key string, t *Token) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if t == nil {
		return errors.New("token store: nil token")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	all, err := s.read()
	if err != nil {
		return err
	}
	c := *t
	all[key] = &c
	return s.write(all)
}

// Delete removes the token of key; a missing one is not an error.
func (s *FileStore) Delete(ctx context.Context, key string) error {
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

func (s *FileStore) read() (map[string]*Token, error) {
	all := map[string]*Token{}
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
	if err := json.NewDecoder(f).Decode(&all); err != nil {
		// The decoder's message quotes no content of the file.
		return nil, fmt.Errorf("token store %s: %w", s.path, err)
	}
	for k, t := range all {
		if t == nil {
			delete(all, k)
		}
	}
	return all, nil
}

func (s *FileStore) write(all map[string]*Token) error {
	data, err := json.MarshalIndent(all, "", "  ")
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
