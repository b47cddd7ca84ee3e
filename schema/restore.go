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
	kind    genai.Type       // the converted node's type
	enum    map[string]any   // converted enum member -> original value
	members []string         // every member of a restored enum, as the model saw it
	anyJSON bool             // the node stands for any value, written by the model as JSON text
	props   map[string]*plan // per property, only where needed
	items   *plan            // array elements
	anyOf   []*plan          // one entry per anyOf branch, never nil inside
	shapes  []*shape         // the converted anyOf branches, to choose among them

	// jsonObject: the JSON text stands for an object (a map); its values
	// are restored by values and made to fit valueShape.
	jsonObject bool
	values     *plan
	valueShape *shape

	// tuple, when not nil, restores array elements by position (items is
	// then nil); rest restores the elements after them.
	tuple []*plan
	rest  *plan

	// others, beside anyOf at a merged root, restores the properties
	// that the chosen branch does not declare.
	others *plan
}

// Restore returns the arguments the original schema expects given args, the
// arguments the model sent for the converted schema:
//
//   - a stringified enum member ("5", "true", `{"a":1}`) becomes the original
//     value again (json.Number when the schema was given as bytes);
//   - an any-value node (a STRING standing for any value) is decoded when
//     the model wrote a JSON object or array in it; other text stays a
//     string;
//   - a map written as JSON text whose values have a schema gets its
//     values restored by it: enum members back to their values, and text
//     where a number, an integer or a boolean is wanted ("1", "true")
//     becomes that value;
//   - a value of an anyOf is restored by the branch it fits best: the
//     branch whose enum and const members it matches (discriminators),
//     then whose required names it has and whose types its values have,
//     then whose properties it uses; of equal fits the first is used, and
//     [Restorer.Mismatches] reports the tie when the branches would
//     restore it differently;
//   - tuple elements (prefixItems, or items as a list) are restored by
//     their position, and the elements after them by the items schema;
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
	return len(p.enum) == 0 && !p.anyJSON && len(p.props) == 0 && p.items.trivial() && len(p.anyOf) == 0 &&
		p.tuple == nil && p.rest.trivial()
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
		i := chosenIndex(p, v)
		if i < 0 {
			return v, false
		}
		out, changed := restoreValue(p.anyOf[i], v)
		if p.others != nil {
			out, changed = p.restoreOthers(i, v, out, changed)
		}
		return out, changed
	}
	switch v := v.(type) {
	case string:
		if orig, ok := p.enum[v]; ok {
			return clone(orig), true
		}
		if p.anyJSON {
			if d, ok := decodeJSONText(v); ok {
				return p.restoreValues(d), true
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
		if p.items == nil && p.tuple == nil {
			return v, false
		}
		var out []any
		for i, e := range v {
			ne, changed := restoreValue(p.itemPlan(i), e)
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

// restoreOthers restores, by p.others, the properties of the object v
// that branch i does not declare; out is v as branch i restored it.
func (p *plan) restoreOthers(i int, v, out any, changed bool) (any, bool) {
	in, ok := v.(map[string]any)
	if !ok {
		return out, changed
	}
	for _, k := range sortedKeys(p.others.props) {
		e, ok := in[k]
		if !ok || p.declares(i, k) {
			continue
		}
		ne, ch := restoreValue(p.others.props[k], e)
		if !ch {
			continue
		}
		if !changed {
			cp := make(map[string]any, len(in))
			for kk, vv := range in {
				cp[kk] = vv
			}
			out, changed = cp, true
		}
		out.(map[string]any)[k] = ne
	}
	return out, changed
}

// declares reports whether anyOf branch i of p declares the property k.
func (p *plan) declares(i int, k string) bool {
	if i >= len(p.shapes) || p.shapes[i] == nil {
		return false
	}
	_, ok := p.shapes[i].prop(k)
	return ok
}

// restoreValues restores the values of d, an object just decoded from
// JSON text, by the schema of a map's values: enum members written as
// text go back to their values, and text that a number, integer or
// boolean value schema wants ("1", "true") becomes that value. d is fresh
// and owned by the caller: it is changed in place.
func (p *plan) restoreValues(d any) any {
	m, ok := d.(map[string]any)
	if !ok || p.values == nil && p.valueShape == nil {
		return d
	}
	for k, e := range m {
		r, _ := restoreValue(p.values, e)
		m[k] = coerce(p.valueShape, r, 0)
	}
	return m
}

// coerce turns text in v that sh wants as a number, an integer or a
// boolean into that value, at any depth; v is fresh and changed in place.
func coerce(sh *shape, v any, depth int) any {
	if sh == nil || depth >= shapeDepth {
		return v
	}
	switch x := v.(type) {
	case string:
		kinds := []*shape{sh}
		if len(sh.anyOf) > 0 {
			kinds = sh.anyOf
		}
		for _, k := range kinds {
			if k != nil && k.kind == genai.TypeString {
				return v // a string is welcome as it is
			}
		}
		for _, k := range kinds {
			if k == nil {
				continue
			}
			if c, ok := scalarText(k.kind, x); ok {
				return c
			}
		}
	case map[string]any:
		if sh.kind == genai.TypeObject {
			for k, e := range x {
				sub, _ := sh.prop(k)
				x[k] = coerce(sub, e, depth+1)
			}
		}
	case []any:
		if sh.kind == genai.TypeArray {
			for i, e := range x {
				x[i] = coerce(sh.items, e, depth+1)
			}
		}
	}
	return v
}

// scalarText returns the value of kind t that the text s stands for: a
// json.Number for NUMBER and INTEGER, a bool for BOOLEAN.
func scalarText(t genai.Type, s string) (any, bool) {
	s = strings.TrimSpace(s)
	switch t {
	case genai.TypeNumber, genai.TypeInteger:
		n := json.Number(s)
		f, err := n.Float64()
		if err != nil || !json.Valid([]byte(s)) || t == genai.TypeInteger && f != float64(int64(f)) {
			return nil, false
		}
		return n, true
	case genai.TypeBoolean:
		switch s {
		case "true":
			return true, true
		case "false":
			return false, true
		}
	}
	return nil, false
}
