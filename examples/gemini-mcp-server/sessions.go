package main

import (
	"container/list"
	"crypto/rand"
	"errors"
	"fmt"
	"sync"

	"google.golang.org/genai"
)

// defaultMaxSessions is how many sessions the genai backend keeps when the
// -max-sessions flag is not set.
const defaultMaxSessions = 100

// Errors of session lookups.
var (
	// errUnknownSession is returned for a session ID the store does not hold:
	// never issued, or evicted.
	errUnknownSession = errors.New("unknown session")
	// errNoSession is returned when the latest session is asked for and
	// there is none yet.
	errNoSession = errors.New("no session yet: call chat first")
)

// session is one conversation of the genai backend. Its mutex serializes
// turns: two replies to one session run one after the other, each seeing
// the history the previous one left.
type session struct {
	id string

	mu           sync.Mutex // held for a whole turn
	history      []*genai.Content
	model        string
	systemPrompt string
}

// sessionStore holds sessions by ID, keeping at most max of them: adding a
// session beyond that evicts the least recently used one. The most recently
// used session (created or continued) is the "latest". It is safe for
// concurrent use.
type sessionStore struct {
	max int

	mu    sync.Mutex
	byID  map[string]*list.Element // values are *session
	order *list.List               // front is the most recently used
}

// newSessionStore returns an empty store keeping at most max sessions; max
// <= 0 means defaultMaxSessions.
func newSessionStore(max int) *sessionStore {
	if max <= 0 {
		max = defaultMaxSessions
	}
	return &sessionStore{max: max, byID: make(map[string]*list.Element), order: list.New()}
}

// add stores s as the most recently used session, evicting the least
// recently used sessions beyond the limit.
func (st *sessionStore) add(s *session) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if e, ok := st.byID[s.id]; ok {
		st.order.Remove(e)
	}
	st.byID[s.id] = st.order.PushFront(s)
	for st.order.Len() > st.max {
		old := st.order.Back()
		st.order.Remove(old)
		delete(st.byID, old.Value.(*session).id)
	}
}

// lookup returns the session with the given ID, or the most recently used
// one when id is "", and marks it as the most recently used.
func (st *sessionStore) lookup(id string) (*session, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	var e *list.Element
	if id == "" {
		e = st.order.Front()
		if e == nil {
			return nil, errNoSession
		}
	} else {
		var ok bool
		if e, ok = st.byID[id]; !ok {
			return nil, fmt.Errorf("%w %q (sessions are kept in memory, at most %d)", errUnknownSession, id, st.max)
		}
	}
	st.order.MoveToFront(e)
	return e.Value.(*session), nil
}

// len reports how many sessions the store holds.
func (st *sessionStore) len() int {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.order.Len()
}

// newSessionID returns a random version 4 UUID in its canonical form
// ("a1b2c3d4-e5f6-4890-abcd-ef1234567890"), the shape Gemini CLI uses for
// its session IDs.
func newSessionID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
