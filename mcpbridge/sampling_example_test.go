package mcpbridge_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/mcpgenai/bridge/mcpbridge"
)

// upper is a Sampler of the host's own: it answers with the last message
// in capitals, as "upper-1".
type upper struct{}

func (upper) ChooseModel(*mcpbridge.SamplingRequest) string { return "upper-1" }

func (upper) Sample(_ context.Context, req *mcpbridge.SamplingRequest) (*mcpbridge.SamplingResult, error) {
	last := req.Messages[len(req.Messages)-1].Content[0].Text
	return &mcpbridge.SamplingResult{Model: req.Model, StopReason: "endTurn",
		Content: []mcpbridge.SamplingContent{{Type: "text", Text: strings.ToUpper(last)}}}, nil
}

// ClientFeatures.Sampling lets servers ask a model for a completion. Here
// the model is a Sampler of the host's own; mcpbridge.GeminiSampler
// answers with Gemini. Review is the person in the loop: it sees each
// request with the model chosen, then the answer, and may refuse either.
func ExampleSampling() {
	s := &mcpbridge.Sampling{
		Sampler: upper{},
		Review: func(_ context.Context, req *mcpbridge.SamplingRequest, res *mcpbridge.SamplingResult) error {
			if res == nil {
				fmt.Printf("%s asks %s for at most %d tokens\n", req.Server, req.Model, req.MaxTokens)
				if len(req.Tools) > 0 {
					return mcpbridge.ErrSamplingRefused // this host allows no tools
				}
				return nil
			}
			fmt.Printf("answer: %s\n", res.Content[0].Text)
			return nil
		},
	}
	_ = &mcpbridge.Options{Client: &mcpbridge.ClientFeatures{Sampling: s}}

	// What the Bridge does with a server's request, by hand:
	req := &mcpbridge.SamplingRequest{Server: "notes", MaxTokens: 100,
		Messages: []mcpbridge.SamplingMessage{{Role: "user", Content: []mcpbridge.SamplingContent{{Type: "text", Text: "hello"}}}}}
	req.Model = s.Sampler.ChooseModel(req)
	_ = s.Review(context.Background(), req, nil)
	res, _ := s.Sampler.Sample(context.Background(), req)
	_ = s.Review(context.Background(), req, res)
	// Output:
	// notes asks upper-1 for at most 100 tokens
	// answer: HELLO
}
