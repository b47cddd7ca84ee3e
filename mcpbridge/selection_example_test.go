package mcpbridge_test

import (
	"context"
	"fmt"
	"log"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/confirm"
	"github.com/mcpgenai/bridge/mcpbridge"
	"github.com/mcpgenai/bridge/mcpbridge/rank"
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

// A Selection ranking on Gemini's embeddings, for hosts that can afford
// the calls: each tool's text is embedded once and cached, then a request
// costs one embedding of the conversation's latest message.
func ExampleSelection_embedding() {
	ctx := context.Background()
	client, err := genai.NewClient(ctx, nil) // GEMINI_API_KEY from the environment
	if err != nil {
		log.Fatal(err)
	}
	_ = &mcpbridge.DeclareOptions{Selection: &mcpbridge.Selection{
		Limit:  128,
		Ranker: rank.NewEmbedding(client.Models, nil),
	}}
}

// Tool search: the request declares a search function; the model searches
// in its own words, and what it found is declared from the next request
// on, read from the conversation.
func ExampleToolSearch() {
	ts, stop := shopServer()
	defer stop()
	policy := &confirm.Policy{AutoAllowReadOnly: true}
	b := openShop(ts.URL, policy)
	defer b.Close()

	ctx := context.Background()
	opts := &mcpbridge.DeclareOptions{Selection: &mcpbridge.Selection{Search: &mcpbridge.ToolSearch{}}}
	history := []*genai.Content{genai.NewContentFromText("Are pears in stock?", genai.RoleUser)}
	d, err := b.Declare(ctx, history, opts)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("declared:", d.Tools[0].FunctionDeclarations[0].Name)

	// The model searches; the answer names the tools found.
	search := &genai.FunctionCall{Name: "search_tools", Args: map[string]any{"query": "items in stock"}}
	r := d.Execute(ctx, search)
	fmt.Println(r.FunctionResponse().Response["output"])
	history = append(history,
		genai.NewContentFromParts([]*genai.Part{{FunctionCall: search}}, genai.RoleModel),
		genai.NewContentFromParts([]*genai.Part{r.Part()}, genai.RoleUser))

	// The next request declares the search function and what it found.
	if d, err = b.Declare(ctx, history, opts); err != nil {
		log.Fatal(err)
	}
	for _, fd := range d.Tools[0].FunctionDeclarations {
		fmt.Println("declared:", fd.Name)
	}
	fmt.Println("found:", d.Report.Found)
	// Output:
	// declared: search_tools
	// map[tools:[map[description:Items in stock. name:stock server:shop]]]
	// declared: search_tools
	// declared: stock
	// found: [stock]
}
