package auth

import (
	"context"
	"errors"
	"slices"
	"sync"
)

// MemoryStore is a [Store] and [Locker] in memory, for one process: what
// it keeps ends with it. The zero value is an empty store ready for use;
// it is safe for concurrent use and must not be copied after first use.
type MemoryStore struct {
	mu     sync.Mutex
	tokens map[Key]*Token
	held   map[Key]chan struct{} // closed when the key is unlocked
}

// NewMemoryStore returns an empty MemoryStore.
func NewMemoryStore() *MemoryStore { return &MemoryStore{} }

// Load returns a copy of the token kept for key, or (nil, nil).
func (s *MemoryStore) Load(ctx context.Context, key Key) (*Token, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tokens[key].clone(), nil
}

// Save keeps a copy of t for key.
func (s *MemoryStore) Save(ctx context.Context, key Key, t *Token) error {
	if err := checkSave(ctx, t); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tokens == nil {
		s.tokens = map[Key]*Token{}
	}
	s.tokens[key] = t.clone()
	return nil
}

// Delete removes what is kept for key.
func (s *MemoryStore) Delete(ctx context.Context, key Key) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.tokens, key)
	return nil
}

// Lock holds key within this process (see [Locker]).
func (s *MemoryStore) Lock(ctx context.Context, key Key) (func(), error) {
	for {
		s.mu.Lock()
		if s.held == nil {
			s.held = map[Key]chan struct{}{}
		}
		wait, busy := s.held[key]
		if !busy {
			done := make(chan struct{})
			s.held[key] = done
			s.mu.Unlock()
			var once sync.Once
			return func() {
				once.Do(func() {
					s.mu.Lock()
					delete(s.held, key)
					s.mu.Unlock()
					close(done)
				})
			}, nil
		}
		s.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// clone returns a copy of t that shares nothing with it; nil for nil.
func (t *Token) clone() *Token {
	if t == nil {
		return nil
	}
	c := *t
	c.Scopes = slices.Clone(t.Scopes)
	return &c
}

// checkSave refuses a Save when ctx has ended or t is nil.
func checkSave(ctx context.Context, t *Token) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if t == nil {
		return errors.New("token store: nil token")
	}
	return nil
}
