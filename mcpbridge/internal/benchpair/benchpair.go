// Package benchpair measures one side of a benchmark against a baseline
// in the same run, alternately, so that the ratio holds on a loaded
// machine: the benchmarks of mcpbridge and of its agent package pair the
// Bridge (or the agent) with what it is compared to. See BENCHMARKS.md at
// the repository root.
package benchpair

import (
	"slices"
	"testing"
	"time"
)

// Run runs the sub-benchmarks baseline and bridge, each on its own, then
// paired: both alternately in one loop (which goes first alternates too),
// reporting the ratio of their median times as "ratio", their medians as
// "base-ns" and "bridge-ns", and the median difference as "overhead-ns".
// The paired ratio is the figure to read: load on the machine hits both
// sides alike.
func Run(b *testing.B, base, bridge func(b *testing.B)) {
	b.Run("baseline", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			base(b)
		}
	})
	b.Run("bridge", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			bridge(b)
		}
	})
	b.Run("paired", func(b *testing.B) {
		var tb, tr []time.Duration
		i := 0
		for b.Loop() {
			first, second, d1, d2 := base, bridge, &tb, &tr
			if i%2 == 1 {
				first, second, d1, d2 = bridge, base, &tr, &tb
			}
			t0 := time.Now()
			first(b)
			t1 := time.Now()
			second(b)
			t2 := time.Now()
			*d1 = append(*d1, t1.Sub(t0))
			*d2 = append(*d2, t2.Sub(t1))
			i++
		}
		mb, mr := Median(tb), Median(tr)
		b.ReportMetric(float64(mr)/float64(mb), "ratio")
		b.ReportMetric(float64(mb), "base-ns")
		b.ReportMetric(float64(mr), "bridge-ns")
		b.ReportMetric(float64(mr-mb), "overhead-ns")
	})
}

// Median returns the median of ds (which it sorts), 0 when empty.
func Median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	return ds[len(ds)/2]
}
