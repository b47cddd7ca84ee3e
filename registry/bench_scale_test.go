package registry

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// BenchmarkRegistryLinearity registers 1,000 tools and 8,000 tools (over
// 10 servers, one SetTools per server, as benchmarkRegister does)
// alternately in one loop and reports the median time per tool of each
// ("small-ns/tool", "large-ns/tool") and their ratio ("ratio"): 1 is
// linear, 8 would be quadratic. The ratio comes from one run, so load on
// the machine hits both sizes alike.
func BenchmarkRegistryLinearity(b *testing.B) {
	const small, large = 1000, 8000
	order := make([]string, 10)
	for i := range order {
		order[i] = fmt.Sprintf("server-%d", 9-i)
	}
	inSmall, inLarge := benchTools(small), benchTools(large)
	var ts, tl []float64
	for b.Loop() {
		t0 := time.Now()
		r := register(order, inSmall)
		t1 := time.Now()
		r2 := register(order, inLarge)
		t2 := time.Now()
		if r.Len() != small || r2.Len() != large {
			b.Fatalf("Len() = %d and %d, want %d and %d", r.Len(), r2.Len(), small, large)
		}
		ts = append(ts, float64(t1.Sub(t0).Nanoseconds())/small)
		tl = append(tl, float64(t2.Sub(t1).Nanoseconds())/large)
	}
	ms, ml := medianOf(ts), medianOf(tl)
	b.ReportMetric(ml/ms, "ratio")
	b.ReportMetric(ms, "small-ns/tool")
	b.ReportMetric(ml, "large-ns/tool")
}

// medianOf returns the median of xs (which it sorts), 0 when empty.
func medianOf(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	return xs[len(xs)/2]
}
