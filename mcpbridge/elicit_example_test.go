package mcpbridge_test

import (
	"context"
	"fmt"

	"github.com/mcpgenai/bridge/mcpbridge"
)

// ClientFeatures.Elicit answers what a server asks the user while its tool runs.
// This one fills a form's "value" and declines every URL it is asked to
// visit; a real host would ask a person.
func ExampleElicitation() {
	opts := &mcpbridge.Options{Client: &mcpbridge.ClientFeatures{
		Elicit: func(ctx context.Context, e mcpbridge.Elicitation) (mcpbridge.ElicitResponse, error) {
			if e.URL != "" {
				return mcpbridge.ElicitResponse{Action: mcpbridge.ElicitDecline}, nil
			}
			fmt.Printf("%s asks during %q: %s\n", e.Server, e.ServerTool, e.Message)
			return mcpbridge.ElicitResponse{Action: mcpbridge.ElicitAccept, Content: map[string]any{"value": "blue"}}, nil
		},
	}}

	r, _ := opts.Client.Elicit(context.Background(), mcpbridge.Elicitation{
		Server: "paint", ServerTool: "choose_colour", Message: "Which colour?",
	})
	fmt.Println(r.Content["value"])
	// Output:
	// paint asks during "choose_colour": Which colour?
	// blue
}
