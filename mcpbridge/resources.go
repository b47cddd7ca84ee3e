package mcpbridge

import (
	"context"
	"encoding/json"
	"fmt"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/mcpbridge/internal/mcpconn"
	"github.com/mcpgenai/bridge/mcpbridge/internal/result"
)

// Resource is one resource a server lists, or one resource template: a
// family of resources whose URIs follow URITemplate (RFC 6570). Exactly
// one of URI and URITemplate is set.
type Resource struct {
	// URI is the resource's URI, to give to [Bridge.ReadResource]; ""
	// for a template.
	URI string `json:"uri,omitempty"`
	// URITemplate is set, and URI empty, for a resource template (give it
	// to [Bridge.Complete] as [CompletionRequest.ResourceTemplate]).
	URITemplate string `json:"uriTemplate,omitempty"`
	// Name, Title (for a person), Description and MIMEType are the
	// server's, as it sent them: unverified, and not cleaned of control
	// characters ("" when it gave none).
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
	// Size is the size in bytes, if the server said; 0 otherwise (and for
	// a template).
	Size int64 `json:"size,omitempty"`
	// Icons are the resource's icons a host may show (see [Icon]).
	Icons []Icon `json:"icons,omitempty"`
}

// ListResources lists the resources of the named server, then its resource
// templates (URITemplate set), each list read page by page until the last
// cursor. A disconnected server is reconnected as for a tool call (see
// [Bridge]); a server that declared no resources has none (no request is
// sent). Entries that are not objects, or have no URI (a resource) or no
// URI template (a template), are skipped and logged. The slice is the
// caller's.
func (b *Bridge) ListResources(ctx context.Context, server string) ([]Resource, error) {
	var raws, templates []json.RawMessage
	err := b.onServer(ctx, server, func(ctx context.Context, conn *mcpconn.Conn) (err error) {
		if !conn.Offers().Resources {
			return nil
		}
		if raws, err = conn.ListResources(ctx); err != nil {
			return err
		}
		templates, err = conn.ListResourceTemplates(ctx)
		return err
	})
	if err != nil {
		return nil, err
	}
	out := make([]Resource, 0, len(raws)+len(templates))
	add := func(raw json.RawMessage, template bool) {
		var w struct {
			Resource
			Icons json.RawMessage `json:"icons"` // read apart: bad icons drop only themselves
		}
		err := json.Unmarshal(raw, &w)
		switch {
		case template:
			w.URI, w.Size = "", 0 // a template has neither
			if err != nil || w.URITemplate == "" {
				b.log.Warn("mcp server listed a resource template in a bad shape; skipped", "server", server)
				return
			}
		default:
			w.URITemplate = "" // a resource is no template, whatever it says
			if err != nil || w.URI == "" {
				b.log.Warn("mcp server listed a resource in a bad shape; skipped", "server", server)
				return
			}
		}
		r := w.Resource
		r.Icons = redactIcons(b.redact, iconsOf(w.Icons))
		out = append(out, r)
	}
	for _, raw := range raws {
		add(raw, false)
	}
	for _, raw := range templates {
		add(raw, true)
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
