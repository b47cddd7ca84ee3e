package schema

import (
	"sort"
	"strings"

	"google.golang.org/genai"
)

// anyOf converts a node with anyOf. Structural keywords beside anyOf are
// distributed into every branch (A and (B or C) = (A and B) or (A and C)),
// null branches become nullable, a single remaining branch is flattened,
// and default beside anyOf is dropped. For Vertex, anyOf is left alone on
// its node: description and title move into the branches.
func (c *converter) anyOf(n *node, depth int) (*genai.Schema, *plan) {
	raw := n.list("anyOf")
	_, nullable := c.typeList(n)
	var structural []string
	for k := range n.kw {
		if k != "anyOf" && k != "nullable" && !annotationKeys[k] {
			structural = append(structural, k)
		}
	}
	branches := raw
	if len(structural) > 0 {
		sort.Strings(structural)
		c.log.add(n.origin, "anyOf", "keywords beside anyOf ("+strings.Join(structural, ", ")+") moved into each branch")
		shared := newNode(n.origin)
		for _, k := range structural {
			shared.kw[k] = n.kw[k]
		}
		if ts := typeNames(shared.kw["type"]); containsStr(ts, "null") {
			var rest []any
			for _, t := range ts {
				if t != "null" {
					rest = append(rest, t)
				}
			}
			if len(rest) == 0 {
				delete(shared.kw, "type")
			} else {
				shared.kw["type"] = rest
			}
		}
		branches = make([]*node, len(raw))
		for i, b := range raw {
			branches[i] = c.merge(c.mergeAllOf(b), shared)
		}
	}
	var kept []*node
	for _, b := range branches {
		switch {
		case isNullSchema(b):
			nullable = true
			c.log.add(b.origin, "type", "null branch removed: nullable instead")
		case b.isFalse():
			c.log.add(b.origin, "anyOf", "branch false removed")
		default:
			kept = append(kept, b)
		}
	}
	desc, title := n.str("description"), n.str("title")
	if len(kept) > 1 {
		for _, k := range sortedKeys(n.kw) {
			if annotationKeys[k] && k != "description" && k != "title" {
				c.log.add(n.origin, k, "dropped beside anyOf")
			}
		}
	}
	switch len(kept) {
	case 0:
		return c.nullSchema(n.without("anyOf", "default", "example", "examples"))
	case 1:
		c.log.add(n.origin, "anyOf", "single branch flattened")
		b := kept[0].copy()
		if b.boolean != nil || b.placeholder != "" {
			if b.kw == nil {
				b.kw = map[string]any{}
			}
		}
		if bd := b.str("description"); desc != "" && bd != "" && bd != desc {
			b.kw["description"] = desc + " " + bd
		} else if desc != "" {
			b.kw["description"] = desc
		}
		if title != "" {
			b.kw["title"] = title
		}
		if nullable {
			b.kw["nullable"] = true
		}
		for _, k := range sortedKeys(n.kw) {
			if v := n.kw[k]; annotationKeys[k] && k != "description" && k != "title" && !b.has(k) {
				b.kw[k] = v // default, example, ... now stand on a single node
			}
		}
		return c.schema(b, depth)
	}
	if b, _ := n.kw["nullable"].(bool); b {
		c.log.add(n.origin, "nullable", "moved into the anyOf branches")
	}
	s := &genai.Schema{}
	p := &plan{}
	restores := false
	for _, b := range kept {
		bs, bp := c.schema(b, depth+1)
		if nullable {
			setNullable(bs)
		}
		s.AnyOf = append(s.AnyOf, bs)
		p.anyOf = append(p.anyOf, bp)
		restores = restores || !bp.trivial()
	}
	if c.opts.Target == Vertex {
		if desc != "" || title != "" {
			c.log.add(n.origin, "anyOf", "Vertex wants anyOf alone: description and title moved into the branches")
		}
		for _, bs := range s.AnyOf {
			pushAnnotations(bs, desc, title)
		}
	} else {
		s.Description, s.Title = desc, title
	}
	if !restores {
		p.anyOf = nil
	}
	return s, p
}

// setNullable marks s (or, for an anyOf node, each of its branches) as
// nullable.
func setNullable(s *genai.Schema) {
	if len(s.AnyOf) > 0 {
		for _, b := range s.AnyOf {
			setNullable(b)
		}
		return
	}
	if s.Type != genai.TypeNULL {
		s.Nullable = ptr(true)
	}
}

// pushAnnotations gives s (or each branch of an anyOf s) the description and
// title of its anyOf parent: a branch's own description follows the
// parent's.
func pushAnnotations(s *genai.Schema, desc, title string) {
	if len(s.AnyOf) > 0 {
		for _, b := range s.AnyOf {
			pushAnnotations(b, desc, title)
		}
		return
	}
	switch {
	case desc == "" || s.Description == desc:
	case s.Description == "":
		s.Description = desc
	default:
		s.Description = desc + " " + s.Description
	}
	if s.Title == "" {
		s.Title = title
	}
}
