package main

import (
	"context"
	"fmt"

	"github.com/mcpgenai/bridge/confirm"
	"github.com/mcpgenai/bridge/mcpbridge"
)

func main() {
	policy := &confirm.Policy{
		AutoAllowReadOnly: true, // tools annotated readOnlyHint run without asking
		Confirmer: confirm.ConfirmerFunc(func(ctx context.Context, req confirm.Request) (confirm.Answer, error) {
			fmt.Printf("allow %s on %s with %v? always for this tool\n", req.ServerTool, req.Server, req.Args)
			return confirm.AlwaysTool, nil
		}),
	}
	policy.Deny(confirm.Key{Server: "files", ServerTool: "delete_file"}) // the deny-list wins over everything
	_ = &mcpbridge.Options{Policy: policy}
}
