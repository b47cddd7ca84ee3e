package mcpbridge_test

import (
	"context"
	"fmt"
	"log"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/confirm"
	"github.com/mcpgenai/bridge/geminitest"
	"github.com/mcpgenai/bridge/mcpbridge"
)

func ExampleBridge_RunStream() {
	ts, stop := shopServer()
	defer stop()
	policy := &confirm.Policy{}
	policy.Allow(confirm.Key{Server: "shop"})
	b := openShop(ts.URL, policy)
	defer b.Close()

	// A scripted model: it says what it does, checks the stock, then answers
	// in two chunks.
	fake := geminitest.New(nil, nil,
		geminitest.Reply(geminitest.Response{Parts: []*genai.Part{
			{Text: "Checking. "},
			{FunctionCall: &genai.FunctionCall{Name: "stock", Args: map[string]any{"item": "pears"}}},
		}}),
		geminitest.Reply(geminitest.Response{Parts: []*genai.Part{{Text: "There are "}, {Text: "12 pears."}}}),
	)
	defer fake.Close()
	ctx := context.Background()
	client := fake.Client(ctx)

	history := []*genai.Content{genai.NewContentFromText("How many pears?", genai.RoleUser)}
	for ev, err := range b.RunStream(ctx, client.Models, "gemini-2.5-flash", history, nil, nil) {
		switch ev.Kind {
		case mcpbridge.RunText:
			fmt.Printf("text %q\n", ev.Text)
		case mcpbridge.RunCall:
			fmt.Println("call", ev.Call.Name)
		case mcpbridge.RunCallResult:
			fmt.Println("result", ev.Result.ReturnDisplay)
		case mcpbridge.RunDone:
			if err != nil {
				log.Fatal(err)
			}
			fmt.Println(ev.Run.Turns, "requests:", ev.Run.Response.Text())
		}
	}
	// Output:
	// text "Checking. "
	// call stock
	// result 12 pears
	// text "There are "
	// text "12 pears."
	// 2 requests: There are 12 pears.
}
