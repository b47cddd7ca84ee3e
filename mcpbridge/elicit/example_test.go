package elicit_test

import (
	"context"
	"fmt"

	"github.com/mcpgenai/bridge/mcpbridge"
	"github.com/mcpgenai/bridge/mcpbridge/elicit"
)

// ClientFeatures.Elicit answers what a server asks the user while its tool runs.
// This one fills a form's "value" and declines every URL it is asked to
// visit; a real host would ask a person.
func Example() {
	opts := &mcpbridge.Options{Client: &mcpbridge.ClientFeatures{
		Elicit: func(ctx context.Context, e elicit.Request) (elicit.Response, error) {
			if e.URL != "" {
				return elicit.Response{Action: elicit.Decline}, nil
			}
			fmt.Printf("%s asks during %q: %s\n", e.Server, e.ServerTool, e.Message)
			return elicit.Response{Action: elicit.Accept, Content: map[string]any{"value": "blue"}}, nil
		},
	}}

	r, _ := opts.Client.Elicit(context.Background(), elicit.Request{
		Server: "paint", ServerTool: "choose_colour", Message: "Which colour?",
	})
	fmt.Println(r.Content["value"])
	// Output:
	// paint asks during "choose_colour": Which colour?
	// blue
}
