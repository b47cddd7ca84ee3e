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

func ExampleBridge_Live() {
	ts, stop := shopServer()
	defer stop()
	policy := &confirm.Policy{}
	policy.Allow(confirm.Key{Server: "shop"})
	b := openShop(ts.URL, policy)
	defer b.Close()

	// A scripted Live model: it checks the stock, then answers.
	fake := geminitest.New(nil, nil,
		geminitest.Calls(geminitest.Call{Name: "stock", Args: map[string]any{"item": "pears"}}),
		geminitest.Text("There are 12 pears."),
	)
	defer fake.Close()
	ctx := context.Background()
	client, err := genai.NewClient(ctx, fake.LiveClientConfig())
	if err != nil {
		log.Fatal(err)
	}

	tools, err := b.Live(ctx, &genai.LiveConnectConfig{ResponseModalities: []genai.Modality{genai.ModalityText}},
		&mcpbridge.LiveOptions{
			OnCall:   func(c *genai.FunctionCall) { fmt.Println("tool call:", c.Name) }, // before the call starts
			OnResult: func(r *mcpbridge.CallResult) { fmt.Println("result:", r.ReturnDisplay) },
		})
	if err != nil {
		log.Fatal(err)
	}
	defer tools.Close()
	session, err := client.Live.Connect(ctx, "gemini-live-2.5-flash-preview", tools.Config())
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()
	if err := session.SendClientContent(genai.LiveClientContentInput{
		Turns: []*genai.Content{genai.NewContentFromText("How many pears?", genai.RoleUser)},
	}); err != nil {
		log.Fatal(err)
	}
	for {
		msg, err := session.Receive()
		if err != nil {
			log.Fatal(err)
		}
		if tools.Handle(ctx, session, msg) {
			continue // the calls run; their response goes to the session when they end
		}
		if sc := msg.ServerContent; sc != nil {
			if sc.ModelTurn != nil {
				fmt.Println(sc.ModelTurn.Parts[0].Text)
			}
			if sc.TurnComplete {
				break
			}
		}
	}
	// Output:
	// tool call: stock
	// result: 12 pears
	// There are 12 pears.
}
