package mcpconn

import (
	"encoding/json"
	"testing"
	"time"
)

func TestCacheHint(t *testing.T) {
	tests := []struct {
		name   string
		pages  [][2]string // ttlMs, cacheScope of each page
		ttl    time.Duration
		public bool
	}{
		{"one public page", [][2]string{{"60000", `"public"`}}, time.Minute, true},
		{"private", [][2]string{{"60000", `"private"`}}, time.Minute, false},
		{"the least of the pages", [][2]string{{"60000", `"public"`}, {"1000", `"public"`}}, time.Second, true},
		{"one page private", [][2]string{{"60000", `"public"`}, {"60000", `"private"`}}, time.Minute, false},
		{"a page without ttl", [][2]string{{"60000", `"public"`}, {"", `"public"`}}, 0, true},
		{"zero", [][2]string{{"0", `"public"`}}, 0, true},
		{"negative", [][2]string{{"-5", `"public"`}}, 0, true},
		{"null and a string", [][2]string{{"null", "null"}, {`"60000"`, `"public"`}}, 0, false},
		{"more than a day", [][2]string{{"1e300", `"public"`}}, maxCacheTTL, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := cacheHint{ttl: -1, public: true}
			for _, p := range tt.pages {
				h.add(json.RawMessage(p[0]), json.RawMessage(p[1]))
			}
			if h.ttl != tt.ttl || h.public != tt.public {
				t.Errorf("hint = ttl %v, public %v; want %v, %v", h.ttl, h.public, tt.ttl, tt.public)
			}
		})
	}
}

// FuzzDecodeTools: any list of kept JSON gives tools with a name each,
// never twice, and no panic.
func FuzzDecodeTools(f *testing.F) {
	f.Add([]byte(`[{"name":"a","inputSchema":{"type":"object"}},{"name":"a"},{"title":"no name"},"x",{"name":"b","execution":{"taskSupport":"required"}}]`))
	f.Add([]byte(`[{"name":"deep","inputSchema":` + string(deepJSON(MaxDepth+5)) + `}]`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		var raws []json.RawMessage
		if json.Unmarshal(raw, &raws) != nil {
			return
		}
		seen := map[string]bool{}
		for _, tl := range DecodeTools(raws) {
			if tl.Name == "" || seen[tl.Name] {
				t.Fatalf("DecodeTools gave %q (empty or twice)", tl.Name)
			}
			seen[tl.Name] = true
		}
	})
}

func deepJSON(n int) []byte {
	b := make([]byte, 0, 2*n+2)
	for range n {
		b = append(b, '[')
	}
	b = append(b, '1')
	for range n {
		b = append(b, ']')
	}
	return b
}
