package rank_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/mcpgenai/bridge/geminitest"
	"github.com/mcpgenai/bridge/mcpbridge/rank"
)

// benchDocs returns n documents of LiveMCPBench's tools: the 527, then
// copies of them under other server names (a host with four times the
// servers) up to n.
func benchDocs(b *testing.B, n int) []*rank.Document {
	tools := benchCorpus(b)
	out := make([]*rank.Document, 0, n)
	for i := 0; len(out) < n; i++ {
		t := tools[i%len(tools)]
		if copy := i / len(tools); copy > 0 {
			t.Server = fmt.Sprintf("%s-%d", t.Server, copy)
		}
		out = append(out, rank.NewDocument(t))
	}
	return out
}

// benchQuery is a request of LiveMCPBench's length, in two languages.
var benchQuery = rank.Query{
	Text:    "Generate a well-formatted PDF report in /root/pdf/report.pdf, summarizing current trends and including a word cloud. 天気も調べて。",
	Context: []string{"Earlier: find the latest papers about tool retrieval", "search_papers"},
}

// BenchmarkLexical ranks 527 and 2,000 tools for one request, each tool's
// document built beforehand (as a Bridge keeps it).
func BenchmarkLexical(b *testing.B) {
	for _, n := range []int{527, 2000} {
		docs := benchDocs(b, n)
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := (rank.Lexical{}).Rank(context.Background(), benchQuery, docs); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkEmbedding ranks 527 and 2,000 tools with every tool text
// cached, against geminitest on loopback: one embedding request for the
// query (a new query each time), then the cosines.
func BenchmarkEmbedding(b *testing.B) {
	for _, n := range []int{527, 2000} {
		docs := benchDocs(b, n)
		srv := geminitest.New(b, nil)
		ctx := context.Background()
		e := rank.NewEmbedding(srv.Client(ctx).Models, &rank.EmbeddingOptions{CacheSize: 2 * n})
		if _, err := e.Rank(ctx, benchQuery, docs); err != nil { // embeds the tools
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				i++
				q := benchQuery
				q.Text = fmt.Sprint(q.Text, i)
				if _, err := e.Rank(ctx, q, docs); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkNewDocument analyzes LiveMCPBench's 527 tools: what a Bridge
// does once per tool, on the first request that ranks.
func BenchmarkNewDocument(b *testing.B) {
	tools := benchCorpus(b)
	b.ReportAllocs()
	for b.Loop() {
		for _, t := range tools {
			rank.NewDocument(t)
		}
	}
}

// BenchmarkLexicalPaired ranks the same tools with the built-in ranker and
// with plain BM25 (the test's map-based one, over name and description),
// alternately in one loop so that both see the same machine load, and
// reports the medians (ms-builtin, ms-bm25) and ratio = builtin / bm25.
func BenchmarkLexicalPaired(b *testing.B) {
	tools := benchCorpus(b)
	for _, n := range []int{527, 2000} {
		docs := benchDocs(b, n)
		plain := make([]bm25Index, n)
		for i := range plain {
			t := tools[i%len(tools)]
			plain[i] = newBM25Index(t.Name, t.Description)
		}
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			var tb, tp []time.Duration
			for b.Loop() {
				start := time.Now()
				if _, err := (rank.Lexical{}).Rank(context.Background(), benchQuery, docs); err != nil {
					b.Fatal(err)
				}
				mid := time.Now()
				bm25Scores(benchQuery.Text, plain)
				tb, tp = append(tb, mid.Sub(start)), append(tp, time.Since(mid))
			}
			mb, mp := median(tb), median(tp)
			b.ReportMetric(float64(mb)/1e6, "ms-builtin")
			b.ReportMetric(float64(mp)/1e6, "ms-bm25")
			b.ReportMetric(float64(mb)/float64(mp), "ratio")
		})
	}
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}
