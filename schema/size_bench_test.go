package schema

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/tools/txtar"
)

// serverFixture is one file of testdata/servers: the tools a published
// MCP server lists, as its tools/list answer gives them.
type serverFixture struct {
	Package string        `json:"package"`
	Version string        `json:"version"`
	Tools   []fixtureTool `json:"tools"`
}

// fixtureTool is one tool of a server fixture.
type fixtureTool struct {
	Name        string          `json:"name"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// loadServerFixtures reads every testdata/servers/*.json, by file name.
func loadServerFixtures(tb testing.TB) map[string]serverFixture {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "servers", "*.json"))
	if err != nil || len(files) == 0 {
		tb.Fatalf("no server fixtures: %v", err)
	}
	out := map[string]serverFixture{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		var s serverFixture
		if err := json.Unmarshal(b, &s); err != nil {
			tb.Fatalf("%s: %v", f, err)
		}
		out[filepath.Base(f)] = s
	}
	return out
}

// benchTools returns every tool of testdata/servers and the input of each
// golden file of a server's tool (testdata/golden/server-*.txtar: the
// Notion-like fixture among them), in a fixed order.
func benchTools(tb testing.TB) []fixtureTool {
	servers := loadServerFixtures(tb)
	var out []fixtureTool
	for _, file := range sortedKeys(servers) {
		out = append(out, servers[file].Tools...)
	}
	files, err := filepath.Glob(filepath.Join("testdata", "golden", "server-*.txtar"))
	if err != nil || len(files) == 0 {
		tb.Fatalf("no server golden files: %v", err)
	}
	for _, f := range files {
		ar, err := txtar.ParseFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		in, _ := section(ar, "input.json")
		out = append(out, fixtureTool{Name: filepath.Base(f), InputSchema: in})
	}
	return out
}

// BenchmarkDeclarationSize converts every tool of testdata/servers (the
// tools/list answers of published MCP servers) and the golden inputs of
// servers' tools (benchTools) for each target and
// reports, per target, the total size of the converted schemas against
// the raw input schemas' ("ratio", compact JSON bytes), the largest
// converted schema ("max-B") and how many tools the budget cut ("cut").
func BenchmarkDeclarationSize(b *testing.B) {
	tools := benchTools(b)
	for _, target := range allTargets {
		b.Run(target.String(), func(b *testing.B) {
			var raw, out, biggest, cut int
			for b.Loop() {
				raw, out, biggest, cut = 0, 0, 0, 0
				for _, tool := range tools {
					res, err := Convert(tool.InputSchema, &Options{Target: target})
					if err != nil {
						b.Fatal(err)
					}
					raw += compactLen(b, tool.InputSchema)
					out += int(res.Size)
					biggest = max(biggest, int(res.Size))
					if res.BudgetCuts > 0 {
						cut++
					}
				}
			}
			b.ReportMetric(float64(out)/float64(raw), "ratio")
			b.ReportMetric(float64(raw), "raw-B")
			b.ReportMetric(float64(out), "out-B")
			b.ReportMetric(float64(biggest), "max-B")
			b.ReportMetric(float64(cut), "cut")
		})
	}
}

// compactLen is the size of the JSON text raw once compacted.
func compactLen(tb testing.TB, raw []byte) int {
	tb.Helper()
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		tb.Fatal(err)
	}
	return buf.Len()
}
