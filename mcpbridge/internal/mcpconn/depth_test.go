package mcpconn

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
)

// deepServer starts testserver.ServeDeep with framing and returns its spec.
func deepServer(t *testing.T, framing string) Spec {
	kind := StreamableHTTP
	if framing == "legacy" {
		kind = SSE
	}
	return Spec{Name: "deep-" + framing, Kind: kind, URL: testserver.ServeDeep(t, framing), Timeout: time.Minute, DiscoverProbe: 3 * time.Second}
}

// TestDeepOverHTTP: on streamable HTTP (JSON and SSE-framed answers) and on
// the SSE transport, a tool nested 5,000 deep is skipped while its siblings
// are listed at once, and a call result nested 20,000 deep (which mcp-go
// would drop, leaving the call to wait for its timeout) fails at once with
// an error saying why; the connection stays usable.
func TestDeepOverHTTP(t *testing.T) {
	for _, framing := range []string{"json", "sse", "legacy"} {
		t.Run(framing, func(t *testing.T) {
			c := dialT(t, deepServer(t, framing))
			listsSiblingsAtOnce(t, c)
			skipped := c.Skipped()
			if len(skipped) != 1 || skipped[0].Name != "deep_tool" || !strings.Contains(skipped[0].Reason, "deeper than 2000 levels") {
				t.Errorf("Skipped() = %+v, want deep_tool nesting too deep", skipped)
			}
			// Waiting for the minute's timeout would end in a timeout
			// error, not one naming the depth.
			raw, err := c.CallTool(context.Background(), "after", nil)
			if err == nil || !strings.Contains(err.Error(), "nested more than 2000 levels deep") || strings.Contains(err.Error(), "timed out") {
				t.Errorf("CallTool() = %.40s, %v; want an error naming the depth", raw, err)
			}
			if c.Err() != nil {
				t.Errorf("connection error %v, want the connection alive", c.Err())
			}
			if _, err := c.ListTools(context.Background()); err != nil {
				t.Errorf("ListTools() after the deep call = %v", err)
			}
		})
	}
}

func TestGuardDepth(t *testing.T) {
	deep := strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1)
	obj := strings.Repeat(`{"a":`, MaxDepth+1) + "1" + strings.Repeat("}", MaxDepth+1)
	tests := []struct {
		name, in, want string
		err            bool
	}{
		{"shallow", `{"id":1,"result":{}}`, `{"id":1,"result":{}}`, false},
		{"response", `{"jsonrpc":"2.0","result":` + obj + `,"id":7}`,
			`{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"the server's response nested more than 2000 levels deep; mcpbridge dropped it"}}`, false},
		{"string id", `{"id": "a\"b","result":` + obj + `}`,
			`{"jsonrpc":"2.0","id":"a\"b","error":{"code":-32603,"message":"the server's response nested more than 2000 levels deep; mcpbridge dropped it"}}`, false},
		{"list entry", `{"id":1,"result":{"tools":[{"name":"x","s":` + deep + `}]}}`,
			`{"id":1,"result":{"tools":[{"name":"x","_mcpbridgeTooDeep":true}]}}`, false},
		{"request refused", `{"id":1,"method":"sampling/createMessage","params":` + obj + `}`, "", true},
		{"notification refused", `{"method":"notifications/message","params":` + obj + `}`, "", true},
		{"nested id does not count", `{"result":{"id":1,"x":` + obj + `}}`, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := guardDepth([]byte(tt.in))
			if (err != nil) != tt.err || !tt.err && string(got) != tt.want {
				t.Errorf("guardDepth() = %.200s, %v; want %.200s (error %v)", got, err, tt.want, tt.err)
			}
		})
	}
}

// FuzzGuardDepth: guardDepth never panics, and what it lets through from
// valid JSON is valid JSON nesting at most the bound (plus the one level of
// a placeholder that replaced an entry nested exactly one too deep).
func FuzzGuardDepth(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","s":{"b":{"c":{}}}},{"name":"z"}]}}`,
		`{"a":{"b":{"c":{"d":[{"e":{}}]}}}}`,
		`{"id":"x","result":{"a":{"b":{"c":[1]}}}}`,
		`{"method":"m","params":{"a":{"b":{"c":1}}}}`,
		`[[[[["x"]]]]]`,
		`{"s":"{{{{\"","id":2.5e3,"error":{"a":{"b":{"c":{}}}}}`,
	} {
		f.Add([]byte(s))
	}
	const max = 4
	f.Fuzz(func(t *testing.T, msg []byte) {
		out, err := guardDepthN(msg, max)
		if err != nil || !json.Valid(msg) {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("guardDepthN(%s) = %s, not JSON", msg, out)
		}
		if d := depthOf(out); d > max+1 {
			t.Fatalf("guardDepthN(%s) = %s, nesting %d > %d", msg, out, d, max)
		}
	})
}

// depthOf returns how deeply the valid JSON b nests.
func depthOf(b []byte) int {
	dec := json.NewDecoder(bytes.NewReader(b))
	depth, most := 0, 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return most
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
			most = max(most, depth)
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
}

// BenchmarkGuardDepth measures the depth guard on a 1 MB tools/list answer
// against json.Valid, the cheapest full pass Go's decoder makes over the
// same bytes (mcp-go decodes every answer at least once).
func BenchmarkGuardDepth(b *testing.B) {
	var page bytes.Buffer
	page.WriteString(`{"jsonrpc":"2.0","id":1,"result":{"tools":[`)
	for i := 0; page.Len() < 1<<20; i++ {
		if i > 0 {
			page.WriteByte(',')
		}
		fmt.Fprintf(&page, `{"name":"tool_%d","description":"does \"thing\" %d","inputSchema":{"type":"object","properties":{"a":{"type":"string","enum":["x","y"]},"b":{"type":"array","items":{"type":"integer"}}}}}`, i, i)
	}
	page.WriteString(`]}}`)
	msg := page.Bytes()
	b.Run("baseline=json.Valid", func(b *testing.B) {
		b.SetBytes(int64(len(msg)))
		for b.Loop() {
			if !json.Valid(msg) {
				b.Fatal("invalid")
			}
		}
	})
	b.Run("guardDepth", func(b *testing.B) {
		b.SetBytes(int64(len(msg)))
		for b.Loop() {
			if _, err := guardDepth(msg); err != nil {
				b.Fatal(err)
			}
		}
	})
}
