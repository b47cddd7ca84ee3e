package schema

import (
	"encoding/json"
	"strings"

	"google.golang.org/genai"
)

// Restorer maps the arguments a model sent for a converted schema back to
// what the original schema expects. The zero value and a nil *Restorer are
// the identity. A Restorer is immutable and safe for concurrent use.
type Restorer struct {
	root   *plan
	unwrap bool // the root was wrapped as {"value": <schema>}
}

// plan mirrors the converted schema where something must be undone. A nil
// *plan means "nothing to restore below here".
type plan struct {
	kind    genai.Type       // the converted node's type, for choosing anyOf branches
	enum    map[string]any   // converted enum member -> original value
	members []string         // every member of a restored enum, as the model saw it
	anyJSON bool             // the node stands for any value, written by the model as JSON text
	props   map[string]*plan // per property, only where needed
	names   map[string]bool  // every property name of an OBJECT node (for anyOf branches)
	items   *plan            // array elements
	anyOf   []*plan          // one entry per anyOf branch, never nil inside
}

// Restore returns the arguments the original schema expects given args, the
// arguments the model sent for the converted schema:
//
//   - a stringified enum member ("5", "true", `{"a":1}`) becomes the original
//     value again (json.Number when the schema was given as bytes);
//   - an any-value node (a STRING standing for any value) is decoded when
//     the model wrote a JSON object or array in it; other text stays a
//     string;
//   - a wrapped non-object root is unwrapped: the result is args["value"],
//     so it may be any JSON value rather than a map.
//
// Values that match no rewrite pass through unchanged; a JSON null passes
// through as nil. args is never modified; the result may share unchanged
// sub-values with it. A nil r returns args unchanged.
func (r *Restorer) Restore(args map[string]any) any {
	if r == nil {
		return args
	}
	if r.unwrap {
		if args == nil {
			return nil
		}
		v, _ := restoreValue(r.root, args["value"])
		return v
	}
	if r.root == nil || args == nil {
		return args
	}
	v, _ := restoreValue(r.root, args)
	return v
}

// Identity reports whether Restore never changes anything, so callers can
// skip the walk. It is true for a nil r.
func (r *Restorer) Identity() bool {
	return r == nil || (!r.unwrap && r.root == nil)
}

// trivial reports whether p restores nothing.
func (p *plan) trivial() bool {
	if p == nil {
		return true
	}
	return len(p.enum) == 0 && !p.anyJSON && len(p.props) == 0 && p.items.trivial() && len(p.anyOf) == 0
}

// orNil returns p, or nil when p restores nothing.
func (p *plan) orNil() *plan {
	if p.trivial() {
		return nil
	}
	return p
}

// restoreValue applies p to v without modifying v. It reports whether the
// result differs from v.
func restoreValue(p *plan, v any) (any, bool) {
	if p == nil || v == nil {
		return v, false
	}
	if len(p.anyOf) > 0 {
		return restoreValue(chooseBranch(p.anyOf, v), v)
	}
	switch v := v.(type) {
	case string:
		if orig, ok := p.enum[v]; ok {
			return clone(orig), true
		}
		if p.anyJSON {
			if d, ok := decodeJSONText(v); ok {
				return d, true
			}
		}
	case map[string]any:
		var out map[string]any
		for _, k := range sortedKeys(p.props) {
			old, ok := v[k]
			if !ok {
				continue
			}
			nv, changed := restoreValue(p.props[k], old)
			if !changed {
				continue
			}
			if out == nil {
				out = make(map[string]any, len(v))
				for kk, vv := range v {
					out[kk] = vv
				}
			}
			out[k] = nv
		}
		if out != nil {
			return out, true
		}
	case []any:
		if p.items == nil {
			return v, false
		}
		var out []any
		for i, e := range v {
			ne, changed := restoreValue(p.items, e)
			if !changed {
				if out != nil {
					out[i] = e
				}
				continue
			}
			if out == nil {
				out = make([]any, len(v))
				copy(out, v[:i])
			}
			out[i] = ne
		}
		if out != nil {
			return out, true
		}
	}
	return v, false
}

// decodeJSONText decodes s when it is a JSON object or array. Scalars stay
// strings: a server whose schema allowed any value most often wants the
// text itself ("123", "true"), and the model writes those as strings anyway.
func decodeJSONText(s string) (any, bool) {
	t := strings.TrimSpace(s)
	if t == "" || t[0] != '{' && t[0] != '[' || !json.Valid([]byte(t)) {
		return nil, false
	}
	dec := json.NewDecoder(strings.NewReader(t))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil, false
	}
	return v, true
}

// chooseBranch picks the anyOf branch whose plan applies to v: for a string,
// the branch whose enum holds it, else a plain STRING branch (nothing to
// restore), else an any-value branch; for an object, the first OBJECT
// branch declaring every key of v, else the first OBJECT branch; for an
// array, the first ARRAY branch. nil when none fits.
func chooseBranch(branches []*plan, v any) *plan {
	switch v := v.(type) {
	case string:
		for _, b := range branches {
			if _, ok := b.enum[v]; ok {
				return b
			}
			if len(b.anyOf) > 0 {
				if inner := chooseBranch(b.anyOf, v); inner != nil {
					if _, ok := inner.enum[v]; ok {
						return b
					}
				}
			}
		}
		for _, b := range branches {
			if b.kind == genai.TypeString && len(b.enum) == 0 && !b.anyJSON {
				return nil
			}
		}
		for _, b := range branches {
			if b.anyJSON {
				return b
			}
		}
	case map[string]any:
		var first *plan
		for _, b := range branches {
			if len(b.anyOf) > 0 {
				if chooseBranch(b.anyOf, v) != nil {
					return b // a nested anyOf that can take v
				}
				continue
			}
			if b.kind != genai.TypeObject {
				continue
			}
			if first == nil {
				first = b
			}
			all := true
			for k := range v {
				if !b.names[k] {
					all = false
					break
				}
			}
			if all {
				return b
			}
		}
		return first
	case []any:
		for _, b := range branches {
			if b.kind == genai.TypeArray || len(b.anyOf) > 0 && chooseBranch(b.anyOf, v) != nil {
				return b
			}
		}
	}
	return nil
}
