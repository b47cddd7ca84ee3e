package mcpconn

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"go.opentelemetry.io/otel/attribute"
)

// Offers says what a server declared in initialize.
type Offers struct {
	Tools     bool
	Resources bool
	Prompts   bool
}

// Offers returns the tools, resources and prompts capabilities the server
// declared.
func (c *Conn) Offers() Offers {
	caps := c.init.Capabilities
	return Offers{Tools: caps.Tools != nil, Resources: caps.Resources != nil, Prompts: caps.Prompts != nil}
}

// ListPrompts reads prompts/list page by page and returns each prompt's raw
// JSON object.
func (c *Conn) ListPrompts(ctx context.Context) ([]json.RawMessage, error) {
	out, _, err := c.listPrompts(ctx, false)
	return out, err
}

// listPrompts is ListPrompts, with the digest of a second reading as for
// listTools.
func (c *Conn) listPrompts(ctx context.Context, again bool) ([]json.RawMessage, digest, error) {
	early := !again && c.early()
	sum := newListSum(early || again)
	var out []json.RawMessage
	err := c.pages(ctx, string(mcp.MethodPromptsList), func(rctx context.Context, cursor string) error {
		req := mcp.ListPromptsRequest{}
		req.Params.Cursor = mcp.Cursor(cursor)
		_, err := c.client.ListPromptsByPage(rctx, req)
		return err
	}, func(raw json.RawMessage) (string, error) {
		var page struct {
			Prompts    []json.RawMessage `json:"prompts"`
			NextCursor string            `json:"nextCursor"`
		}
		if err := json.Unmarshal(raw, &page); err != nil {
			return "", fmt.Errorf("decode prompts/list result: %w", err)
		}
		for _, p := range page.Prompts {
			sum.add(p)
		}
		out = append(out, page.Prompts...)
		return page.NextCursor, nil
	})
	switch {
	case err != nil:
		return nil, digest{}, err
	case again:
		return out, sum.sum(), nil
	case early:
		c.recheck(promptsList, sum.sum())
	}
	return out, digest{}, nil
}

// GetPrompt gets one prompt filled with args and returns the raw
// GetPromptResult.
func (c *Conn) GetPrompt(ctx context.Context, name string, args map[string]string) (json.RawMessage, error) {
	req := mcp.GetPromptRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	return c.request(ctx, string(mcp.MethodPromptsGet), attribute.String(attrPromptName, name), ownCtx{}, func(rctx context.Context) error {
		_, err := c.client.GetPrompt(rctx, req)
		return err
	})
}

// ListResourceTemplates reads resources/templates/list page by page and
// returns each template's raw JSON object.
func (c *Conn) ListResourceTemplates(ctx context.Context) ([]json.RawMessage, error) {
	var out []json.RawMessage
	err := c.pages(ctx, string(mcp.MethodResourcesTemplatesList), func(rctx context.Context, cursor string) error {
		req := mcp.ListResourceTemplatesRequest{}
		req.Params.Cursor = mcp.Cursor(cursor)
		_, err := c.client.ListResourceTemplatesByPage(rctx, req)
		return err
	}, func(raw json.RawMessage) (string, error) {
		var page struct {
			ResourceTemplates []json.RawMessage `json:"resourceTemplates"`
			NextCursor        string            `json:"nextCursor"`
		}
		if err := json.Unmarshal(raw, &page); err != nil {
			return "", fmt.Errorf("decode resources/templates/list result: %w", err)
		}
		out = append(out, page.ResourceTemplates...)
		return page.NextCursor, nil
	})
	return out, err
}
