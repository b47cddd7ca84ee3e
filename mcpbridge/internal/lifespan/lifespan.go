// Package lifespan ends short-lived work when a longer lifetime ends, with
// one registration on the lifetime's context instead of one per piece of
// work.
//
// [context.AfterFunc] costs two allocations per call (its context and the
// stop function); on a path that runs for every tool call that is
// measurable. A [Set] registers once on the lifetime and keeps the
// functions of the work in flight in a map whose slots are reused, so
// adding and removing one allocates nothing in the steady state.
//
//	calls := lifespan.New(connLife)
//	ctx, cancel := context.WithCancel(ctx)
//	defer cancel()
//	key := calls.Add(cancel)
//	defer calls.Remove(key)
package lifespan

import (
	"context"
	"sync"
)

// Set calls the functions added to it once its lifetime ends. It is safe
// for concurrent use. A zero Set has a lifetime that never ends: it keeps
// what is added until it is removed.
type Set struct {
	mu    sync.Mutex
	ended bool
	next  Key
	fns   map[Key]func()
}

// Key names one function added to a [Set]. The zero Key names none.
type Key uint64

// New returns a Set whose functions are called when life ends. The Set
// holds one [context.AfterFunc] registration on life for as long as life
// lasts.
func New(life context.Context) *Set {
	s := new(Set)
	context.AfterFunc(life, s.End)
	return s
}

// Add registers f to be called, once, when the Set's lifetime ends, and
// returns the key that removes it. If the lifetime has already ended, f is
// called at once, before Add returns, and the zero Key is returned. f is
// called without any lock held; like a [context.CancelFunc] it should
// return quickly.
func (s *Set) Add(f func()) Key {
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		f()
		return 0
	}
	if s.fns == nil {
		s.fns = make(map[Key]func())
	}
	s.next++
	k := s.next
	s.fns[k] = f
	s.mu.Unlock()
	return k
}

// Remove unregisters the function of k and reports whether it was still
// registered: false when the lifetime ended first (the function has been
// or is being called), or for the zero Key.
func (s *Set) Remove(k Key) bool {
	if k == 0 {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.fns[k]; !ok {
		return false
	}
	delete(s.fns, k)
	return true
}

// End ends the Set's lifetime now: it calls every registered function
// once, before it returns, and marks the Set ended, so that later ones are
// called as they are added. The lifetime's own end does the same, but on
// a goroutine of its own; an owner that ends the lifetime itself calls End
// too, so that work which returns right after sees its function called.
// End may be called more than once.
func (s *Set) End() {
	s.mu.Lock()
	s.ended = true
	fns := s.fns
	s.fns = nil
	s.mu.Unlock()
	for _, f := range fns {
		f()
	}
}
