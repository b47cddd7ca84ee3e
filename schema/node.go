package schema

import (
	"bytes"
	"encoding/json"
	"slices"
	"sort"
)

// node is one schema of the working tree built from the input. The tree is
// fresh (it shares nothing with the input) and, once loaded, immutable: the
// conversion steps build new nodes instead of editing old ones, so nodes
// may be shared between several places of the tree.
type node struct {
	// origin is the dotted path of the node in the original document.
	origin string
	// kw holds the keywords. Schema-valued keywords hold *node (single),
	// []*node (lists) or map[string]any whose values are *node (or raw JSON
	// for entries that are not schemas); every other value is a deep copy of
	// the input.
	kw map[string]any
	// boolean is non-nil for the boolean schemas true and false.
	boolean *bool
	// placeholder, when not empty, marks a node that stands for "any value"
	// because something could not be expanded; it is the reason shown to
	// the model.
	placeholder string
	// ref, when not empty, marks a reference kept in the output (the
	// [JSONSchema] target only): the node is {"$ref": "#/$defs/<ref>"},
	// with at most a description and a default in kw.
	ref string
}

// Keyword classes: which keywords hold subschemas, and in which shape.
var (
	singleSchemaKeys = map[string]bool{
		"additionalProperties": true, "additionalItems": true, "contains": true,
		"not": true, "if": true, "then": true, "else": true, "propertyNames": true,
		"unevaluatedItems": true, "unevaluatedProperties": true, "contentSchema": true,
		"items": true,
	}
	listSchemaKeys = map[string]bool{
		"allOf": true, "anyOf": true, "oneOf": true, "prefixItems": true, "items": true,
	}
	mapSchemaKeys = map[string]bool{
		"properties": true, "patternProperties": true, "dependentSchemas": true,
		"dependencies": true,
	}
)

// sortedKeys returns the keys of m in increasing order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// join appends a path element to a dotted path.
func join(path, elem string) string {
	if path == "" {
		return elem
	}
	return path + "." + elem
}

// clone returns a deep copy of the JSON value v. Values of Go types that
// encoding/json does not produce are normalised through a JSON round trip.
func clone(v any) any {
	switch v := v.(type) {
	case nil, bool, string, float64, json.Number:
		return v
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, e := range v {
			m[k] = clone(e)
		}
		return m
	case []any:
		s := make([]any, len(v))
		for i, e := range v {
			s[i] = clone(e)
		}
		return s
	}
	return normalizeJSON(v)
}

// normalizeJSON converts a Go value of any type to the generic JSON form,
// or nil when it cannot be encoded.
func normalizeJSON(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var out any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if dec.Decode(&out) != nil {
		return nil
	}
	return out
}

// newNode returns an empty node at origin.
func newNode(origin string) *node {
	return &node{origin: origin, kw: map[string]any{}}
}

// with returns a shallow copy of n (sharing child nodes) with key set to v,
// or removed when v is nil.
func (n *node) with(key string, v any) *node {
	m := n.copy()
	if v == nil {
		delete(m.kw, key)
	} else {
		m.kw[key] = v
	}
	return m
}

// without returns a shallow copy of n without the given keys.
func (n *node) without(keys ...string) *node {
	m := n.copy()
	for _, k := range keys {
		delete(m.kw, k)
	}
	return m
}

// copy returns a shallow copy of n with its own keyword map.
func (n *node) copy() *node {
	m := &node{origin: n.origin, boolean: n.boolean, placeholder: n.placeholder, ref: n.ref, kw: make(map[string]any, len(n.kw))}
	for k, v := range n.kw {
		m.kw[k] = v
	}
	return m
}

// has reports whether n has keyword k.
func (n *node) has(k string) bool {
	_, ok := n.kw[k]
	return ok
}

// child returns the single subschema under k, or nil.
func (n *node) child(k string) *node {
	c, _ := n.kw[k].(*node)
	return c
}

// list returns the subschema list under k, or nil.
func (n *node) list(k string) []*node {
	l, _ := n.kw[k].([]*node)
	return l
}

// str returns the string under k, or "".
func (n *node) str(k string) string {
	s, _ := n.kw[k].(string)
	return s
}

// props returns the subschemas under a map keyword such as properties.
func (n *node) props(k string) map[string]*node {
	m, _ := n.kw[k].(map[string]any)
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]*node, len(m))
	for name, v := range m {
		if c, ok := v.(*node); ok {
			out[name] = c
		}
	}
	return out
}

// isEmpty reports whether n constrains nothing (true, {}, or only
// annotations that carry no constraint).
func (n *node) isEmpty() bool {
	if n.placeholder != "" || n.ref != "" {
		return false
	}
	if n.boolean != nil {
		return *n.boolean
	}
	for k := range n.kw {
		if !annotationKeys[k] {
			return false
		}
	}
	return true
}

// isFalseNode is isFalse for a node that may be nil (absent).
func (n *node) isFalseNode() bool {
	return n != nil && n.isFalse()
}

// isFalse reports whether n is the schema false.
func (n *node) isFalse() bool {
	return n.boolean != nil && !*n.boolean
}

// annotationKeys carry no constraint on the value.
var annotationKeys = map[string]bool{
	"description": true, "title": true, "default": true, "examples": true,
	"example": true, "$comment": true, "deprecated": true, "readOnly": true,
	"writeOnly": true, "$schema": true, "$id": true, "$anchor": true,
	"$dynamicAnchor": true, "$vocabulary": true,
}

// stringSet returns the strings of a JSON array value, skipping others and
// duplicates, in order.
func stringSet(v any) []string {
	a, _ := v.([]any)
	var out []string
	for _, e := range a {
		if s, ok := e.(string); ok && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// subschemaKeyword names the first keyword of n holding subschemas, the
// one a cut at n removes; "type" when n has none (an array without items,
// a list of types).
func subschemaKeyword(n *node) string {
	for _, k := range sortedKeys(n.kw) {
		switch v := n.kw[k].(type) {
		case *node, []*node:
			return k
		case map[string]any:
			if mapSchemaKeys[k] && len(v) > 0 {
				return k
			}
		}
	}
	return "type"
}
