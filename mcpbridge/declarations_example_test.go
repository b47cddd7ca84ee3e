package mcpbridge_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/confirm"
	"github.com/mcpgenai/bridge/geminitest"
)

func ExampleBridge_Declare() {
	ts, stop := shopServer()
	defer stop()
	b := openShop(ts.URL, &confirm.Policy{})
	defer b.Close()

	d, err := b.Declare(context.Background(), nil, nil)
	if err != nil {
		log.Fatal(err)
	}
	config := &genai.GenerateContentConfig{Tools: d.Tools}
	for _, fd := range config.Tools[0].FunctionDeclarations {
		params, _ := json.Marshal(fd.Parameters)
		fmt.Printf("%s: %s\n", fd.Name, params)
	}
	// Output:
	// order: {"properties":{"count":{"enum":["1","5","10"],"type":"STRING"},"item":{"type":"STRING"}},"required":["item","count"],"type":"OBJECT"}
	// stock: {"properties":{"item":{"type":"STRING"}},"required":["item"],"type":"OBJECT"}
}

// A host's own loop: a fresh Declare for each request, Heal when the API
// refuses a declaration, the model's calls run by the declarations.
func ExampleDeclarations_Heal() {
	ts, stop := shopServer()
	defer stop()
	policy := &confirm.Policy{}
	policy.Allow(confirm.Key{Server: "shop"})
	b := openShop(ts.URL, policy)
	defer b.Close()

	// This fake API refuses the declaration of order, as the real one
	// refuses a schema it cannot serve.
	fake := geminitest.New(nil, &geminitest.Options{DeclarationRules: []geminitest.DeclarationRule{
		func(d *genai.FunctionDeclaration) (string, string) {
			if d.Name == "order" {
				return "parameters", "schema produces a constraint that has too many states for serving"
			}
			return "", ""
		},
	}}, geminitest.Calls(geminitest.Call{Name: "stock", Args: map[string]any{"item": "pears"}}), geminitest.Text("12 pears."))
	defer fake.Close()
	ctx := context.Background()
	models := fake.Client(ctx).Models
	history := []*genai.Content{genai.NewContentFromText("How many pears are there?", genai.RoleUser)}
	for {
		d, err := b.Declare(ctx, history, nil)
		if err != nil {
			log.Fatal(err)
		}
		resp, err := models.GenerateContent(ctx, "gemini-2.5-flash", history, &genai.GenerateContentConfig{Tools: d.Tools})
		if dropped := d.Heal(err); dropped != nil {
			fmt.Println("dropped:", dropped[0].Name)
			continue // declare again, without it
		}
		if err != nil {
			log.Fatal(err)
		}
		calls := resp.FunctionCalls()
		if len(calls) == 0 {
			fmt.Println(resp.Text())
			return
		}
		history = append(history, resp.Candidates[0].Content)
		var parts []*genai.Part
		for _, r := range d.ExecuteAll(ctx, calls) {
			fmt.Printf("[%s] %s\n", r.Name, r.ReturnDisplay)
			parts = append(parts, r.Part())
		}
		history = append(history, &genai.Content{Role: genai.RoleUser, Parts: parts})
	}
	// Output:
	// dropped: order
	// [stock] 12 pears
	// 12 pears.
}
