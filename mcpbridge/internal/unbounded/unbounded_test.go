package unbounded

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestPushNeverBlocksAndKeepsOrder(t *testing.T) {
	c := New[string]()
	defer c.Stop()
	const n = 10000
	// Nobody reads while the values are pushed: a push that waited for a
	// reader would never return.
	pushed := make(chan struct{})
	go func() {
		defer close(pushed)
		for i := range n {
			c.Push(fmt.Sprint(i))
		}
	}()
	select {
	case <-pushed:
	case <-time.After(30 * time.Second):
		t.Fatalf("pushing %d values without a reader did not return within 30s, want no waiting", n)
	}
	for i := range n {
		select {
		case v := <-c.Out():
			if v != fmt.Sprint(i) {
				t.Fatalf("value %d = %q, want %q (in order, none dropped)", i, v, fmt.Sprint(i))
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("value %d not delivered within 5s", i)
		}
	}
}

func TestStop(t *testing.T) {
	c := New[int]()
	c.Push(1)
	c.Push(2)
	if v := <-c.Out(); v != 1 {
		t.Fatalf("first value = %d, want 1", v)
	}
	c.Stop()
	// What was still queued is dropped and the channel is closed.
	if v, ok := <-c.Out(); ok {
		t.Errorf("receive after Stop = %d, want a closed channel", v)
	}
	c.Stop()  // twice is fine
	c.Push(3) // after Stop: dropped, never blocks
	if _, ok := <-c.Out(); ok {
		t.Error("receive after a push after Stop succeeded, want a closed channel")
	}
}

func TestStopConcurrently(t *testing.T) {
	c := New[int]()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			c.Push(i)
			c.Stop()
		})
	}
	wg.Wait()
	for range c.Out() {
		// Drain whatever was delivered before Stop; the loop ends because
		// Out is closed.
	}
}
