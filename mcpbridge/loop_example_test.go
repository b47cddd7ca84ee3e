package mcpbridge_test

import (
	"context"
	"fmt"
	"log"
	"strings"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/confirm"
	"github.com/mcpgenai/bridge/geminitest"
	"github.com/mcpgenai/bridge/mcpbridge"
)

func ExampleBridge_Run() {
	ts, stop := shopServer()
	defer stop()
	policy := &confirm.Policy{}
	policy.Allow(confirm.Key{Server: "shop"}) // run every tool of shop without asking
	b := openShop(ts.URL, policy)
	defer b.Close()

	// A scripted model: check the stock, order from it, then answer.
	fake := geminitest.New(nil, nil,
		geminitest.Calls(geminitest.Call{Name: "stock", Args: map[string]any{"item": "pears"}}),
		func(req *geminitest.Request) geminitest.Response {
			stock := req.FunctionResponses()[0].Response["output"].(string) // "12 pears"
			count := "10"
			if strings.HasPrefix(stock, "0 ") {
				count = "1"
			}
			return geminitest.Response{Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{
				Name: "order", Args: map[string]any{"item": "pears", "count": count}}}}}
		},
		geminitest.Text("Ordered 10 pears."),
	)
	defer fake.Close()
	ctx := context.Background()
	client := fake.Client(ctx) // a real *genai.Client; genai.NewClient(ctx, nil) for the real API

	history := []*genai.Content{genai.NewContentFromText("Order as many pears as you can.", genai.RoleUser)}
	res, err := b.Run(ctx, client.Models, "gemini-2.5-flash", history, nil, &mcpbridge.RunOptions{
		OnResult: func(r *mcpbridge.CallResult) { fmt.Printf("[%s] %s\n", r.Name, r.ReturnDisplay) },
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Response.Text())
	fmt.Println(res.Turns, "requests,", len(res.History), "contents in the history")
	// Output:
	// [stock] 12 pears
	// [order] ordered 10 pears (count sent as float64)
	// Ordered 10 pears.
	// 3 requests, 6 contents in the history
}
