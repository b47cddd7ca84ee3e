package mcpbridge_test

import (
	"context"
	"fmt"
	"log"
	"math"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/confirm"
	"github.com/mcpgenai/bridge/mcpbridge"
)

func ExampleHostFunction() {
	ts, stop := shopServer()
	defer stop()
	policy := &confirm.Policy{}
	policy.Allow(confirm.Key{Server: "shop"})
	b := openShop(ts.URL, policy)
	defer b.Close()

	// The host's own function, called in the same turn as the shop's stock.
	budget := mcpbridge.HostFunction{
		Declaration: &genai.FunctionDeclaration{Name: "budget", Description: "Money left to spend, in euros."},
		Handler: func(ctx context.Context, args map[string]any) (any, error) {
			return map[string]any{"euros": 20}, nil
		},
	}
	ctx := context.Background()
	history := []*genai.Content{genai.NewContentFromText("Can I buy all the pears?", genai.RoleUser)}
	d, err := b.Declare(ctx, history, &mcpbridge.DeclareOptions{Functions: []mcpbridge.HostFunction{budget}})
	if err != nil {
		log.Fatal(err)
	}
	for _, fd := range d.Tools[0].FunctionDeclarations {
		fmt.Println("declared:", fd.Name)
	}
	// The model's answer to the request calls both.
	calls := []*genai.FunctionCall{{Name: "budget"}, {Name: "stock", Args: map[string]any{"item": "pears"}}}
	for _, r := range d.ExecuteAll(ctx, calls) {
		fmt.Printf("[%s] %s\n", r.Name, r.ReturnDisplay)
	}
	// Output:
	// declared: budget
	// declared: order
	// declared: stock
	// [budget] ```json
	// {
	//   "euros": 20
	// }
	// ```
	// [stock] 12 pears
}

func ExampleSelection() {
	ts, stop := shopServer()
	defer stop()
	b := openShop(ts.URL, nil)
	defer b.Close()

	ctx := context.Background()
	history := []*genai.Content{genai.NewContentFromText("Are pears in stock?", genai.RoleUser)}
	d, err := b.Declare(ctx, history, &mcpbridge.DeclareOptions{
		// At most one declaration per request: the tools are ranked
		// against the conversation and the best one is sent.
		Selection: &mcpbridge.Selection{Servers: []string{"shop"}, Limit: 1},
	})
	if err != nil {
		log.Fatal(err)
	}
	r := d.Report
	fmt.Println(r.Declared, "declared:", d.Tools[0].FunctionDeclarations[0].Name, "left out:", r.Omitted)
	// Output:
	// 1 declared: stock left out: [order]
}

// embeddingRanker ranks tools by the cosine similarity of their
// descriptions' embeddings to the latest message's, through genai's
// EmbedContent. (A real one would cache the tools' embeddings.)
type embeddingRanker struct {
	models *genai.Models
	model  string // "gemini-embedding-001", say
}

func (r embeddingRanker) Rank(ctx context.Context, conversation []*genai.Content, tools []*mcpbridge.Tool) ([]float64, error) {
	contents := []*genai.Content{conversation[len(conversation)-1]}
	for _, t := range tools {
		contents = append(contents, genai.NewContentFromText(t.Name+": "+t.Description, genai.RoleUser))
	}
	resp, err := r.models.EmbedContent(ctx, r.model, contents, nil)
	if err != nil {
		return nil, err // Declare falls back to the lexical ranker
	}
	q := resp.Embeddings[0].Values
	scores := make([]float64, len(tools))
	for i := range tools {
		scores[i] = cosine(q, resp.Embeddings[i+1].Values)
	}
	return scores, nil
}

func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range min(len(a), len(b)) {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

// A Ranker built on embeddings, for hosts that can afford the calls.
func ExampleRanker() {
	ctx := context.Background()
	client, err := genai.NewClient(ctx, nil) // GEMINI_API_KEY from the environment
	if err != nil {
		log.Fatal(err)
	}
	_ = &mcpbridge.DeclareOptions{Selection: &mcpbridge.Selection{
		Limit:  128,
		Ranker: embeddingRanker{models: client.Models, model: "gemini-embedding-001"},
	}}
}
