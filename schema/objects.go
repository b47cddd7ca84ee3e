package schema

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"google.golang.org/genai"
)

// arrayKeys converts an ARRAY node's items (always present in the output)
// and its item counts.
func (c *converter) arrayKeys(n *node, s *genai.Schema, p *plan, used map[string]bool, notes *[]string, depth int) {
	item := c.itemsOf(n, used)
	if item == nil || item.isEmpty() {
		if item == nil {
			item = newNode(join(n.origin, "items"))
			c.log.add(n.origin, "items", "missing: items are any value (a STRING)")
		} else {
			c.log.add(n.origin, "items", "empty: items are any value (a STRING)")
		}
		s.Items, p.items = c.anyValue(item, "")
	} else {
		s.Items, p.items = c.schema(item, depth+1)
	}
	p.items = p.items.orNil()
	if pos, rest, ok := tupleOf(n); ok {
		c.tuple(s, p, pos, rest, notes, depth)
	}
	s.MinItems = c.count(n, "minItems", used)
	s.MaxItems = c.count(n, "maxItems", used)
}

// tupleOf returns the position schemas of a tuple (prefixItems, or items
// as a list in older drafts) and the schema of the elements after them
// (nil when any value may follow, false when none may).
func tupleOf(n *node) (positions []*node, rest *node, ok bool) {
	if n.has("prefixItems") {
		rest, _ := n.kw["items"].(*node)
		return n.list("prefixItems"), rest, true
	}
	if l, isList := n.kw["items"].([]*node); isList {
		return l, n.child("additionalItems"), true
	}
	return nil, nil, false
}

// tuple makes p restore the elements of the array s by position (the
// output has one item schema for every position), and tells the model the
// order in the description. The positions are converted again on their
// own, quietly: the anyOf of s.Items merged them.
func (c *converter) tuple(s *genai.Schema, p *plan, positions []*node, rest *node, notes *[]string, depth int) {
	if len(positions) == 0 {
		return
	}
	plans := make([]*plan, len(positions))
	texts := make([]string, len(positions))
	restores := false
	var rp *plan
	c.quietly(func() {
		for i, pn := range positions {
			ps, pp := c.schema(pn, depth+1)
			texts[i] = brief(ps, pp, false)
			plans[i] = pp.orNil()
			restores = restores || plans[i] != nil
		}
		if rest != nil && !rest.isFalse() && !rest.isEmpty() {
			var rs *genai.Schema
			rs, rp = c.schema(rest, depth+1)
			texts = append(texts, "then any number of "+brief(rs, rp, false))
			rp = rp.orNil()
		}
	})
	if len(texts) > 1 {
		*notes = append(*notes, "items in this order: "+strings.Join(texts, "; "))
	}
	if restores || rp != nil {
		p.tuple, p.rest, p.items = plans, rp, nil
	}
}

// itemsOf returns the single schema for the array's elements: items, or
// for tuples (prefixItems, array-valued items, additionalItems) an anyOf of
// the positions' schemas. nil when nothing describes the elements.
func (c *converter) itemsOf(n *node, used map[string]bool) *node {
	var list []*node
	tuple := false
	prefix := n.list("prefixItems")
	if n.has("prefixItems") {
		used["prefixItems"] = true
		list = append(list, prefix...)
		tuple = true
	}
	switch v := n.kw["items"].(type) {
	case *node:
		used["items"] = true
		if !tuple {
			return v
		}
		if !v.isFalse() {
			list = append(list, v)
		}
	case []*node:
		used["items"] = true
		list = append(list, v...)
		tuple = true
		if a := n.child("additionalItems"); a != nil && !a.isFalse() {
			used["additionalItems"] = true
			list = append(list, a)
		}
	}
	if tuple {
		c.log.add(n.origin, "items", "tuple positions merged into one item schema (anyOf)")
	}
	switch len(list) {
	case 0:
		return nil
	case 1:
		return list[0]
	}
	return &node{origin: n.origin, kw: map[string]any{"anyOf": list}}
}

