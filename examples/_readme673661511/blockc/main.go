package main

import (
	"context"
	"fmt"
	"log"

	"github.com/mcpgenai/bridge/mcpbridge"
)

func main() {
	ctx := context.Background()
	cfg, err := mcpbridge.LoadSettings(nil, nil) // nil: the user's then the project's settings.json
	if err != nil {
		log.Fatal(err)
	}
	bridge, err := mcpbridge.New(cfg, &mcpbridge.Options{
		LoginURL: func(ctx context.Context, server, authURL string) error {
			fmt.Printf("Log in to %s: %s\n", server, authURL)
			return nil
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer bridge.Close()
	if err := bridge.Discover(ctx); err != nil {
		log.Fatal(err)
	}
	for _, s := range bridge.Status().Servers {
		if s.Auth.NeedsLogin() {
			if err := bridge.Login(ctx, s.Name); err != nil {
				log.Print(err)
			}
		}
	}
}
