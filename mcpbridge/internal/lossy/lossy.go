// Package lossy delivers values on a channel from a bounded queue, so that
// the sender never waits for the reader and a slow reader never holds more
// than the queue's capacity: when the queue is full, a push drops the
// oldest value, and the reader receives, in the place of the values it
// lost, one value saying how many. It knows nothing of what the values
// are.
//
//	c := lossy.New(2, func(n int) string { return fmt.Sprintf("%d lost", n) })
//	defer c.Stop()
//	c.Push("a"); c.Push("b"); c.Push("c") // never blocks; "a" is dropped
//	fmt.Println(<-c.Out(), <-c.Out(), <-c.Out()) // "1 lost" "b" "c"
package lossy

import "sync"

// A Chan is one reader's channel fed from its own queue by one goroutine,
// which [Chan.Stop] ends. Its methods are safe for concurrent use.
type Chan[T any] struct {
	out    chan T
	wake   chan struct{} // capacity 1: values were queued
	done   chan struct{} // closed by Stop
	exited chan struct{} // closed when deliver returns
	lostFn func(n int) T

	mu    sync.Mutex
	queue []T // a ring of capacity cap(queue)
	head  int // index of the oldest value
	n     int // values queued
	lost  int // values dropped since the reader last learned of it
}

// New returns a Chan whose queue holds at most capacity values (at least
// 1), and starts the goroutine that feeds [Chan.Out]; lost makes the value
// that tells the reader n values were dropped. Call [Chan.Stop] to end
// it.
func New[T any](capacity int, lost func(n int) T) *Chan[T] {
	c := &Chan[T]{
		out:    make(chan T),
		wake:   make(chan struct{}, 1),
		done:   make(chan struct{}),
		exited: make(chan struct{}),
		lostFn: lost,
		queue:  make([]T, max(capacity, 1)),
	}
	go c.deliver()
	return c
}

// Out returns the channel that receives the pushed values in the order of
// the pushes, with, where values were dropped, one value from lost before
// the oldest value kept. It is closed by [Chan.Stop].
func (c *Chan[T]) Out() <-chan T { return c.out }

// Push queues v without blocking; when the queue is full, the oldest value
// queued is dropped and counted. After [Chan.Stop], v is never delivered.
func (c *Chan[T]) Push(v T) {
	c.mu.Lock()
	var zero T
	if c.n == len(c.queue) {
		c.queue[c.head] = zero
		c.head = (c.head + 1) % len(c.queue)
		c.n--
		c.lost++
	}
	c.queue[(c.head+c.n)%len(c.queue)] = v
	c.n++
	c.mu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// next takes the next value to deliver: the count of the values lost, if
// any, else the oldest queued.
func (c *Chan[T]) next() (T, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var zero T
	switch {
	case c.lost > 0:
		n := c.lost
		c.lost = 0
		return c.lostFn(n), true
	case c.n > 0:
		v := c.queue[c.head]
		c.queue[c.head] = zero
		c.head = (c.head + 1) % len(c.queue)
		c.n--
		return v, true
	}
	return zero, false
}

// deliver sends values in order until Stop, then closes out.
func (c *Chan[T]) deliver() {
	defer close(c.exited)
	defer close(c.out)
	for {
		v, ok := c.next()
		if !ok {
			select {
			case <-c.wake:
				continue
			case <-c.done:
				return
			}
		}
		select {
		case c.out <- v:
		case <-c.done:
			return
		}
	}
}

// Stop ends delivery, drops what is still queued and returns once
// [Chan.Out] is closed. It may be called more than once, from any
// goroutine.
func (c *Chan[T]) Stop() {
	c.mu.Lock()
	select {
	case <-c.done:
	default:
		close(c.done)
	}
	clear(c.queue)
	c.n, c.lost = 0, 0
	c.mu.Unlock()
	<-c.exited
}
