package main

import (
	"context"
	"fmt"
	"log"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/mcpbridge"
)

func main() {
	ctx := context.Background()
	cfg, err := mcpbridge.LoadSettings(nil, nil) // nil: the user's then the project's settings.json
	if err != nil {
		log.Fatal(err)
	}
	bridge, err := mcpbridge.New(cfg, nil) // nil options: only trusted servers' tools run
	if err != nil {
		log.Fatal(err)
	}
	defer bridge.Close()
	if err := bridge.Discover(ctx); err != nil {
		log.Fatal(err)
	}
	fmt.Print(bridge.Status()) // the /mcp view
	client, err := genai.NewClient(ctx, nil) // GEMINI_API_KEY from the environment
	if err != nil {
		log.Fatal(err)
	}
	history := []*genai.Content{genai.NewContentFromText("List my open issues.", genai.RoleUser)}
	res, err := bridge.Run(ctx, client.Models, "gemini-2.5-flash", history, nil, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Response.Text())
}
