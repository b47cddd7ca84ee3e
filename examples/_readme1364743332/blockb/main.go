package main

import (
	"context"
	"fmt"
	"log"
	"strings"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/mcpbridge"
)

func main() {
	ctx := context.Background()
	cfg, err := mcpbridge.LoadSettings(nil, nil)
	if err != nil {
		log.Fatal(err)
	}
	bridge, err := mcpbridge.New(cfg, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer bridge.Close()
	if err := bridge.Discover(ctx); err != nil { // Run refuses to start without it
		log.Fatal(err)
	}
	client, err := genai.NewClient(ctx, nil)
	if err != nil {
		log.Fatal(err)
	}
	history := []*genai.Content{genai.NewContentFromText("Who is on call?", genai.RoleUser)}
	res, err := bridge.Run(ctx, client.Models, "gemini-2.5-flash", history, nil, &mcpbridge.RunOptions{
		// A host function: declared beside the MCP tools (its name wins a
		// conflict), run in the same turn, its result shaped like theirs.
		HostFunctions: []mcpbridge.HostFunction{{
			Declaration: &genai.FunctionDeclaration{Name: "on_call", Description: "Who is on call this week."},
			Handler: func(ctx context.Context, args map[string]any) (any, error) {
				return map[string]any{"name": "Ada"}, nil
			},
		}},
		// Selection: only some servers' tools, at most 128 declarations a
		// request, ranked against the conversation (BM25 over the tools'
		// words unless you give a Ranker, one built on embeddings say).
		Selection: &mcpbridge.Selection{
			Filter: func(t *mcpbridge.Tool) bool { return !strings.HasPrefix(t.ServerTool, "delete_") },
			Limit:  128,
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range res.Requests {
		fmt.Println("request", r.Turn, "left out", len(r.Omitted), "tools; rejected", r.Rejected)
	}
	fmt.Println(res.Response.Text())
}
