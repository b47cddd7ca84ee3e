package mcpconn

import (
	"context"
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"
)

// OffersCompletions reports whether the server declared completions.
func (c *Conn) OffersCompletions() bool {
	return c.init.Capabilities.Completions != nil
}

// Complete asks the server to complete the argument arg (whose value so far
// is value) of ref, a prompt ({"type":"ref/prompt","name":...}) or a
// resource template ({"type":"ref/resource","uri":...}); known holds the
// values of the other arguments already chosen, if any. It returns the raw
// CompleteResult.
func (c *Conn) Complete(ctx context.Context, ref any, arg, value string, known map[string]string) (json.RawMessage, error) {
	req := mcp.CompleteRequest{}
	req.Params.Ref = ref
	req.Params.Argument.Name = arg
	req.Params.Argument.Value = value
	if len(known) > 0 {
		req.Params.Context.Arguments = known
	}
	return c.request(ctx, string(mcp.MethodCompletionComplete), noTarget, ownCtx{}, func(rctx context.Context) error {
		_, err := c.client.Complete(rctx, req)
		return err
	})
}
