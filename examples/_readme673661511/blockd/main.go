package main

import (
	"fmt"
	"log"

	"github.com/mcpgenai/bridge/schema"
)

func main() {
	raw := []byte(`{"type":"object","properties":{"size":{"type":"integer","enum":[1,2,3]}},"additionalProperties":false}`)
	res, err := schema.Convert(raw, nil) // nil options: Gemini Developer API
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range res.Changes {
		fmt.Println(c)
	}
	decl := res.Declaration("pick_size", "Pick a size.")
	if problems := schema.CheckDeclaration(decl, schema.Gemini); len(problems) > 0 {
		log.Fatal(problems)
	}
	fmt.Println(res.Restorer.Restore(map[string]any{"size": "2"})) // map[size:2], a number again
}
