// Package elicitation holds the rules mcpbridge applies to a server's
// request for input from the user (MCP elicitation) before and after the
// host answers it: a form follows the specification's restricted schema
// within bounds, its text cleaned for a person; only a URL that is safe to
// offer reaches the host; and the defaults of the form fill what the user
// left out.
//
//	form, err := elicitation.CheckForm(params.RequestedSchema) // flat primitives only
//	u, err := elicitation.CheckURL(params.URL)                 // https, or http on loopback
//	content = elicitation.ApplyDefaults(form, content)
package elicitation

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/url"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcpgenai/bridge/mcpbridge/internal/result"
)

// MaxURLLength bounds the URLs CheckURL accepts, in bytes.
const MaxURLLength = 4096

// Errors of CheckURL, for errors.Is.
var (
	// ErrUnsafeURL: the URL is not one a user should be sent to.
	ErrUnsafeURL = errors.New("unsafe url")
)

// CheckURL returns the URL a server asks the user to visit, in canonical
// form, when it is safe to offer: https, or http to a loopback host
// (localhost, 127.0.0.0/8, ::1); with a host written in ASCII; with no
// user name or password before the host (https://bank.example@evil.example
// reads as the bank's address); no longer than MaxURLLength; and free of
// control and bidirectional characters. Otherwise the error wraps
// ErrUnsafeURL and says why.
func CheckURL(raw string) (string, error) {
	switch {
	case raw == "":
		return "", fmt.Errorf("%w: empty", ErrUnsafeURL)
	case len(raw) > MaxURLLength:
		return "", fmt.Errorf("%w: longer than %d bytes", ErrUnsafeURL, MaxURLLength)
	case result.CleanText(raw, -1) != raw || strings.IndexFunc(raw, unicode.IsSpace) >= 0:
		return "", fmt.Errorf("%w: control, space or bidirectional characters", ErrUnsafeURL)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrUnsafeURL, err)
	}
	host := u.Hostname()
	switch {
	case u.Opaque != "" || host == "":
		return "", fmt.Errorf("%w: no host", ErrUnsafeURL)
	case u.User != nil:
		return "", fmt.Errorf("%w: user information before the host", ErrUnsafeURL)
	case strings.IndexFunc(host, func(r rune) bool { return r >= utf8.RuneSelf }) >= 0:
		return "", fmt.Errorf("%w: host %q is not ASCII", ErrUnsafeURL, host)
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
	case "http":
		if !loopback(host) {
			return "", fmt.Errorf("%w: http to %s, not loopback (https is required)", ErrUnsafeURL, host)
		}
	default:
		return "", fmt.Errorf("%w: scheme %q (https is required)", ErrUnsafeURL, u.Scheme)
	}
	u.Scheme = strings.ToLower(u.Scheme)
	out := u.String()
	if len(out) > MaxURLLength {
		return "", fmt.Errorf("%w: longer than %d bytes", ErrUnsafeURL, MaxURLLength)
	}
	return out, nil
}

// loopback reports whether host names this machine.
func loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// ApplyDefaults returns content with the default of every property of the
// form schema (an object schema with flat "properties") that content does
// not hold: a user who leaves a field out takes its default. A default is
// applied only when it fits its property (its type, and its enum when
// there is one). content is not modified; the result is a new map, nil
// only when content is nil and nothing was added. A schema that is not an
// object with properties adds nothing.
func ApplyDefaults(schema json.RawMessage, content map[string]any) map[string]any {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil || len(s.Properties) == 0 {
		return maps.Clone(content)
	}
	out := maps.Clone(content)
	for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
		if _, ok := content[name]; ok {
			continue
		}
		v, ok := defaultOf(s.Properties[name])
		if !ok {
			continue
		}
		if out == nil {
			out = map[string]any{}
		}
		out[name] = v
	}
	return out
}

// defaultOf returns the default of one property schema, when it has one
// that fits it.
func defaultOf(raw json.RawMessage) (any, bool) {
	var p struct {
		Type    any               `json:"type"`
		Default json.RawMessage   `json:"default"`
		Enum    []json.RawMessage `json:"enum"`
	}
	if json.Unmarshal(raw, &p) != nil || len(p.Default) == 0 {
		return nil, false
	}
	var v any
	if json.Unmarshal(p.Default, &v) != nil || v == nil {
		return nil, false
	}
	if !fitsType(p.Type, v) {
		return nil, false
	}
	if p.Enum != nil && !slices.ContainsFunc(p.Enum, func(e json.RawMessage) bool { return sameJSON(e, v) }) {
		return nil, false
	}
	switch v.(type) {
	case string, float64, bool:
		return v, true
	case []any: // a multi-select's default: strings only
		for _, e := range v.([]any) {
			if _, ok := e.(string); !ok {
				return nil, false
			}
		}
		return v, true
	}
	return nil, false
}

// fitsType reports whether v has the JSON Schema type t (a name, or a
// list of names; absent fits anything).
func fitsType(t, v any) bool {
	switch t := t.(type) {
	case nil:
		return true
	case string:
		return fits(t, v)
	case []any:
		return slices.ContainsFunc(t, func(n any) bool {
			s, ok := n.(string)
			return ok && fits(s, v)
		})
	}
	return false
}

func fits(t string, v any) bool {
	switch v := v.(type) {
	case string:
		return t == "string"
	case bool:
		return t == "boolean"
	case float64:
		return t == "number" || (t == "integer" && v == float64(int64(v)))
	case []any:
		return t == "array"
	}
	return false
}

// sameJSON reports whether raw decodes to a value equal to v, comparing
// canonical encodings (values of any JSON type, arrays too, compare).
func sameJSON(raw json.RawMessage, v any) bool {
	var ev any
	if json.Unmarshal(raw, &ev) != nil {
		return false
	}
	a, err1 := json.Marshal(ev)
	b, err2 := json.Marshal(v)
	return err1 == nil && err2 == nil && string(a) == string(b)
}
