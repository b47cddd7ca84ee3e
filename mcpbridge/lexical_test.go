package mcpbridge

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/mcpbridge/internal/livemcpbench"
	"github.com/mcpgenai/bridge/mcpbridge/internal/mcpconn"
	"github.com/mcpgenai/bridge/mcpbridge/rank"
	"github.com/mcpgenai/bridge/registry"
	"github.com/mcpgenai/bridge/schema"
)

// TestLexicalRanker: Rank scores a tool by its name, the server's name for
// it, its title, its description, and the names and descriptions of its
// parameters, whether declared as a genai.Schema or as JSON Schema. (The
// weighing itself is tested in the rank package and internal/lexical.)
func TestLexicalRanker(t *testing.T) {
	plain := func(name string) *Tool {
		return &Tool{Name: name, ServerTool: name, Description: "does things",
			Declaration: &genai.FunctionDeclaration{Name: name}}
	}
	tests := []struct {
		name  string
		tool  *Tool
		query string
	}{
		{"name", plain("zebra_tool"), "zebra"},
		{"server's name", &Tool{Name: "s__x", ServerTool: "walrus", Declaration: &genai.FunctionDeclaration{Name: "s__x"}}, "walrus"},
		{"title", &Tool{Name: "x", ServerTool: "x", Title: "Giraffe finder", Declaration: &genai.FunctionDeclaration{Name: "x"}}, "giraffe"},
		{"description", &Tool{Name: "x", ServerTool: "x", Description: "Counts penguins", Declaration: &genai.FunctionDeclaration{Name: "x"}}, "penguin"},
		{"parameter of a genai schema", &Tool{Name: "x", ServerTool: "x", Declaration: &genai.FunctionDeclaration{Name: "x",
			Parameters: &genai.Schema{Type: genai.TypeObject, Properties: map[string]*genai.Schema{"otter": {Type: genai.TypeString, Description: "a lynx"}}}}}, "otter lynx"},
		{"parameter of a JSON schema", &Tool{Name: "x", ServerTool: "x", Declaration: &genai.FunctionDeclaration{Name: "x",
			ParametersJsonSchema: map[string]any{"properties": map[string]any{"badger": map[string]any{"description": "a heron"}}}}}, "badger heron"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tools := []*Tool{plain("other_one"), tc.tool, plain("other_two")}
			conv := []*genai.Content{genai.NewContentFromText(tc.query, genai.RoleUser)}
			scores, err := lexicalScores(context.Background(), conv, tools)
			if err != nil || len(scores) != len(tools) {
				t.Fatalf("Rank() = %v, %v", scores, err)
			}
			if scores[1] <= 0 || scores[0] != 0 || scores[2] != 0 {
				t.Errorf("Rank(%q) = %v, want only the tool found by its %s to score", tc.query, scores, tc.name)
			}
		})
	}
	if scores, err := lexicalScores(context.Background(), nil, nil); err != nil || len(scores) != 0 {
		t.Errorf("Rank(nil, nil) = %v, %v", scores, err)
	}
}

// syntheticTools returns n tools with descriptions of random words, built
// the way the Bridge builds them (cached words).
func syntheticTools(n int) []*Tool {
	rng := rand.New(rand.NewPCG(1, 2))
	vocab := make([]string, 3000)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%dx", i)
	}
	tools := make([]*Tool, n)
	for i := range tools {
		desc := make([]string, 20)
		for j := range desc {
			desc[j] = vocab[rng.IntN(len(vocab))]
		}
		name := fmt.Sprintf("%s_%s_%d", vocab[rng.IntN(len(vocab))], vocab[rng.IntN(len(vocab))], i)
		params := &genai.Schema{Type: genai.TypeObject, Properties: map[string]*genai.Schema{
			vocab[rng.IntN(len(vocab))]: {Type: genai.TypeString, Description: vocab[rng.IntN(len(vocab))]},
			vocab[rng.IntN(len(vocab))]: {Type: genai.TypeInteger},
		}}
		tools[i] = &Tool{Name: name, ServerTool: name, Description: strings.Join(desc, " "),
			Declaration: &genai.FunctionDeclaration{Name: name, Parameters: params}, lex: &lexicalCache{}}
	}
	return tools
}

