package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
)

// mergeAllOf returns n with its allOf branches merged into it (recursively):
// properties are united (a property in several branches is merged too),
// required lists united, types intersected, enums intersected, lower bounds
// raised and upper bounds lowered. On a real conflict the first value wins
// and the conflict is reported. Annotations of n itself win over the
// branches'. n is not modified.
func (c *converter) mergeAllOf(n *node) *node {
	if n.boolean != nil || n.placeholder != "" || !n.has("allOf") {
		return n
	}
	branches := n.list("allOf")
	c.log.add(n.origin, "allOf", fmt.Sprintf("merged %d branches", len(branches)))
	out := n.without("allOf")
	for _, b := range branches {
		out = c.merge(out, c.mergeAllOf(b))
	}
	return out
}

// lowerBounds and upperBounds are merged by taking the tighter value.
var (
	lowerBounds = map[string]bool{"minimum": true, "minLength": true, "minItems": true, "minProperties": true, "minContains": true, "exclusiveMinimum": true}
	upperBounds = map[string]bool{"maximum": true, "maxLength": true, "maxItems": true, "maxProperties": true, "maxContains": true, "exclusiveMaximum": true}
)

// merge returns the conjunction of a and b as one node (origin a's).
func (c *converter) merge(a, b *node) *node {
	if a.ref != "" || b.ref != "" {
		// A kept reference is not expanded: the conjunction stays an
		// allOf (only the JSONSchema target keeps references).
		both := newNode(a.origin)
		both.kw["allOf"] = []*node{a, b}
		return both
	}
	switch {
	case a.boolean != nil && *a.boolean, a.placeholder != "" && b.placeholder == "":
		out := b.copy()
		out.origin = a.origin
		for k, v := range a.kw { // keep a's annotations
			if annotationKeys[k] {
				out.kw[k] = v
			}
		}
		return out
	case a.isFalse(), b.boolean != nil && *b.boolean, b.placeholder != "":
		return a
	case b.isFalse():
		return b
	}
	out := a.copy()
	for _, k := range sortedKeys(b.kw) {
		bv := b.kw[k]
		av, ok := out.kw[k]
		if !ok {
			out.kw[k] = bv
			continue
		}
		switch {
		case annotationKeys[k]:
			// a's annotation wins.
		case k == "properties" || k == "patternProperties" || k == "dependentSchemas":
			out.kw[k] = c.mergeProps(av, bv)
		case k == "required":
			out.kw[k] = unionStrings(av, bv)
		case k == "type":
			out.kw[k] = c.intersectTypes(a.origin, av, bv)
		case k == "enum":
			out.kw[k] = c.intersectEnum(a.origin, av, bv)
		case k == "nullable":
			x, _ := av.(bool)
			y, _ := bv.(bool)
			out.kw[k] = x && y
		case lowerBounds[k] || upperBounds[k]:
			x, okx := toFloat(av)
			y, oky := toFloat(bv)
			if okx && oky && (lowerBounds[k] && y > x || upperBounds[k] && y < x) {
				out.kw[k] = bv
			}
		default:
			an, aok := av.(*node)
			bn, bok := bv.(*node)
			if aok && bok {
				out.kw[k] = c.merge(c.mergeAllOf(an), c.mergeAllOf(bn))
			} else if !equalJSON(av, bv) {
				c.log.add(b.origin, k, "conflicts with another allOf branch: first kept")
			}
		}
	}
	return out
}

// mergeProps unites two properties maps; a name in both is merged.
func (c *converter) mergeProps(av, bv any) any {
	am, _ := av.(map[string]any)
	bm, _ := bv.(map[string]any)
	out := make(map[string]any, len(am)+len(bm))
	for k, v := range am {
		out[k] = v
	}
	for k, v := range bm {
		old, ok := out[k]
		if !ok {
			out[k] = v
			continue
		}
		on, ok1 := old.(*node)
		nn, ok2 := v.(*node)
		if ok1 && ok2 {
			out[k] = c.merge(c.mergeAllOf(on), c.mergeAllOf(nn))
		}
	}
	return out
}

// unionStrings unites two JSON arrays of strings, keeping order.
func unionStrings(a, b any) any {
	out := []any{}
	seen := map[string]bool{}
	for _, s := range append(stringSet(a), stringSet(b)...) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// typeNames returns the lower-case type names of a type keyword value.
func typeNames(v any) []string {
	var out []string
	add := func(e any) {
		if s, ok := e.(string); ok {
			s = lower(s)
			if !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	if l, ok := v.([]any); ok {
		for _, e := range l {
			add(e)
		}
	} else {
		add(v)
	}
	return out
}

// intersectTypes intersects two type keyword values (integer is a number).
func (c *converter) intersectTypes(origin string, av, bv any) any {
	a, b := typeNames(av), typeNames(bv)
	var out []any
	for _, t := range a {
		switch {
		case slices.Contains(b, t):
			out = append(out, t)
		case t == "integer" && slices.Contains(b, "number"):
			out = append(out, "integer")
		case t == "number" && slices.Contains(b, "integer"):
			out = append(out, "integer")
		}
	}
	switch len(out) {
	case 0:
		c.log.add(origin, "type", "allOf branches disagree on the type: first kept")
		return av
	case 1:
		return out[0]
	}
	return out
}

// intersectEnum keeps the members of av that bv also lists.
func (c *converter) intersectEnum(origin string, av, bv any) any {
	a, _ := av.([]any)
	b, _ := bv.([]any)
	var out []any
	for _, x := range a {
		for _, y := range b {
			if equalJSON(x, y) {
				out = append(out, x)
				break
			}
		}
	}
	if len(out) == 0 {
		c.log.add(origin, "enum", "allOf branches share no enum member: first kept")
		return av
	}
	return out
}

// equalJSON reports whether a and b encode to the same JSON.
func equalJSON(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}
