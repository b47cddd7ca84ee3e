package handoff

import (
	"bytes"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// goid returns the id of the calling goroutine, from its stack's header.
func goid(t *testing.T) uint64 {
	var buf [64]byte
	line := buf[:runtime.Stack(buf[:], false)]
	line = bytes.TrimPrefix(line, []byte("goroutine "))
	line = line[:bytes.IndexByte(line, ' ')]
	id, err := strconv.ParseUint(string(line), 10, 64)
	if err != nil {
		t.Errorf("goroutine id: %v", err)
	}
	return id
}

// TestGoReusesWorkers: functions handed one after another run on another
// goroutine than the caller's, and mostly on the same kept worker.
func TestGoReusesWorkers(t *testing.T) {
	p := New(time.Minute)
	defer p.Close()
	me := goid(t)
	ids := map[uint64]bool{}
	const n = 200
	for range n {
		got := make(chan uint64, 1)
		p.Go(func() { got <- goid(t) })
		id := <-got
		if id == me {
			t.Fatal("Go ran the function on the caller's goroutine")
		}
		ids[id] = true
	}
	if len(ids) == n {
		t.Errorf("%d functions ran on %d goroutines: no worker was reused", n, len(ids))
	}
}

// TestGoConcurrent: functions handed while others run each get a
// goroutine (none waits for another), and all run.
func TestGoConcurrent(t *testing.T) {
	p := New(time.Minute)
	defer p.Close()
	const n = 20
	release := make(chan struct{})
	var started, ended sync.WaitGroup
	started.Add(n)
	ended.Add(n)
	for range n {
		p.Go(func() {
			defer ended.Done()
			started.Done()
			<-release // all n run at once, or this never returns
		})
	}
	started.Wait()
	close(release)
	ended.Wait()
}

// TestIdleWorkersEnd: a worker with nothing to do ends after idle without
// Close (goleak waits for it to end); after Close, Go still
// runs its function, and waiting workers have ended.
func TestIdleWorkersEnd(t *testing.T) {
	t.Run("idle", func(t *testing.T) {
		before := goleak.IgnoreCurrent() // taken before the worker exists
		p := New(time.Millisecond)
		done := make(chan struct{})
		p.Go(func() { close(done) })
		<-done
		goleak.VerifyNone(t, before)
	})
	t.Run("close", func(t *testing.T) {
		before := goleak.IgnoreCurrent()
		p := New(time.Hour)
		done := make(chan struct{})
		p.Go(func() { close(done) })
		<-done
		p.Close()
		p.Close() // a second Close is harmless
		goleak.VerifyNone(t, before)
		after := make(chan struct{})
		p.Go(func() { close(after) })
		<-after
	})
}