// BenchmarkLexicalRank ranks n tools against a conversation of a few
// turns, as each request of Run does when the tools exceed the limit. The
// tools' words are cached after the first request, as in a Bridge.
func BenchmarkLexicalRank(b *testing.B) {
	conv := []*genai.Content{
		genai.NewContentFromText("w12x w400x w77x please look at w2999x", genai.RoleUser),
		genai.NewContentFromText("Sure: w5x w6x w7x w8x", genai.RoleModel),
		genai.NewContentFromText("now w1500x w1501x with w33x and w2000x", genai.RoleUser),
	}
	for _, n := range []int{1000, 5000, 10000} {
		tools := syntheticTools(n)
		ctx := context.Background()
		_, _ = lexicalScores(ctx, conv, tools) // build the caches
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := lexicalScores(ctx, conv, tools); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkLexicalRankLinearity ranks 1,000 and 5,000 tools alternately in
// one loop, so that both see the same machine load, and reports the
// medians (ms-5000 is the figure of the target: under 5 ms) and ratio =
// (median ns per tool at 5,000) / (median ns per tool at 1,000): 1 is
// linear.
func BenchmarkLexicalRankLinearity(b *testing.B) {
	conv := []*genai.Content{
		genai.NewContentFromText("w12x w400x w77x please look at w2999x", genai.RoleUser),
		genai.NewContentFromText("Sure: w5x w6x w7x w8x", genai.RoleModel),
		genai.NewContentFromText("now w1500x w1501x with w33x and w2000x", genai.RoleUser),
	}
	ctx := context.Background()
	small, large := syntheticTools(1000), syntheticTools(5000)
	_, _ = lexicalScores(ctx, conv, small)
	_, _ = lexicalScores(ctx, conv, large)
	var ts, tl []time.Duration
	for b.Loop() {
		start := time.Now()
		_, _ = lexicalScores(ctx, conv, small)
		mid := time.Now()
		_, _ = lexicalScores(ctx, conv, large)
		ts, tl = append(ts, mid.Sub(start)), append(tl, time.Since(mid))
	}
	ms, ml := median(ts), median(tl)
	b.ReportMetric(float64(ml)/1e6, "ms-5000")
	b.ReportMetric(float64(ms)/1e6, "ms-1000")
	b.ReportMetric((float64(ml)/5000)/(float64(ms)/1000), "ratio")
}

// TestDefaultRankerLiveMCPBench: the Selection's default ranker, over
// Tools built as a Bridge builds them (schema conversion and all), orders
// LiveMCPBench's 527 tools as the rank package's Lexical orders the same
// tools read straight from the benchmark's file: what the rank package's
// recall figures measure is what a Bridge's selection does.
func TestDefaultRankerLiveMCPBench(t *testing.T) {
	bench, tools := liveMCPBenchTools(t)
	var docs []*rank.Document
	for _, tl := range bench {
		docs = append(docs, rank.NewDocument(rank.Tool{Name: tl.Name, Server: tl.Server, Description: tl.Description, InputSchema: tl.InputSchema}))
	}
	if len(tools) != 527 || len(docs) != 527 {
		t.Fatalf("%d tools and %d documents, want 527", len(tools), len(docs))
	}
	ctx := context.Background()
	for _, q := range []string{
		"Generate a well-formatted PDF report summarizing current WeChat Reading trends, with a word cloud.",
		"北京の故宮に行く予定です。どこに車を停めればいいですか？",
		"Help me check the high-speed train tickets from Beijing to Shanghai on next Wednesday.",
	} {
		conv := []*genai.Content{genai.NewContentFromText(q, genai.RoleUser)}
		scores, err := lexicalScores(ctx, conv, tools)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := rank.Lexical{}.Rank(ctx, rank.Query{Text: q}, docs)
		if diff := cmp.Diff(want.Scores(), scores, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
			t.Errorf("scores for %q differ from rank.Lexical's (-rank +bridge):\n%s", q, diff)
		}
	}
	if a, b := tools[0].RankDocument(), tools[0].RankDocument(); a != b {
		t.Errorf("RankDocument() built the document twice")
	}
}

// lexicalScores is what the Selection's default ranker gives tools for
// conversation: rank.Lexical's scores of their documents, in their order.
func lexicalScores(ctx context.Context, conversation []*genai.Content, tools []*Tool) ([]float64, error) {
	r, err := rankTools(ctx, rank.Lexical{}, rank.ConversationQuery(conversation), tools)
	if err != nil {
		return nil, err
	}
	return r.Scores(), nil
}

// liveMCPBenchTools returns LiveMCPBench's 527 tools as its file lists
// them and as a Bridge registers them (schema conversion and all), in the
// same order.
func liveMCPBenchTools(t testing.TB) ([]livemcpbench.Tool, []*Tool) {
	t.Helper()
	bench, err := livemcpbench.Tools(filepath.Join("rank", "testdata", "livemcpbench", "tools.json"))
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.DiscardHandler)
	var tools []*Tool
	for start := 0; start < len(bench); {
		server := bench[start].Server
		end := start
		for end < len(bench) && bench[end].Server == server {
			end++
		}
		cfg := &ServerConfig{Name: server}
		var listed []mcpconn.Tool
		for _, tl := range bench[start:end] {
			listed = append(listed, mcpconn.Tool{Name: tl.Name, Description: tl.Description, InputSchema: tl.InputSchema})
		}
		for _, def := range convertTools(cfg, listed, schema.Options{Target: schema.Gemini}, log) {
			e := registry.Entry{Name: def.raw.Name, Server: server, ServerTool: def.raw.Name}
			tools = append(tools, newTool(e, def, cfg))
		}
		start = end
	}
	return bench, tools
}
