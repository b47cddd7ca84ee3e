package mcpconn

import (
	"context"
	"testing"
)

// BenchmarkAskProgress measures what a call that asks for progress costs
// before it is sent and after it returns, beyond one that does not: the
// token, the waiter, and keepAlive's bounds (RunStream asks on every call).
func BenchmarkAskProgress(b *testing.B) {
	c := &Conn{}
	ctx, cancel := context.WithCancel(WithProgress(context.Background(), func(float64, float64, string) {}))
	defer cancel()
	b.ReportAllocs()
	for b.Loop() {
		w, token, done := c.askProgress(ctx)
		if token == "" {
			b.Fatal("no progress token")
		}
		k := c.keepAlive(ctx, w)
		k.stop()
		done()
	}
}
