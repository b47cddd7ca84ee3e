package main

import (
	"context"
	"log"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/mcpbridge"
)

func live(ctx context.Context, bridge *mcpbridge.Bridge, client *genai.Client) error {
	tools, err := bridge.Live(ctx, &genai.LiveConnectConfig{ResponseModalities: []genai.Modality{genai.ModalityText}},
		&mcpbridge.LiveOptions{NonBlocking: []string{"build_report"}})
	if err != nil {
		return err
	}
	defer tools.Close() // cancels calls still running
	session, err := client.Live.Connect(ctx, "gemini-live-2.5-flash-preview", tools.Config())
	if err != nil {
		return err
	}
	defer session.Close()
	// Responses are sent from the calls' goroutines: a host that sends on the
	// session from another goroutine too must serialize its sends with them.
	if err := session.SendClientContent(genai.LiveClientContentInput{
		Turns: []*genai.Content{genai.NewContentFromText("Build the weekly report.", genai.RoleUser)},
	}); err != nil {
		return err
	}
	for {
		msg, err := session.Receive()
		if err != nil {
			return err
		}
		if tools.Handle(ctx, session, msg) {
			continue // a tool call or a cancellation
		}
		if sc := msg.ServerContent; sc != nil && sc.ModelTurn != nil {
			for _, p := range sc.ModelTurn.Parts {
				log.Print(p.Text)
			}
		}
	}
}

func main() {}
