package sampling_test

import (
	"context"
	"log"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/mcpbridge"
	"github.com/mcpgenai/bridge/mcpbridge/sampling"
)

// Gemini answers the servers' sampling requests with gemini-2.5-flash,
// or with gemini-2.5-pro when a server's preferences ask for it (a hint
// "pro", or intelligence first).
func ExampleGemini() {
	ctx := context.Background()
	client, err := genai.NewClient(ctx, nil) // GEMINI_API_KEY from the environment
	if err != nil {
		log.Fatal(err)
	}
	features := &mcpbridge.ClientFeatures{Sampling: &mcpbridge.Sampling{
		Sampler: sampling.Gemini(client.Models, "gemini-2.5-flash", "gemini-2.5-pro"),
	}}
	_ = &mcpbridge.Options{Client: features}
}
