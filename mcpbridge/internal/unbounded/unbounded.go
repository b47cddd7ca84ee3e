// Package unbounded delivers values on a channel from a queue without a
// bound, so that the sender never waits for the reader: a slow reader
// delays only itself, and holds what it has not read yet in memory. It
// knows nothing of what the values are.
//
//	c := unbounded.New[string]()
//	defer c.Stop()
//	c.Push("a") // never blocks
//	fmt.Println(<-c.Out())
package unbounded

import "sync"

// A Chan is one reader's channel fed from its own queue by one goroutine,
// which [Chan.Stop] ends. Its methods are safe for concurrent use.
type Chan[T any] struct {
	out    chan T
	wake   chan struct{} // capacity 1: values were queued
	done   chan struct{} // closed by Stop
	exited chan struct{} // closed when deliver returns

	mu    sync.Mutex
	queue []T
}

// New returns a Chan and starts the goroutine that feeds [Chan.Out]; call
// [Chan.Stop] to end it.
func New[T any]() *Chan[T] {
	c := &Chan[T]{
		out:    make(chan T),
		wake:   make(chan struct{}, 1),
		done:   make(chan struct{}),
		exited: make(chan struct{}),
	}
	go c.deliver()
	return c
}

// Out returns the channel that receives every pushed value, in the order
// of the pushes. It is closed by [Chan.Stop].
func (c *Chan[T]) Out() <-chan T { return c.out }

// Push queues v without blocking. After [Chan.Stop], v is never delivered.
func (c *Chan[T]) Push(v T) {
	c.mu.Lock()
	c.queue = append(c.queue, v)
	c.mu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// deliver sends queued values in order until Stop, then closes out.
func (c *Chan[T]) deliver() {
	defer close(c.exited)
	defer close(c.out)
	var zero T
	for {
		c.mu.Lock()
		var v T
		ok := len(c.queue) > 0
		if ok {
			v = c.queue[0]
			c.queue[0] = zero
			c.queue = c.queue[1:]
		}
		c.mu.Unlock()
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
	c.queue = nil
	c.mu.Unlock()
	<-c.exited
}
