package mcpconn

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"hash"
	"time"
)

// On a 2026-07-28 connection, list_changed notifications come through the
// subscriptions/listen stream, and only from the server's acknowledgement
// on. A list the server answered before that may predate the subscription:
// a change made in between would reach neither the list nor the stream.
// Waiting for the acknowledgement before the first list would close that
// gap at the price of a round trip on every connect; instead the first
// lists run beside the listen request, and a list requested before the
// acknowledgement is read again once it has come. When the second reading
// differs from the first, the connection reports a list_changed, as if the
// server had sent one; when it is the same, nothing happens.

// listenAckWait bounds the wait for the acknowledgement: a list requested
// before it is read again after this long even if it never came (and once
// more when it comes).
const listenAckWait = 2 * time.Second

// recheckDelay is how long after the acknowledgement such a list is read
// again, so that the second reading does not compete with the rest of the
// connect that asked for the first.
const recheckDelay = 100 * time.Millisecond

// Subscribed waits until the server has acknowledged the connection's
// subscriptions/listen stream, from which on every change to the lists the
// connection follows is announced (OnToolsChanged, OnPromptsChanged), and
// reports whether it has. A list kept from an earlier reading, which no
// recheck covers, is then safe to use: a change the server makes later is
// announced. Subscribed reports true at once when the connection keeps no
// listen stream (before 2026-07-28, or nothing to listen for), and false
// when the server ended a listen request without acknowledging it, or the
// connection ended, ctx ended or listenAckWait (capped by Timeout) passed
// before the acknowledgement came.
func (c *Conn) Subscribed(ctx context.Context) bool {
	c.listenMu.Lock()
	listening := c.stopListen != nil
	c.listenMu.Unlock()
	if !listening || isClosed(c.acked) {
		return true
	}
	wait := time.NewTimer(min(listenAckWait, c.spec.timeout()))
	defer wait.Stop()
	select {
	case <-c.acked:
		return true
	case <-c.unheard:
	case <-c.alive.Done():
	case <-ctx.Done():
	case <-wait.C:
	}
	return isClosed(c.acked)
}

// listKind is a list that list_changed concerns.
type listKind int

const (
	toolsList listKind = iota
	promptsList
)

// digest is the SHA-256 of a list's items.
type digest = [sha256.Size]byte

// earlyList is the last reading of one list that was requested before the
// acknowledgement; pending while a goroutine is to read it again.
type earlyList struct {
	sum     digest
	pending bool
}

// early reports whether a list requested now might predate the
// subscription: the connection listens and the server has not
// acknowledged yet.
func (c *Conn) early() bool {
	return c.stopListen != nil && !isClosed(c.acked)
}

// listSum digests the items of a list in order. A nil *listSum digests
// nothing, so that lists which need no digest pay nothing.
type listSum struct{ h hash.Hash }

// newListSum returns a digest when want is true, nil otherwise.
func newListSum(want bool) *listSum {
	if !want {
		return nil
	}
	return &listSum{h: sha256.New()}
}

// add digests one item, length first, so that the digest tells the
// boundaries of the items apart.
func (s *listSum) add(item []byte) {
	if s == nil {
		return
	}
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(item)))
	s.h.Write(n[:])
	s.h.Write(item)
}

// sum returns the digest so far.
func (s *listSum) sum() (out digest) {
	s.h.Sum(out[:0])
	return out
}

// recheck records sum as the last early reading of kind and makes sure a
// goroutine reads the list again after the acknowledgement.
func (c *Conn) recheck(kind listKind, sum digest) {
	c.mu.Lock()
	defer c.mu.Unlock()
	started := c.earlies[kind].pending
	c.earlies[kind] = earlyList{sum: sum, pending: true}
	if started || c.closing {
		return
	}
	c.wg.Add(1)
	go c.reread(kind)
}

// reread waits for the acknowledgement and recheckDelay, reads kind again
// and reports a list_changed when the reading differs from the early one.
// When the acknowledgement has not come within listenAckWait it reads
// anyway (a server may never send one), and that reading, early in its
// turn, is read again once the acknowledgement comes. It gives up when the
// connection ends.
func (c *Conn) reread(kind listKind) {
	defer c.wg.Done()
	for bound := listenAckWait; ; bound = 0 {
		acked := c.awaitAck(bound)
		pause := time.NewTimer(recheckDelay)
		select {
		case <-pause.C:
		case <-c.alive.Done():
			pause.Stop()
			return
		}
		ctx, cancel := context.WithTimeout(c.alive, c.spec.timeout())
		var sum digest
		var err error
		switch kind {
		case toolsList:
			_, sum, err = c.listTools(ctx, true)
		case promptsList:
			_, sum, err = c.listPrompts(ctx, true)
		}
		cancel()
		c.mu.Lock()
		first := c.earlies[kind].sum
		if acked || err != nil {
			c.earlies[kind] = earlyList{}
		} else {
			c.earlies[kind].sum = sum // still pending: the next round compares with it
		}
		c.mu.Unlock()
		if err != nil {
			if c.alive.Err() == nil {
				c.log.Warn("mcp server list could not be read again after subscriptions/listen; "+
					"a change made while connecting may be missed", "err", err)
			}
			return
		}
		if sum != first {
			ch := c.kick
			if kind == promptsList {
				ch = c.prompts
			}
			select {
			case ch <- struct{}{}:
			default:
			}
		}
		if acked {
			return
		}
	}
}

// awaitAck waits for the server's acknowledgement of subscriptions/listen,
// at most bound (0: while the connection lives), and reports whether it
// came.
func (c *Conn) awaitAck(bound time.Duration) bool {
	var expired <-chan time.Time
	if bound > 0 {
		t := time.NewTimer(bound)
		defer t.Stop()
		expired = t.C
	}
	select {
	case <-c.acked:
		return true
	case <-expired:
		c.log.Debug("mcp server did not acknowledge subscriptions/listen in time; reading the list again now, and once more when it does")
	case <-c.alive.Done():
	}
	return false
}
