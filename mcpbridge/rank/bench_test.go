package rank_test

import (
	"context"
	"fmt"
	"testing"

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
