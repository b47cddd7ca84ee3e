package mcpconn

import (
	"sync"
	"time"
)

// A server may ask the host something while one of its tool calls runs
// (elicitation/create, sampling/createMessage, or on 2026-07-28 a call's
// input request). The host may put the question to a person, who takes
// far longer than Timeout to answer. While any such question of a
// connection is being answered, the silence limit (Timeout) of its calls
// in flight is held: it starts again from zero once the last answer has
// been given. MaxCallTime still bounds every call, and bounds the
// question itself.
//
// One limit is mcp-go's: its streamable HTTP client gives a server's
// request (elicitation/create, sampling/createMessage before 2026-07-28)
// 30 seconds and cannot send an answer after that, so there a person has
// 30 seconds to answer; the 2026-07-28 input requests have no such limit.
//
// Before 2026-07-28 a server's question does not say which call it is for
// (over stdio nothing ties them), so a question holds every call of the
// connection, not only its own.

// clock is the silence limit of the calls in flight on one connection.
type clock struct {
	mu     sync.Mutex
	asking int                     // questions being answered
	calls  map[*keepAlive]struct{} // calls bounded by silence
}

// start registers k and starts its timer, unless a question is being
// answered (then the answer starts it).
func (cl *clock) start(k *keepAlive) {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	if cl.calls == nil {
		cl.calls = map[*keepAlive]struct{}{}
	}
	cl.calls[k] = struct{}{}
	if cl.asking == 0 {
		k.timer.Reset(k.quiet)
	}
}

// stop unregisters k and stops its timer.
func (cl *clock) stop(k *keepAlive) {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	delete(cl.calls, k)
	k.timer.Stop()
}

// beat starts k's silence limit again from zero (a progress report),
// unless a question holds it.
func (cl *clock) beat(k *keepAlive) {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	if _, ok := cl.calls[k]; ok && cl.asking == 0 {
		k.timer.Reset(k.quiet)
	}
}

// hold stops the silence limit of every call until release is called;
// holds nest. release may be called more than once.
func (cl *clock) hold() (release func()) {
	cl.mu.Lock()
	cl.asking++
	for k := range cl.calls {
		k.timer.Stop()
	}
	cl.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			cl.mu.Lock()
			defer cl.mu.Unlock()
			cl.asking--
			if cl.asking > 0 {
				return
			}
			for k := range cl.calls {
				k.timer.Reset(k.quiet)
			}
		})
	}
}

// questionTime bounds the host's answer to one question of a server: the
// longest a call may run, since the question holds the call's own limit.
func (s *Spec) questionTime() time.Duration { return s.maxCallTime() }
