package mcpbridge

import (
	"encoding/json"
	"slices"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpgenai/bridge/mcpbridge/internal/icons"
)

// Icon is an image a server gives itself or one of its tools, prompts,
// resources or resource templates, for a host to show. Icons are
// untrusted: the Bridge keeps only https URLs (plain http only to a
// loopback address) and base64 data: URIs of images (PNG, JPEG, WebP,
// GIF, SVG) up to 64 KiB, at most 8 per thing; a host should still load
// them without cookies or credentials, and treat SVG with care.
type Icon struct {
	// Src is the image's URL or data: URI.
	Src string `json:"src"`
	// MIMEType is the image's type ("image/png"); "" when not given.
	MIMEType string `json:"mimeType,omitempty"`
	// Sizes are the sizes the image suits ("48x48", or "any" for a
	// scalable one); nil when not given.
	Sizes []string `json:"sizes,omitempty"`
	// Theme is "light" or "dark", the background the image suits; ""
	// when not given.
	Theme string `json:"theme,omitempty"`
}

// publicIcons converts cleaned icons; nil stays nil.
func publicIcons(in []icons.Icon) []Icon {
	if in == nil {
		return nil
	}
	out := make([]Icon, len(in))
	for i, ic := range in {
		out[i] = Icon(ic)
	}
	return out
}

// iconsOf returns the icons a host may show of a JSON list of icons as a
// server sent it; nil for none or a list in a bad shape.
func iconsOf(raw json.RawMessage) []Icon {
	return publicIcons(icons.FromList(raw))
}

// serverIcons returns the icons a host may show of a server's own.
func serverIcons(in []mcp.Icon) []Icon {
	list := make([]icons.Icon, len(in))
	for i, ic := range in {
		list[i] = icons.Icon{Src: ic.Src, MIMEType: ic.MIMEType, Sizes: ic.Sizes, Theme: string(ic.Theme)}
	}
	return publicIcons(icons.Clean(list))
}

// cloneIcons returns a copy of in that shares nothing with it.
func cloneIcons(in []Icon) []Icon {
	if in == nil {
		return nil
	}
	out := slices.Clone(in)
	for i := range out {
		out[i].Sizes = slices.Clone(out[i].Sizes)
	}
	return out
}

// redactIcons returns in with every text redacted by r (a data URI or URL
// carrying a configured secret loses it); in is not modified.
func redactIcons(r redactor, in []Icon) []Icon {
	out := cloneIcons(in)
	for i := range out {
		out[i].Src = r.Text(out[i].Src)
	}
	return out
}
