package mcpbridge_test

import (
	"encoding/json"
	"fmt"
	"log"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/confirm"
)

func ExampleBridge_GenAITools() {
	ts, stop := shopServer()
	defer stop()
	b := openShop(ts.URL, &confirm.Policy{})
	defer b.Close()

	tools, err := b.GenAITools()
	if err != nil {
		log.Fatal(err) // more than 512 tools: narrow them with includeTools/excludeTools
	}
	config := &genai.GenerateContentConfig{Tools: tools}
	for _, d := range config.Tools[0].FunctionDeclarations {
		params, _ := json.Marshal(d.Parameters)
		fmt.Printf("%s: %s\n", d.Name, params)
	}
	// Output:
	// order: {"properties":{"count":{"enum":["1","5","10"],"type":"STRING"},"item":{"type":"STRING"}},"required":["item","count"],"type":"OBJECT"}
	// stock: {"properties":{"item":{"type":"STRING"}},"required":["item"],"type":"OBJECT"}
}
