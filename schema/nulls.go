package schema

import (
	"slices"
	"strings"
)

// jsonTypes are the JSON Schema type names, in the order used when a type
// array is split into anyOf branches.
var jsonTypes = []string{"string", "number", "integer", "boolean", "array", "object", "null"}

// singleTypes holds, for each of jsonTypes, a list of just that type,
// returned by typeList for the usual single type without allocating.
// Each has a capacity of one, so appending copies it; no caller writes
// to its elements.
var singleTypes = func() [][]string {
	l := make([][]string, len(jsonTypes))
	for i, t := range jsonTypes {
		l[i] = []string{t}[:1:1]
	}
	return l
}()

// typeList returns the declared types of n in lower case, without
// duplicates, and whether null is allowed (by a "null" type or by
// nullable: true). Unknown names are reported and ignored. OpenAPI's upper
// case names ("STRING", as a marshalled *genai.Schema has) are accepted.
func (c *converter) typeList(n *node) (types []string, nullable bool) {
	add := func(v any) {
		s, ok := v.(string)
		if !ok {
			c.log.add(n.origin, "type", "not a string: ignored")
			return
		}
		t := strings.ToLower(strings.TrimSpace(s))
		switch {
		case t == "null":
			nullable = true
		case t == "type_unspecified" || t == "any" || t == "":
		case slices.Contains(jsonTypes, t):
			switch {
			case types == nil:
				types = singleTypes[slices.Index(jsonTypes, t)]
			case !slices.Contains(types, t):
				types = append(types, t)
			}
		default:
			c.log.add(n.origin, "type", "unknown type "+s+" ignored")
		}
	}
	switch v := n.kw["type"].(type) {
	case nil:
	case []any:
		for _, e := range v {
			add(e)
		}
	default:
		add(v)
	}
	if b, _ := n.kw["nullable"].(bool); b {
		nullable = true
	}
	return types, nullable
}

// isNullSchema reports whether n accepts only null: {"type": "null"},
// {"const": null} or {"enum": [null]}, whatever else it holds.
func isNullSchema(n *node) bool {
	if n.placeholder != "" || n.boolean != nil {
		return false
	}
	only := false
	switch t := n.kw["type"].(type) {
	case string:
		only = strings.EqualFold(t, "null")
	case []any:
		only = len(t) > 0
		for _, e := range t {
			if s, _ := e.(string); !strings.EqualFold(s, "null") {
				only = false
			}
		}
	}
	if c, ok := n.kw["const"]; ok && c == nil {
		only = true
	}
	if e, ok := n.kw["enum"].([]any); ok && len(e) > 0 {
		allNull := true
		for _, v := range e {
			if v != nil {
				allNull = false
			}
		}
		only = only || allNull
	}
	// Other keywords cannot widen what such a node accepts.
	return only
}

// typeKeys lists, per type, the keywords that only apply to it; they go to
// that type's branch when a type array is split into anyOf.
var typeKeys = map[string][]string{
	"string":  {"minLength", "maxLength", "pattern", "format", "contentEncoding", "contentMediaType", "contentSchema"},
	"number":  {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "format"},
	"integer": {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "format"},
	"array":   {"items", "prefixItems", "additionalItems", "minItems", "maxItems", "uniqueItems", "contains", "minContains", "maxContains", "unevaluatedItems"},
	"object":  {"properties", "required", "additionalProperties", "patternProperties", "propertyNames", "minProperties", "maxProperties", "dependentRequired", "dependentSchemas", "dependencies", "unevaluatedProperties", "propertyOrdering"},
}

// typeOfKey returns the types a keyword is specific to, or nil.
func typeOfKey(k string) []string {
	var out []string
	for _, t := range jsonTypes {
		if slices.Contains(typeKeys[t], k) {
			out = append(out, t)
		}
	}
	return out
}

// splitTypes turns a node with several non-null types into an anyOf node
// with one branch per type. Annotations stay on the parent; each
// type-specific keyword goes to its type's branches; other keywords go to
// every branch.
func (c *converter) splitTypes(n *node, types []string, nullable bool) *node {
	c.log.add(n.origin, "type", "several types: one anyOf branch per type")
	parent := newNode(n.origin)
	for k, v := range n.kw {
		if annotationKeys[k] {
			parent.kw[k] = v
		}
	}
	if nullable {
		parent.kw["nullable"] = true
	}
	branches := make([]*node, 0, len(types))
	for _, t := range types {
		b := newNode(n.origin)
		b.kw["type"] = t
		for k, v := range n.kw {
			if k == "type" || k == "nullable" || annotationKeys[k] {
				continue
			}
			if owners := typeOfKey(k); owners == nil || slices.Contains(owners, t) {
				b.kw[k] = v
			}
		}
		branches = append(branches, b)
	}
	parent.kw["anyOf"] = branches
	return parent
}
