package schema

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"google.golang.org/genai"
)

// genaiRoot converts the working tree for [Gemini] or [Vertex] and makes
// sure the root is an OBJECT, wrapping it as {"value": <schema>} otherwise.
func (c *converter) genaiRoot(root *node) (*genai.Schema, *Restorer) {
	root = c.rootAsObject(root)
	saved := c.log.clone()
	s, p := c.schema(root, 0)
	if u, up, ok := c.unionOfObjects(root, s, p); ok {
		if len(p.anyOf) > 0 {
			// Restore by the branch the arguments fit, as for any anyOf:
			// the merged properties lose which values go together.
			up = &plan{kind: genai.TypeObject, anyOf: p.anyOf, shapes: p.shapes, others: up.orNil()}
		}
		s, p = u, up
	}
	if s.Type == genai.TypeObject && len(s.AnyOf) == 0 {
		return s, &Restorer{root: p.orNil()}
	}
	if c.capHit || c.deepest >= c.opts.MaxDepth {
		// Convert again one level deeper, as the wrapped value will be, so
		// that the cap holds and converting the output again cuts at the
		// same places.
		c.log, c.capHit, c.emitted, c.shown = saved, false, 0, 0
		s, p = c.schema(root, 1)
	}
	c.log.add("", "type", "root is not an object: wrapped as properties.value (unwrapped in the arguments)")
	w := &genai.Schema{
		Type:       genai.TypeObject,
		Properties: map[string]*genai.Schema{"value": s},
		Required:   []string{"value"},
	}
	return w, &Restorer{root: p.orNil(), unwrap: true}
}

// rootAsObject prepares the root: a typeless root that looks like an object
// (or constrains nothing) gets type object, and null is removed from an
// object root's types, since arguments are always an object.
func (c *converter) rootAsObject(n *node) *node {
	if n.placeholder != "" {
		return n
	}
	if n.boolean != nil {
		c.log.add("", "type", fmt.Sprintf("boolean schema %v at the root: empty object schema", *n.boolean))
		return newNode("").with("type", "object")
	}
	if !n.has("type") {
		if allObjects(n) {
			c.log.add("", "type", "missing at the root: object (every branch is an object)")
			return n.with("type", "object")
		}
		for _, k := range []string{"anyOf", "oneOf", "allOf", "enum", "const"} {
			if n.has(k) {
				return n
			}
		}
		if t := inferType(n); t == "" || t == "object" {
			if len(n.kw) > 0 {
				c.log.add("", "type", "missing at the root: object")
			}
			return n.with("type", "object")
		}
		return n
	}
	types := typeNames(n.kw["type"])
	if len(types) == 1 && types[0] == "object" && n.kw["type"] != "object" {
		n = n.with("type", "object")
	}
	if len(types) == 2 && containsStr(types, "object") && containsStr(types, "null") {
		c.log.add("", "type", "null removed from the root's types: arguments are an object")
		n = n.with("type", "object")
	}
	if b, _ := n.kw["nullable"].(bool); b && containsStr(types, "object") {
		c.log.add("", "nullable", "dropped at the root: arguments are an object")
		n = n.without("nullable")
	}
	return n
}

// allObjects reports whether n is a typeless union (anyOf, oneOf or allOf)
// whose every branch is an object.
func allObjects(n *node) bool {
	found := false
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		for _, b := range n.list(k) {
			if b.boolean != nil || b.placeholder != "" {
				return false
			}
			t := typeNames(b.kw["type"])
			if !(len(t) == 1 && t[0] == "object") && !(len(t) == 0 && b.has("properties")) {
				return false
			}
			found = true
		}
	}
	return found
}

