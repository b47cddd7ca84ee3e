package lifespan

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// waitCalled waits for n calls counted in got, failing after a long bound
// (the lifetime's function runs in its own goroutine).
func waitCalled(t *testing.T, got *atomic.Int32, n int32) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for got.Load() < n {
		if time.Now().After(deadline) {
			t.Fatalf("calls = %d, want %d", got.Load(), n)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestSet(t *testing.T) {
	tests := []struct {
		name       string
		add        int // functions added before the end
		remove     int // of those, removed before the end
		wantCalled int32
	}{
		{name: "none", wantCalled: 0},
		{name: "all called", add: 3, wantCalled: 3},
		{name: "removed not called", add: 3, remove: 2, wantCalled: 1},
		{name: "all removed", add: 2, remove: 2, wantCalled: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			life, end := context.WithCancel(context.Background())
			s := New(life)
			var called atomic.Int32
			var keys []Key
			for range tt.add {
				keys = append(keys, s.Add(func() { called.Add(1) }))
			}
			for _, k := range keys[:tt.remove] {
				if !s.Remove(k) {
					t.Errorf("Remove(%d) before the end = false, want true", k)
				}
				if s.Remove(k) {
					t.Errorf("second Remove(%d) = true, want false", k)
				}
			}
			end()
			// One more function, added as the end is handled, is called
			// either by the end or at once: its call tells that the end
			// has been handled.
			s.Add(func() { called.Add(1) })
			waitCalled(t, &called, tt.wantCalled+1)
			if got := called.Load(); got != tt.wantCalled+1 {
				t.Errorf("calls = %d, want %d", got, tt.wantCalled+1)
			}
			for _, k := range keys[tt.remove:] {
				if s.Remove(k) {
					t.Errorf("Remove(%d) after the end = true, want false", k)
				}
			}
		})
	}
}

func TestAddAfterEnd(t *testing.T) {
	life, end := context.WithCancel(context.Background())
	s := New(life)
	end()
	// Wait for the end to be handled: a function added before is called.
	var first atomic.Int32
	s.Add(func() { first.Add(1) })
	waitCalled(t, &first, 1)
	called := false
	if k := s.Add(func() { called = true }); k != 0 {
		t.Errorf("Add after the end = %d, want the zero Key", k)
	}
	if !called {
		t.Error("Add after the end did not call its function before returning")
	}
	if s.Remove(0) {
		t.Error("Remove(0) = true, want false")
	}
}

// TestConcurrent races adds and removes against the end: every function is
// called exactly once when its Remove reported false, and never otherwise.
func TestConcurrent(t *testing.T) {
	life, end := context.WithCancel(context.Background())
	s := New(life)
	const workers, each = 8, 200
	counts := make([][]atomic.Int32, workers)
	removed := make([][]bool, workers)
	var wg sync.WaitGroup
	for w := range workers {
		counts[w] = make([]atomic.Int32, each)
		removed[w] = make([]bool, each)
		wg.Go(func() {
			for i := range each {
				k := s.Add(func() { counts[w][i].Add(1) })
				removed[w][i] = s.Remove(k)
			}
		})
	}
	end()
	wg.Wait()
	// Functions not removed may still be running in the end's goroutine.
	deadline := time.Now().Add(10 * time.Second)
	for w := range workers {
		for i := range each {
			want := int32(1)
			if removed[w][i] {
				want = 0
			}
			for counts[w][i].Load() < want && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
			}
			if got := counts[w][i].Load(); got != want {
				t.Fatalf("function %d/%d called %d times (removed %v), want %d", w, i, got, removed[w][i], want)
			}
		}
	}
}

// TestAddRemoveAllocs checks the reason the package exists: in the steady
// state, adding and removing a function allocates nothing, where
// context.AfterFunc takes two allocations.
func TestAddRemoveAllocs(t *testing.T) {
	life, end := context.WithCancel(context.Background())
	defer end()
	s := New(life)
	f := func() {}
	for range 100 {
		s.Remove(s.Add(f))
	}
	if got := testing.AllocsPerRun(1000, func() { s.Remove(s.Add(f)) }); got != 0 {
		t.Errorf("allocations per Add and Remove = %v, want 0", got)
	}
}

func TestZeroSet(t *testing.T) {
	var s Set
	called := false
	k := s.Add(func() { called = true })
	if k == 0 {
		t.Fatal("Add on a zero Set = the zero Key, want a key (its lifetime never ends)")
	}
	if called {
		t.Error("Add on a zero Set called its function")
	}
	if !s.Remove(k) {
		t.Errorf("Remove(%d) on a zero Set = false, want true", k)
	}
}

// TestEnd checks that End calls what is registered before it returns (so
// that a Remove right after finds nothing left), once, and that the
// lifetime's own end afterwards calls nothing again.
func TestEnd(t *testing.T) {
	life, end := context.WithCancel(context.Background())
	s := New(life)
	var got atomic.Int32
	k := s.Add(func() { got.Add(1) })
	s.End()
	if n := got.Load(); n != 1 {
		t.Fatalf("calls after End = %d, want 1 before End returns", n)
	}
	if s.Remove(k) {
		t.Errorf("Remove after End = true, want false (already called)")
	}
	s.End()
	end()
	s.Add(func() { got.Add(1) }) // ended: called at once
	if n := got.Load(); n != 2 {
		t.Errorf("calls = %d, want 2 (End twice and the lifetime's end call nothing again)", n)
	}
}
