package lossy

import (
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// item is a value of the tests: a pushed number, or how many were lost.
type item struct{ v, lost int }

func newItems(capacity int) *Chan[item] {
	return New(capacity, func(n int) item { return item{lost: n} })
}

// TestPushNeverBlocksAndDropsOldest: pushing never waits for a reader; a
// reader that did not keep up receives the newest values in order, and
// counts of the others in their place, so that every value pushed is
// either received or counted.
func TestPushNeverBlocksAndDropsOldest(t *testing.T) {
	const capacity, n = 100, 10000
	c := newItems(capacity)
	defer c.Stop()
	pushed := make(chan struct{})
	go func() {
		defer close(pushed)
		for i := range n {
			c.Push(item{v: i})
		}
	}()
	select {
	case <-pushed:
	case <-time.After(30 * time.Second):
		t.Fatalf("pushing %d values without a reader did not return within 30s, want no waiting", n)
	}
	seen, last := 0, -1
	for seen < n {
		select {
		case it := <-c.Out():
			if it.lost > 0 {
				seen += it.lost
				continue
			}
			if it.v <= last {
				t.Fatalf("value %d after %d, want the order of the pushes", it.v, last)
			}
			if it.v != seen {
				t.Fatalf("value %d where %d values were accounted for, want every value received or counted", it.v, seen)
			}
			seen, last = seen+1, it.v
		case <-time.After(5 * time.Second):
			t.Fatalf("after %d of %d values accounted for, nothing within 5s", seen, n)
		}
	}
	if last != n-1 {
		t.Errorf("last value received = %d, want the newest, %d", last, n-1)
	}
}

// TestKeepingUpLosesNothing: a reader that keeps up gets every value and
// no count.
func TestKeepingUpLosesNothing(t *testing.T) {
	c := newItems(4)
	defer c.Stop()
	for i := range 1000 {
		c.Push(item{v: i})
		if it := <-c.Out(); it != (item{v: i}) {
			t.Fatalf("received %+v, want value %d", it, i)
		}
	}
}

func TestStop(t *testing.T) {
	c := newItems(8)
	c.Push(item{v: 1})
	c.Push(item{v: 2})
	if it := <-c.Out(); it.v != 1 {
		t.Fatalf("first value = %+v, want 1", it)
	}
	c.Stop()
	// What was still queued is dropped and the channel is closed.
	if it, ok := <-c.Out(); ok {
		t.Errorf("receive after Stop = %+v, want a closed channel", it)
	}
	c.Stop()           // twice is fine
	c.Push(item{v: 3}) // after Stop: dropped, never blocks
	if _, ok := <-c.Out(); ok {
		t.Error("receive after a push after Stop succeeded, want a closed channel")
	}
}

func TestStopConcurrently(t *testing.T) {
	c := newItems(2)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			c.Push(item{v: i})
			c.Stop()
		})
	}
	wg.Wait()
	for range c.Out() {
		// Drain whatever was delivered before Stop; the loop ends because
		// Out is closed.
	}
}
