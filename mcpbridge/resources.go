package mcpbridge

import (
	"context"
	"encoding/json"
	"fmt"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/mcpbridge/internal/mcpconn"
	"github.com/mcpgenai/bridge/mcpbridge/internal/result"
)

// Resource is one resource a server lists.
type Resource struct {
	URI         string `json:"uri"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
	// Size is the size in bytes, if the server said; 0 otherwise.
	Size int64 `json:"size,omitempty"`
	// Icons are the resource's icons a host may show (see [Icon]).
	Icons []Icon `json:"icons,omitempty"`
}

// ListResources lists the resources of the named server, page by page until
// the last cursor. A disconnected server is reconnected as for a tool call
// (see [Bridge]); a server that declared no resources has none (no request
// is sent). Entries that are not objects or have no URI are skipped.
func (b *Bridge) ListResources(ctx context.Context, server string) ([]Resource, error) {
	var raws []json.RawMessage
	err := b.onServer(ctx, server, func(ctx context.Context, conn *mcpconn.Conn) (err error) {
		if !conn.Offers().Resources {
			return nil
		}
		raws, err = conn.ListResources(ctx)
		return err
	})
	if err != nil {
		return nil, err
	}
	out := make([]Resource, 0, len(raws))
	for _, raw := range raws {
		var w struct {
			Resource
			Icons json.RawMessage `json:"icons"` // read apart: bad icons drop only themselves
		}
		if json.Unmarshal(raw, &w) != nil || w.URI == "" {
			b.log.Warn("mcp server listed a resource in a bad shape; skipped", "server", server)
			continue
		}
		r := w.Resource
		r.Icons = redactIcons(b.redact, iconsOf(w.Icons))
		out = append(out, r)
	}
	return out, nil
}

// ReadResource reads the resource uri of the named server and returns its
// contents as parts, one per content item in the server's order: text
// becomes a text part, a blob an inline-data part with the item's MIME type
// ("application/octet-stream" when it gave none). An item with neither, or
// with a blob that is not base64, is an error.
func (b *Bridge) ReadResource(ctx context.Context, server, uri string) ([]*genai.Part, error) {
	var raw json.RawMessage
	err := b.onServer(ctx, server, func(ctx context.Context, conn *mcpconn.Conn) (err error) {
		raw, err = conn.ReadResource(ctx, uri)
		return err
	})
	if err != nil {
		return nil, err
	}
	parts, err := result.ResourceParts(raw)
	if err != nil {
		return nil, b.redact.redactErr(fmt.Errorf("mcp server %q: resources/read %q: %w", server, uri, err))
	}
	return b.redact.redactParts(parts), nil
}
