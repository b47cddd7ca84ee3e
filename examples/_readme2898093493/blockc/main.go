package main

import (
	"context"
	"fmt"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/mcpbridge"
)

func stream(ctx context.Context, bridge *mcpbridge.Bridge, client *genai.Client, history []*genai.Content) error {
	for ev, err := range bridge.RunStream(ctx, client.Models, "gemini-2.5-flash", history, nil, nil) {
		switch ev.Kind {
		case mcpbridge.RunText:
			fmt.Print(ev.Text) // as each chunk arrives
		case mcpbridge.RunCall:
			fmt.Println("\n→", ev.Call.Name)
		case mcpbridge.RunProgress:
			fmt.Printf("… %s %g/%g\n", ev.Progress.Name, ev.Progress.Progress, ev.Progress.Total)
		case mcpbridge.RunDone:
			return err // ev.Run is what Run would have returned
		}
	}
	return nil
}

func main() {}
