package mcpbridge

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpgenai/bridge/mcpbridge/internal/mcpconn"
	"google.golang.org/genai"
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
		var r Resource
		if json.Unmarshal(raw, &r) != nil || r.URI == "" {
			b.log.Warn("mcp server listed a resource in a bad shape; skipped", "server", server)
			continue
		}
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
	parts, err := resourceParts(raw)
	if err != nil {
		return nil, b.redact.redactErr(fmt.Errorf("mcp server %q: resources/read %q: %w", server, uri, err))
	}
	return b.redact.redactParts(parts), nil
}

// resourceParts converts a raw ReadResourceResult into parts.
func resourceParts(raw []byte) ([]*genai.Part, error) {
	var res struct {
		Contents []struct {
			MIMEType string  `json:"mimeType"`
			Text     *string `json:"text"`
			Blob     *string `json:"blob"`
		} `json:"contents"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("decoding result: %w", err)
	}
	parts := make([]*genai.Part, 0, len(res.Contents))
	for i, c := range res.Contents {
		switch {
		case c.Text != nil:
			parts = append(parts, genai.NewPartFromText(*c.Text))
		case c.Blob != nil:
			data, err := decodeBlob(*c.Blob)
			if err != nil {
				return nil, fmt.Errorf("contents[%d]: blob: %w", i, err)
			}
			mime := c.MIMEType
			if mime == "" {
				mime = "application/octet-stream"
			}
			parts = append(parts, genai.NewPartFromBytes(data, mime))
		default:
			return nil, fmt.Errorf("contents[%d]: neither text nor blob", i)
		}
	}
	return parts, nil
}

// decodeBlob decodes standard base64, padded or not, ignoring line breaks.
func decodeBlob(s string) ([]byte, error) {
	s = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, s)
	return base64.RawStdEncoding.DecodeString(strings.TrimRight(s, "="))
}
