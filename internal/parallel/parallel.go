// Package parallel runs the function calls of one model turn at once, a
// bounded number at a time, and gives their results in call order: what
// mcpbridge's Declarations.ExecuteAll and the agent package's turns share.
package parallel

import "sync"

// Run calls f on every item concurrently, at most limit at a time (limit
// below 1 means 1), and returns the results in the order of items once
// every call has returned; a single item is run on the caller's goroutine.
// ended, if not nil, is called with each result as its call returns, on the
// goroutine that ran it (concurrently for different items); it must not
// block.
func Run[T, R any](items []T, limit int, f func(T) R, ended func(R)) []R {
	results := make([]R, len(items))
	done := func(i int, r R) {
		results[i] = r
		if ended != nil {
			ended(r)
		}
	}
	if len(items) == 1 {
		done(0, f(items[0]))
		return results
	}
	var wg sync.WaitGroup
	slots := make(chan struct{}, max(limit, 1))
	for i, it := range items {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			done(i, f(it))
		})
	}
	wg.Wait()
	return results
}
