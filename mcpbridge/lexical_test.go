package mcpbridge

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/registry"
)

func TestLexicalRanker(t *testing.T) {
	tool := func(name, desc string, params ...string) *Tool {
		p := &genai.Schema{Type: genai.TypeObject, Properties: map[string]*genai.Schema{}}
		for _, n := range params {
			p.Properties[n] = &genai.Schema{Type: genai.TypeString}
		}
		return &Tool{Entry: registry.Entry{Name: name, ServerTool: name}, Description: desc, Declaration: &genai.FunctionDeclaration{Name: name, Parameters: p}}
	}
	tools := []*Tool{
		tool("send_email", "Sends an email message", "recipient", "subject"),
		tool("get_weather", "Current weather for a city", "city"),
		tool("convert_currency", "Converts money between currencies", "amount"),
		tool("search", "Searches", "ticker"),
	}
	user := func(s string) *genai.Content { return genai.NewContentFromText(s, genai.RoleUser) }
	tests := []struct {
		name string
		conv []*genai.Content
		want string // the best tool
	}{
		{"by description", []*genai.Content{user("what's the weather in Oslo?")}, "get_weather"},
		{"by name", []*genai.Content{user("convert 5 dollars")}, "convert_currency"},
		{"by parameter name", []*genai.Content{user("price of ticker GOOG")}, "search"},
		{"the latest message weighs most", []*genai.Content{user("email Bob about the weather"), user("actually, just the weather")}, "get_weather"},
		{"a called function counts", []*genai.Content{
			user("go on"),
			{Role: genai.RoleModel, Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{Name: "send_email"}}}},
		}, "send_email"},
	}
	for _, tc := range tests {
		scores, err := LexicalRanker{}.Rank(context.Background(), tc.conv, tools)
		if err != nil {
			t.Fatal(err)
		}
		best := 0
		for i, s := range scores {
			if s > scores[best] {
				best = i
			}
		}
		if tools[best].Name != tc.want || scores[best] <= 0 {
			t.Errorf("%s: best = %s (scores %v), want %s", tc.name, tools[best].Name, scores, tc.want)
		}
	}
	// Nothing in common, or nothing to rank: all zero, no failure.
	scores, err := LexicalRanker{}.Rank(context.Background(), []*genai.Content{user("the")}, tools)
	if err != nil || !cmp.Equal(scores, make([]float64, len(tools))) {
		t.Errorf("Rank(stop words only) = %v, %v, want zeros", scores, err)
	}
	if scores, err := (LexicalRanker{}).Rank(context.Background(), nil, nil); err != nil || len(scores) != 0 {
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
		tools[i] = &Tool{Entry: registry.Entry{Name: name, ServerTool: name}, Description: strings.Join(desc, " "),
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
		_, _ = LexicalRanker{}.Rank(ctx, conv, tools) // build the caches
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := (LexicalRanker{}).Rank(ctx, conv, tools); err != nil {
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
	_, _ = LexicalRanker{}.Rank(ctx, conv, small)
	_, _ = LexicalRanker{}.Rank(ctx, conv, large)
	var ts, tl []time.Duration
	for b.Loop() {
		start := time.Now()
		_, _ = LexicalRanker{}.Rank(ctx, conv, small)
		mid := time.Now()
		_, _ = LexicalRanker{}.Rank(ctx, conv, large)
		ts, tl = append(ts, mid.Sub(start)), append(tl, time.Since(mid))
	}
	ms, ml := median(ts), median(tl)
	b.ReportMetric(float64(ml)/1e6, "ms-5000")
	b.ReportMetric(float64(ms)/1e6, "ms-1000")
	b.ReportMetric((float64(ml)/5000)/(float64(ms)/1000), "ratio")
}
