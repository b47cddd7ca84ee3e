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

// smallToolSchema is a realistic ~520-byte MCP tool input schema: a
// required string, an integer enum, an array of objects with a nullable
// type array, and a nested object with a format and a default.
const smallToolSchema = `{
 "type": "object",
 "properties": {
  "query": {"type": "string", "description": "Search text.", "minLength": 1},
  "priority": {"type": "integer", "enum": [1, 2, 3], "description": "Issue priority."},
  "labels": {
   "type": "array",
   "items": {
    "type": "object",
    "properties": {
     "name": {"type": "string"},
     "color": {"type": ["string", "null"], "pattern": "^#[0-9a-f]{6}$"}
    },
    "required": ["name"]
   },
   "maxItems": 20
  },
  "options": {
   "type": "object",
   "properties": {
    "since": {"type": "string", "format": "date-time"},
    "limit": {"type": "integer", "default": 50, "minimum": 1}
   }
  }
 },
 "required": ["query"],
 "additionalProperties": false
}`

// BenchmarkConvertSmall converts a typical small tool schema
// (smallToolSchema) for each target: the per-tool cost of discovery.
func BenchmarkConvertSmall(b *testing.B) {
	raw := []byte(smallToolSchema)
	for _, target := range allTargets {
		b.Run(target.String(), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(raw)))
			opts := &Options{Target: target}
			for b.Loop() {
				if _, err := Convert(raw, opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
