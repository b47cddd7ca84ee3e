package schema

import (
	"slices"
	"testing"
	"time"
)

// BenchmarkConvertLinearity converts the Notion-like fixture at 1x and 8x
// its size (notionJSON in bench_test.go) alternately in one loop, for each
// target, and reports the median cost per input byte of each
// ("small-ns/B", "large-ns/B") and their ratio ("ratio"): 1 is linear, 8
// would be quadratic. The ratio comes from one run, so load on the machine
// hits both sizes alike.
func BenchmarkConvertLinearity(b *testing.B) {
	small, large := notionJSON(b, 1), notionJSON(b, 8)
	for _, target := range allTargets {
		b.Run(target.String(), func(b *testing.B) {
			opts := &Options{Target: target}
			var ts, tl []float64
			for b.Loop() {
				t0 := time.Now()
				if _, err := Convert(small, opts); err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				if _, err := Convert(large, opts); err != nil {
					b.Fatal(err)
				}
				t2 := time.Now()
				ts = append(ts, float64(t1.Sub(t0).Nanoseconds())/float64(len(small)))
				tl = append(tl, float64(t2.Sub(t1).Nanoseconds())/float64(len(large)))
			}
			ms, ml := medianFloat(ts), medianFloat(tl)
			b.ReportMetric(ml/ms, "ratio")
			b.ReportMetric(ms, "small-ns/B")
			b.ReportMetric(ml, "large-ns/B")
		})
	}
}

// medianFloat returns the median of xs (which it sorts), 0 when empty.
func medianFloat(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	return xs[len(xs)/2]
}
