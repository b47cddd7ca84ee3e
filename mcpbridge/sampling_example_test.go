package mcpbridge_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/mcpgenai/bridge/mcpbridge"
	"github.com/mcpgenai/bridge/mcpbridge/sampling"
)

// upper is a Sampler of the host's own: it answers with the last message
// in capitals, as "upper-1".
type upper struct{}

func (upper) ChooseModel(*sampling.Request) string { return "upper-1" }

func (upper) Sample(_ context.Context, req *sampling.Request) (*sampling.Result, error) {
	last := req.Messages[len(req.Messages)-1].Content[0].Text
	return &sampling.Result{Model: req.Model, StopReason: sampling.StopEndTurn,
		Content: []sampling.Content{{Type: sampling.TypeText, Text: strings.ToUpper(last)}}}, nil
}

// ClientFeatures.Sampling lets servers ask a model for a completion. Here
// the model is a Sampler of the host's own; sampling.Gemini answers with
// Gemini. Review is the person in the loop: it sees each
// request with the model chosen, then the answer, and may refuse either.
func ExampleSampling() {
	s := &mcpbridge.Sampling{
		Sampler: upper{},
		Review: func(_ context.Context, req *sampling.Request, res *sampling.Result) error {
			if res == nil {
				fmt.Printf("%s asks %s for at most %d tokens\n", req.Server, req.Model, req.MaxTokens)
				if len(req.Tools) > 0 {
					return sampling.ErrRefused // this host allows no tools
				}
				return nil
			}
			fmt.Printf("answer: %s\n", res.Content[0].Text)
			return nil
		},
	}
	_ = &mcpbridge.Options{Client: &mcpbridge.ClientFeatures{Sampling: s}}

	// What the Bridge does with a server's request, by hand:
	req := &sampling.Request{Server: "notes", MaxTokens: 100,
		Messages: []sampling.Message{{Role: sampling.RoleUser, Content: []sampling.Content{{Type: sampling.TypeText, Text: "hello"}}}}}
	req.Model = s.Sampler.ChooseModel(req)
	_ = s.Review(context.Background(), req, nil)
	res, _ := s.Sampler.Sample(context.Background(), req)
	_ = s.Review(context.Background(), req, res)
	// Output:
	// notes asks upper-1 for at most 100 tokens
	// answer: HELLO
}
