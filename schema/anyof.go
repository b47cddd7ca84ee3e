package schema

import (
	"reflect"
	"sort"
	"strconv"
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
	if len(kept) == 0 {
		return c.nullSchema(n.without("anyOf", "default", "example", "examples"))
	}
	if len(kept) == 1 {
		c.log.add(n.origin, "anyOf", "single branch flattened")
		return c.flattenBranch(n, kept[0], nullable, depth)
	}
	s := &genai.Schema{}
	p := &plan{}
	var from []*node // the branch each entry of s.AnyOf was converted from
	for _, b := range kept {
		bs, bp := c.schema(b, depth+1)
		if nullable {
			setNullable(bs)
		}
		if sameBranch(s.AnyOf, bs) {
			c.log.add(n.origin, "anyOf", "identical branches merged into one")
			continue
		}
		s.AnyOf = append(s.AnyOf, bs)
		p.anyOf = append(p.anyOf, bp)
		from = append(from, b)
	}
	if len(from) == 1 {
		return c.flattenBranch(n, from[0], nullable, depth)
	}
	for _, k := range sortedKeys(n.kw) {
		if annotationKeys[k] && k != "description" && k != "title" {
			c.log.add(n.origin, k, "dropped beside anyOf")
		}
	}
	if b, _ := n.kw["nullable"].(bool); b {
		c.log.add(n.origin, "nullable", "moved into the anyOf branches")
	}
	if es, ep, ok := mergeEnumBranches(s.AnyOf, p.anyOf); ok {
		c.log.add(n.origin, "anyOf", "branches that are all string enums merged into one enum")
		es.Description = withNotes(desc, branchNotes(s.AnyOf))
		es.Title = title
		return es, ep
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
	restores := false
	for _, bp := range p.anyOf {
		restores = restores || !bp.trivial()
	}
	if !restores {
		p.anyOf = nil
	}
	for _, bs := range s.AnyOf[:len(p.anyOf)] {
		p.shapes = append(p.shapes, shapeOf(bs))
	}
	return s, p
}

// flattenBranch converts b, the only branch left of the anyOf node n, in
// n's place: n's description comes first, its title and other annotations
// (default, example, ...) apply to b.
func (c *converter) flattenBranch(n, b *node, nullable bool, depth int) (*genai.Schema, *plan) {
	desc, title := n.str("description"), n.str("title")
	b = b.copy()
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

// sameBranch reports whether the converted branch s equals one of the
// branches already kept. Their plans may differ (5 and "5" both show as
// "5"); the first one kept is the one Restore would have chosen anyway.
func sameBranch(kept []*genai.Schema, s *genai.Schema) bool {
	for _, k := range kept {
		if !mayBeEqual(k, s) {
			continue
		}
		if reflect.DeepEqual(k, s) {
			return true
		}
	}
	return false
}

// mayBeEqual is a cheap test that is false only for schemas that
// reflect.DeepEqual finds different: a differing scalar field, list
// length or property name.
func mayBeEqual(a, b *genai.Schema) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.Type != b.Type || a.Title != b.Title || a.Description != b.Description || a.Format != b.Format ||
		a.Pattern != b.Pattern || len(a.Properties) != len(b.Properties) || len(a.Required) != len(b.Required) ||
		len(a.Enum) != len(b.Enum) || len(a.AnyOf) != len(b.AnyOf) {
		return false
	}
	for name := range a.Properties {
		if _, ok := b.Properties[name]; !ok {
			return false
		}
	}
	return true
}

// mergeEnumBranches merges anyOf branches that are all STRING enums with
// nothing else but a description, a title and the same nullability into one
// STRING enum, the members in branch order; ok is false when a branch is
// anything else. A text listed by several branches restores as Restore
// would have restored it before the merge (see chooseBranch): to the value
// of the first branch that maps it, else it stays the string.
func mergeEnumBranches(branches []*genai.Schema, plans []*plan) (*genai.Schema, *plan, bool) {
	out := &genai.Schema{Type: genai.TypeString}
	orig := map[string]any{} // member text -> the value it restores to; nil: the text itself
	for i, b := range branches {
		bare := *b
		bare.Enum, bare.Description, bare.Title = nil, "", ""
		if b.Type != genai.TypeString || len(b.Enum) == 0 ||
			!reflect.DeepEqual(&bare, &genai.Schema{Type: genai.TypeString, Nullable: branches[0].Nullable}) {
			return nil, nil, false
		}
		p := plans[i]
		if p != nil && (p.anyJSON || len(p.anyOf) > 0 || len(p.props) > 0 || p.items != nil) {
			return nil, nil, false
		}
		for _, text := range b.Enum {
			o, mapped := p.enumValue(text)
			prev, seen := orig[text]
			if !seen {
				out.Enum = append(out.Enum, text)
			}
			if !seen || mapped && prev == nil {
				orig[text] = o
			}
		}
	}
	out.Nullable = branches[0].Nullable
	members := make([]enumMember, len(out.Enum))
	for i, text := range out.Enum {
		members[i] = enumMember{text: text, orig: text}
		if o := orig[text]; o != nil {
			members[i].orig = o
		}
	}
	return out, enumNodePlan(members), true
}

// enumValue returns the value the enum member text restores to, and
// whether p maps it at all (otherwise it stays the text).
func (p *plan) enumValue(text string) (any, bool) {
	if p != nil {
		if o, ok := p.enum[text]; ok {
			return o, true
		}
	}
	return nil, false
}

// branchNotes describes the members of merged enum branches that had a
// description or a title: `"a": Alpha.`.
func branchNotes(branches []*genai.Schema) []string {
	var notes []string
	for _, b := range branches {
		d := b.Description
		if d == "" {
			d = b.Title
		}
		if d == "" {
			continue
		}
		quoted := make([]string, len(b.Enum))
		for i, e := range b.Enum {
			quoted[i] = strconv.Quote(e)
		}
		notes = append(notes, strings.Join(quoted, ", ")+": "+d)
	}
	return notes
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
