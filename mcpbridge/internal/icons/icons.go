// Package icons keeps the icons MCP servers give themselves and their
// tools, prompts and resources to those a host may safely show: icons are
// untrusted input, so only https URLs and small base64 image data URIs
// pass, with an image MIME type, well-formed sizes and a known theme.
//
//	kept := icons.Clean(listed) // a new slice; nil when none is kept
package icons

import (
	"encoding/base64"
	"encoding/json"
	"regexp"
	"slices"
	"strings"

	"github.com/mcpgenai/bridge/mcpbridge/internal/elicitation"
)

// Icon is one icon as MCP describes it.
type Icon struct {
	// Src is an https URL or a data: URI of the image.
	Src string `json:"src"`
	// MIMEType is the image's type ("image/png"), if given.
	MIMEType string `json:"mimeType,omitempty"`
	// Sizes are "WxH" sizes or "any", if given.
	Sizes []string `json:"sizes,omitempty"`
	// Theme is "light" or "dark": the background the icon suits, if given.
	Theme string `json:"theme,omitempty"`
}

// Limits of what Clean keeps.
const (
	// MaxIcons is how many icons of one thing are kept (the first).
	MaxIcons = 8
	// MaxDataURI bounds a data: URI, in bytes.
	MaxDataURI = 64 << 10
	// maxSizes is how many sizes of one icon are kept.
	maxSizes = 8
)

// images are the MIME types of the images kept.
var images = []string{"image/png", "image/jpeg", "image/webp", "image/gif", "image/svg+xml"}

var sizePattern = regexp.MustCompile(`^(any|[1-9][0-9]{0,4}x[1-9][0-9]{0,4})$`)

// Clean returns the icons of in a host may show, at most MaxIcons, each
// in a new Icon: an icon whose Src is neither https (see
// [elicitation.CheckURL]; plain http only to loopback) nor a base64 data:
// URI of an image type within MaxDataURI, or whose MIMEType is given and
// not an image type, is dropped; sizes not "WxH" or "any" and a theme
// other than light or dark are left out. in is not modified. Cleaning
// twice changes nothing.
func Clean(in []Icon) []Icon {
	var out []Icon
	for _, ic := range in {
		if len(out) == MaxIcons {
			break
		}
		mime := strings.ToLower(ic.MIMEType)
		if mime != "" && !slices.Contains(images, mime) {
			continue
		}
		src, ok := cleanSrc(ic.Src, mime)
		if !ok {
			continue
		}
		k := Icon{Src: src, MIMEType: mime}
		for _, s := range ic.Sizes {
			if sizePattern.MatchString(s) && len(k.Sizes) < maxSizes {
				k.Sizes = append(k.Sizes, s)
			}
		}
		if ic.Theme == "light" || ic.Theme == "dark" {
			k.Theme = ic.Theme
		}
		out = append(out, k)
	}
	return out
}

// cleanSrc returns src when an icon may be loaded from it.
func cleanSrc(src, mime string) (string, bool) {
	if rest, ok := strings.CutPrefix(src, "data:"); ok {
		if len(src) > MaxDataURI {
			return "", false
		}
		typ, data, ok := strings.Cut(rest, ";base64,")
		typ = strings.ToLower(typ)
		if !ok || !slices.Contains(images, typ) || (mime != "" && mime != typ) {
			return "", false
		}
		if _, err := base64.StdEncoding.DecodeString(data); err != nil {
			return "", false
		}
		return "data:" + typ + ";base64," + data, true
	}
	u, err := elicitation.CheckURL(src)
	return u, err == nil
}

// FromJSON returns the cleaned icons of the "icons" member of a JSON
// object (a tool, prompt, resource or template as listed); nil when there
// are none or the member is not a list of icons.
func FromJSON(obj json.RawMessage) []Icon {
	var v struct {
		Icons []Icon `json:"icons"`
	}
	if json.Unmarshal(obj, &v) != nil {
		return nil
	}
	return Clean(v.Icons)
}

// FromList returns the cleaned icons of a JSON list of icons (an "icons"
// member's value); nil when there are none or raw is not such a list.
func FromList(raw json.RawMessage) []Icon {
	if len(raw) == 0 {
		return nil
	}
	var list []Icon
	if json.Unmarshal(raw, &list) != nil {
		return nil
	}
	return Clean(list)
}