// unionOfObjects turns a root anyOf whose branches are all OBJECT into one
// OBJECT, since the arguments are always an object: properties are united
// (a property whose branches differ becomes their anyOf, or one enum of
// all members), required keeps the names every branch requires, and the
// alternatives are noted in the description. This accepts more than the
// original (the server still validates) but keeps the arguments' shape.
func (c *converter) unionOfObjects(root *node, s *genai.Schema, p *plan) (*genai.Schema, *plan, bool) {
	if len(s.AnyOf) < 2 {
		return nil, nil, false
	}
	for _, b := range s.AnyOf {
		if b.Type != genai.TypeObject || len(b.AnyOf) > 0 {
			return nil, nil, false
		}
	}
	c.log.add("", "anyOf", "every branch at the root is an object: merged into one object")
	u := &genai.Schema{Type: genai.TypeObject, Title: root.str("title"), Description: root.str("description")}
	up := &plan{kind: genai.TypeObject}
	var alternatives []string
	for i, b := range s.AnyOf {
		var bp *plan
		if i < len(p.anyOf) {
			bp = p.anyOf[i]
		}
		for _, name := range sortedKeys(b.Properties) {
			if u.Properties == nil {
				u.Properties = map[string]*genai.Schema{}
			}
			var sub *plan
			if bp != nil {
				sub = bp.props[name]
			}
			if old, ok := u.Properties[name]; ok {
				u.Properties[name], sub = unionSchemas(old, b.Properties[name], up.props[name], sub)
			} else {
				u.Properties[name] = b.Properties[name]
			}
			if sub = sub.orNil(); sub != nil {
				if up.props == nil {
					up.props = map[string]*plan{}
				}
				up.props[name] = sub
			} else {
				delete(up.props, name)
			}
		}
		if i == 0 {
			u.Required = slices.Clone(b.Required)
		} else {
			u.Required = slices.DeleteFunc(u.Required, func(r string) bool { return !slices.Contains(b.Required, r) })
		}
		alternatives = append(alternatives, strings.Join(b.Required, ", "))
	}
	if len(u.Required) == 0 {
		u.Required = nil
	}
	differ := false
	for _, a := range alternatives {
		differ = differ || a != alternatives[0]
	}
	if differ {
		u.Description = withNotes(u.Description, []string{"one of these sets of properties is required: (" + strings.Join(alternatives, ") or (") + ")"})
	}
	return u, up, true
}

// unionSchemas combines two schemas for the same property from different
// root branches: equal ones stay, two STRING enums become one enum, others
// become an anyOf of both.
func unionSchemas(a, b *genai.Schema, pa, pb *plan) (*genai.Schema, *plan) {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if string(ja) == string(jb) {
		return a, pa
	}
	if len(a.Enum) > 0 && len(b.Enum) > 0 && a.Type == genai.TypeString && b.Type == genai.TypeString {
		out := *a
		out.Enum = slices.Clone(a.Enum)
		p := &plan{kind: genai.TypeString, enum: map[string]any{}}
		for _, src := range []*plan{pa, pb} {
			if src != nil {
				for k, v := range src.enum {
					if _, ok := p.enum[k]; !ok {
						p.enum[k] = v
					}
				}
			}
		}
		for _, e := range b.Enum {
			if !slices.Contains(out.Enum, e) {
				out.Enum = append(out.Enum, e)
			}
		}
		if b.Nullable != nil && *b.Nullable {
			out.Nullable = ptr(true)
		}
		return &out, p
	}
	branches := func(s *genai.Schema, p *plan) ([]*genai.Schema, []*plan) {
		if len(s.AnyOf) > 0 {
			if p != nil && len(p.anyOf) == len(s.AnyOf) {
				return s.AnyOf, p.anyOf
			}
			ps := make([]*plan, len(s.AnyOf))
			for i, b := range s.AnyOf {
				ps[i] = &plan{kind: b.Type}
			}
			return s.AnyOf, ps
		}
		if p == nil {
			p = &plan{kind: s.Type}
		}
		return []*genai.Schema{s}, []*plan{p}
	}
	sa, ppa := branches(a, pa)
	sb, ppb := branches(b, pb)
	out := &genai.Schema{AnyOf: append(slices.Clone(sa), sb...)}
	p := &plan{anyOf: append(slices.Clone(ppa), ppb...)}
	if p.trivialBranches() {
		return out, nil
	}
	for _, b := range out.AnyOf {
		p.shapes = append(p.shapes, shapeOf(b))
	}
	return out, p
}

// trivialBranches reports whether no anyOf branch of p restores anything.
func (p *plan) trivialBranches() bool {
	for _, b := range p.anyOf {
		if !b.trivial() {
			return false
		}
	}
	return true
}
