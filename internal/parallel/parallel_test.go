package parallel

import (
	"bytes"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestRunOrderAndBound: every item runs, results come in item order
// whatever order the calls end in, at most limit run at once, and ended
// sees each result once.
func TestRunOrderAndBound(t *testing.T) {
	const n, limit = 40, 4
	items := make([]int, n)
	for i := range items {
		items[i] = i
	}
	var running, most atomic.Int32
	gate := make(chan struct{})
	var once sync.Once
	f := func(i int) int {
		now := running.Add(1)
		for m := most.Load(); now > m && !most.CompareAndSwap(m, now); m = most.Load() {
		}
		if now == limit {
			once.Do(func() { close(gate) }) // all slots taken: let them go
		}
		<-gate
		running.Add(-1)
		return i * i
	}
	var mu sync.Mutex
	var ended []int
	got := Run(items, limit, f, func(r int) {
		mu.Lock()
		ended = append(ended, r)
		mu.Unlock()
	})
	for i, r := range got {
		if r != i*i {
			t.Fatalf("result %d = %d, want %d", i, r, i*i)
		}
	}
	if m := most.Load(); m != limit {
		t.Errorf("at most %d ran at once, want %d", m, limit)
	}
	slices.Sort(ended)
	if !slices.Equal(ended, got) {
		t.Errorf("ended saw %v, want every result once", ended)
	}
}

// goroutineID returns the id of the calling goroutine, from its stack's
// header ("goroutine N [running]:").
func goroutineID() string {
	var buf [64]byte
	line := buf[:runtime.Stack(buf[:], false)]
	line = bytes.TrimPrefix(line, []byte("goroutine "))
	return string(line[:bytes.IndexByte(line, ' ')])
}

// TestRunOne: a single item runs on the caller's goroutine; none gives an
// empty result.
func TestRunOne(t *testing.T) {
	var ran string
	got := Run([]int{7}, 0, func(i int) int {
		ran = goroutineID()
		return i + 1
	}, nil)
	if len(got) != 1 || got[0] != 8 || ran != goroutineID() {
		t.Errorf("Run(one) = %v on goroutine %s, want [8] on the caller's (%s)", got, ran, goroutineID())
	}
	if got := Run(nil, 4, func(int) int { return 1 }, nil); len(got) != 0 {
		t.Errorf("Run(nil) = %v, want empty", got)
	}
}