// objectKeys converts an OBJECT node's properties, required list, counts
// and property ordering.
func (c *converter) objectKeys(n *node, s *genai.Schema, p *plan, used map[string]bool, notes *[]string, depth int) {
	if n.has("properties") {
		used["properties"] = true
		props := n.props("properties")
		for _, name := range sortedKeys(props) {
			child := props[name]
			if child.isFalse() {
				c.log.add(n.origin, "properties", "property "+strconv.Quote(name)+" is not allowed (schema false): removed")
				continue
			}
			cs, cp := c.schema(child, depth+1)
			if s.Properties == nil {
				s.Properties = map[string]*genai.Schema{}
			}
			s.Properties[name] = cs
			if cp = cp.orNil(); cp != nil {
				if p.props == nil {
					p.props = map[string]*plan{}
				}
				p.props[name] = cp
			}
		}
	}
	if v, ok := n.kw["required"]; ok {
		used["required"] = true
		a, _ := v.([]any)
		for _, e := range a {
			name, ok := e.(string)
			switch {
			case !ok:
				c.log.add(n.origin, "required", "member that is not a string dropped")
			case s.Properties[name] == nil:
				c.log.add(n.origin, "required", "names "+strconv.Quote(name)+", which is not a property: removed")
			case slices.Contains(s.Required, name):
				c.log.add(n.origin, "required", "duplicate "+strconv.Quote(name)+" removed")
			default:
				s.Required = append(s.Required, name)
			}
		}
	}
	s.MinProperties = c.count(n, "minProperties", used)
	s.MaxProperties = c.count(n, "maxProperties", used)
	if v, ok := n.kw["propertyOrdering"]; ok {
		used["propertyOrdering"] = true
		a, _ := v.([]any)
		for _, e := range a {
			if name, ok := e.(string); ok && s.Properties[name] != nil && !slices.Contains(s.PropertyOrdering, name) {
				s.PropertyOrdering = append(s.PropertyOrdering, name)
			}
		}
		if len(s.PropertyOrdering) != len(a) {
			c.log.add(n.origin, "propertyOrdering", "names that are not properties removed")
		}
	}
}

// isFreeForm reports whether n is an object with no declared property that
// says it holds other properties (additionalProperties other than false, or
// patternProperties): a map or an arbitrary document. A bare
// {"type": "object"} stays an OBJECT, so that converting the output again
// (where neither keyword is left) gives the same result.
func isFreeForm(n *node) bool {
	for _, p := range n.props("properties") {
		if !p.isFalse() {
			return false
		}
	}
	if a, ok := n.kw["additionalProperties"].(*node); ok && !a.isFalse() {
		return true
	}
	return len(n.props("patternProperties")) > 0
}

// freeObject converts an object without declared properties (a map, or an
// arbitrary document). The model cannot fill an OBJECT without properties
// reliably, so it becomes a STRING holding the object as JSON text, which
// the Restorer decodes.
//
// When additionalProperties is a schema (a map whose values are
// constrained), the description says briefly what the values are and the
// plan restores them by it.
func (c *converter) freeObject(n *node, nullable bool, depth int) (*genai.Schema, *plan) {
	c.log.add(n.origin, "type", "object without properties: written as JSON text (decoded in the arguments)")
	s := &genai.Schema{Type: genai.TypeString}
	used := map[string]bool{"type": true, "nullable": true, "properties": true, "required": true}
	c.annotate(n, s, used)
	s.Default, s.Example = textValue(s.Default), textValue(s.Example)
	if nullable {
		s.Nullable = ptr(true)
	}
	notes := []string{"a JSON object, written as JSON text"}
	p := &plan{kind: genai.TypeString, anyJSON: true, jsonObject: true}
	if a, ok := n.kw["additionalProperties"].(*node); ok && !a.isEmpty() && !a.isFalse() && len(n.props("patternProperties")) == 0 {
		used["additionalProperties"] = true
		var vs *genai.Schema
		var vp *plan
		c.quietly(func() { vs, vp = c.schema(a, depth+1) })
		c.log.add(n.origin, "additionalProperties", "value schema moved to the description (values restored in the arguments)")
		notes = append(notes, "values: "+brief(vs, vp, true))
		p.values, p.valueShape = vp.orNil(), shapeOf(vs)
	}
	for _, k := range []string{"minProperties", "maxProperties"} {
		if v, ok := n.kw[k]; ok {
			used[k] = true
			if i, ok := toCount(v); ok {
				c.log.add(n.origin, k, "moved to the description")
				notes = append(notes, k+": "+numText(float64(i)))
			}
		}
	}
	c.dropRest(n, "object", used, &notes)
	s.Description = withNotes(s.Description, notes)
	return s, p
}

// textValue writes an object or array default or example as JSON text.
func textValue(v any) any {
	switch v.(type) {
	case map[string]any, []any:
		if b, err := json.Marshal(v); err == nil {
			return string(b)
		}
		return nil
	}
	return v
}
