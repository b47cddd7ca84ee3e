package schema

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// jsonSchemaDropped are removed from the JSONSchema target's output: they
// identify documents or anchors, which mean nothing once references are
// inlined, and the API rejects some of them.
var jsonSchemaDropped = map[string]bool{
	"$schema": true, "$id": true, "$comment": true, "$anchor": true,
	"$dynamicAnchor": true, "$recursiveAnchor": true, "$vocabulary": true,
	"$dynamicRef": true, "$recursiveRef": true,
}

// jsonSchemaRoot converts the working tree for [JSONSchema]: a JSON Schema
// value with every local $ref inlined, an object root, and type arrays with
// null written as anyOf with {"type": "null"}. Everything else of JSON
// Schema (non-string enums, const, allOf, additionalProperties, formats)
// stays as it is, since that field accepts it.
func (c *converter) jsonSchemaRoot(root *node) (map[string]any, *Restorer) {
	root = c.rootAsObject(root)
	saved := c.log.clone()
	v := c.js(root, 0)
	if m, ok := v.(map[string]any); ok && m["type"] == "object" {
		return c.withDefs(m), &Restorer{}
	}
	if c.capHit || c.deepest >= c.opts.MaxDepth {
		c.log, c.capHit, c.emitted, c.shown = saved, false, 0, 0
		if c.usedDefs != nil {
			c.usedDefs = map[string]bool{}
		}
		v = c.js(root, 1)
	}
	c.log.add("", "type", "root is not an object: wrapped as properties.value (unwrapped in the arguments)")
	return c.withDefs(map[string]any{
		"type":       "object",
		"properties": map[string]any{"value": v},
		"required":   []any{"value"},
	}), &Restorer{unwrap: true}
}

// withDefs adds to the output root the definitions its references use.
func (c *converter) withDefs(root map[string]any) map[string]any {
	if c.keyNames == nil {
		return root
	}
	if defs := c.jsDefs(); len(defs) > 0 {
		root["$defs"] = defs
	}
	return root
}

// js converts n at output depth depth.
func (c *converter) js(n *node, depth int) any {
	c.deepest = max(c.deepest, depth)
	if n.ref != "" {
		return c.jsRef(n)
	}
	if n.placeholder != "" {
		return c.jsPlaceholder(n)
	}
	if n.boolean != nil {
		return *n.boolean
	}
	if depth >= c.opts.MaxDepth && hasSubschemas(n) {
		c.capHit = true
		c.log.add(n.origin, subschemaKeyword(n), fmt.Sprintf("nested deeper than %d levels: any value", c.opts.MaxDepth))
		out := map[string]any{"description": "nested too deep to describe: any value"}
		if d := n.str("description"); d != "" {
			out["description"] = d + " (nested too deep to describe: any value)"
		}
		return out
	}
	if c.emit() && hasSubschemas(n) {
		c.log.add(n.origin, subschemaKeyword(n), "schema too large: any value")
		return map[string]any{"description": "too large to describe: any value"}
	}
	if split := c.nullTypeAsAnyOf(n); split != nil {
		return c.js(split, depth)
	}
	n = c.jsDependencies(n)
	out := make(map[string]any, len(n.kw))
	for _, k := range sortedKeys(n.kw) {
		v := n.kw[k]
		switch {
		case strings.HasPrefix(k, "x-"):
			c.log.add(n.origin, k, "vendor extension dropped")
			continue
		case k == "required" && n.child("additionalProperties").isFalseNode() && !n.has("patternProperties"):
			if v = c.jsPruneRequired(n, v); v == nil {
				continue
			}
		case k == "id" && isString(v):
			c.log.add(n.origin, k, "dropped (draft-4 identifier)")
			continue
		case jsonSchemaDropped[k]:
			c.log.add(n.origin, k, "dropped")
			continue
		case k == "type":
			if v = c.lowerTypes(n, v); v == nil {
				continue
			}
		case (k == "exclusiveMinimum" || k == "exclusiveMaximum"):
			if b, ok := v.(bool); ok {
				bk := "minimum"
				if k == "exclusiveMaximum" {
					bk = "maximum"
				}
				if bv, has := n.kw[bk]; b && has {
					c.log.add(n.origin, k, "draft-4 boolean form written as a number")
					out[k] = clone(bv)
				} else {
					c.log.add(n.origin, k, "dropped")
				}
				continue
			}
		case k == "minimum" || k == "maximum":
			if b, _ := n.kw["exclusive"+strings.ToUpper(k[:1])+k[1:]].(bool); b {
				continue // folded into the exclusive bound
			}
		case k == "items":
			if l, ok := v.([]*node); ok && !n.has("prefixItems") {
				// Draft-4 tuple: 2020-12 (what the output is read as,
				// without $schema) spells it prefixItems, and
				// additionalItems becomes items.
				c.log.add(n.origin, k, "tuple written as prefixItems")
				out["prefixItems"] = c.jsList(l, depth)
				if a := n.child("additionalItems"); a != nil {
					out["items"] = c.js(a, depth+1)
				}
				continue
			}
		case k == "additionalItems":
			if _, tuple := n.kw["items"].([]*node); tuple && !n.has("prefixItems") {
				continue // written as items above
			}
		}
		if fixed, ok := c.jsCheck(n, k, v, out); !ok {
			continue
		} else {
			v = fixed
		}
		switch v := v.(type) {
		case *node:
			out[k] = c.js(v, depth+1)
		case []*node:
			out[k] = c.jsList(v, depth)
		case map[string]any:
			if mapSchemaKeys[k] {
				m := make(map[string]any, len(v))
				for _, name := range sortedKeys(v) {
					if e, ok := v[name].(*node); ok {
						m[name] = c.js(e, depth+1)
					} else {
						m[name] = clone(v[name])
					}
				}
				out[k] = m
			} else {
				out[k] = clone(v)
			}
		default:
			out[k] = clone(v)
		}
	}
	return out
}

// jsPlaceholder is the any-value schema standing for n: n's own
// annotations (the description beside an unresolvable $ref, its title,
// default and examples) are kept, and the reason is added to the
// description.
func (c *converter) jsPlaceholder(n *node) map[string]any {
	out := map[string]any{}
	for _, k := range sortedKeys(n.kw) {
		v := n.kw[k]
		switch {
		case !annotationKeys[k] || k == "description":
		case jsonSchemaDropped[k]:
			c.log.add(n.origin, k, "dropped")
		default:
			if fixed, ok := c.jsCheck(n, k, v, out); ok {
				out[k] = clone(fixed)
			}
		}
	}
	d, _ := n.kw["description"].(string)
	out["description"] = withNotes(d, []string{n.placeholder + ": any value"})
	return out
}

// jsDependencies rewrites draft-4/7 dependencies as the 2020-12 keywords
// the output is read as: a list of names goes to dependentRequired, a
// schema to dependentSchemas (merged with those already there: lists
// joined, schemas combined with allOf). Other values are dropped.
func (c *converter) jsDependencies(n *node) *node {
	deps, ok := n.kw["dependencies"].(map[string]any)
	if !ok {
		return n
	}
	out := n.without("dependencies")
	req, _ := out.kw["dependentRequired"].(map[string]any)
	sch, _ := out.kw["dependentSchemas"].(map[string]any)
	req, sch = cloneMap(req), cloneMap(sch)
	for _, name := range sortedKeys(deps) {
		switch v := deps[name].(type) {
		case *node:
			if prev, ok := sch[name].(*node); ok {
				both := newNode(prev.origin)
				both.kw["allOf"] = []*node{prev, v}
				sch[name] = both
			} else {
				sch[name] = v
			}
		case []any:
			names := stringSet(v)
			if prev, ok := req[name]; ok {
				names = append(stringSet(prev), names...)
				names = stringSet(anySlice(names))
			}
			req[name] = anySlice(names)
		default:
			c.log.add(join(n.origin, "dependencies"), name, "neither a list of names nor a schema: dropped")
		}
	}
	if len(req) > 0 {
		out.kw["dependentRequired"] = req
		c.log.add(n.origin, "dependencies", "lists of names written as dependentRequired")
	}
	if len(sch) > 0 {
		out.kw["dependentSchemas"] = sch
		c.log.add(n.origin, "dependencies", "schemas written as dependentSchemas")
	}
	if len(req) == 0 && len(sch) == 0 {
		c.log.add(n.origin, "dependencies", "empty: dropped")
	}
	return out
}

// jsPruneRequired removes from the required list v of n the names that
// are not properties of n. It is only called when additionalProperties is
// false: such a name can never be present, so the original schema accepts
// no arguments at all. Elsewhere a required name without a property stays,
// since JSON Schema then requires an additional property of that name.
// It returns nil when no name is left.
func (c *converter) jsPruneRequired(n *node, v any) any {
	l, ok := v.([]any)
	if !ok {
		return v
	}
	props := n.props("properties")
	var kept []any
	for _, e := range l {
		if s, ok := e.(string); ok {
			if _, declared := props[s]; !declared {
				c.log.add(n.origin, "required", strconv.Quote(s)+" is not a property and additionalProperties is false: removed")
				continue
			}
		}
		kept = append(kept, e)
	}
	if len(kept) == 0 {
		return nil
	}
	return kept
}

// cloneMap returns a shallow copy of m (never nil).
func cloneMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// anySlice converts names to a JSON array value.
func anySlice(names []string) []any {
	out := make([]any, len(names))
	for i, s := range names {
		out[i] = s
	}
	return out
}

// hasSubschemas reports whether the output for n holds any subschema
// (a type array with null becomes anyOf branches).
func hasSubschemas(n *node) bool {
	if types := typeNames(n.kw["type"]); len(types) > 1 && containsStr(types, "null") {
		return true
	}
	for k, v := range n.kw {
		switch v := v.(type) {
		case *node, []*node:
			return true
		case map[string]any:
			if mapSchemaKeys[k] && len(v) > 0 {
				return true
			}
		}
	}
	return false
}

// lowerTypes writes type names in lower case (OpenAPI's "STRING" is not
// JSON Schema) and drops names JSON Schema does not know. It returns nil
// when no name is left.
func (c *converter) lowerTypes(n *node, v any) any {
	fix := func(e any) (string, bool) {
		s, ok := e.(string)
		if !ok {
			c.log.add(n.origin, "type", "not a string: dropped")
			return "", false
		}
		l := strings.ToLower(s)
		if !containsStr(jsonTypes, l) {
			c.log.add(n.origin, "type", "unknown type "+s+" dropped")
			return "", false
		}
		if l != s {
			c.log.add(n.origin, "type", "written in lower case")
		}
		return l, true
	}
	switch t := v.(type) {
	case []any:
		var out []any
		for _, e := range t {
			if l, ok := fix(e); ok && !slices.Contains(out, any(l)) {
				out = append(out, l)
			}
		}
		switch len(out) {
		case 0:
			return nil
		case 1:
			c.log.add(n.origin, "type", "one-name type array written as a string")
			return out[0]
		}
		return out
	default:
		if l, ok := fix(t); ok {
			return l
		}
		return nil
	}
}

// nullTypeAsAnyOf rewrites a type array holding null and other types as
// anyOf [<node with the other types>, {"type": "null"}], which every
// backend accepts; annotations stay on the parent. nil when n has no such
// type array.
func (c *converter) nullTypeAsAnyOf(n *node) *node {
	types := typeNames(n.kw["type"])
	if _, isList := n.kw["type"].([]any); !isList || !containsStr(types, "null") || len(types) < 2 {
		return nil
	}
	c.log.add(n.origin, "type", "type array with null written as anyOf with {\"type\": \"null\"}")
	var rest []any
	for _, t := range types {
		if t != "null" {
			rest = append(rest, t)
		}
	}
	parent := newNode(n.origin)
	branch := newNode(n.origin)
	for k, v := range n.kw {
		if annotationKeys[k] && !jsonSchemaDropped[k] {
			parent.kw[k] = v
		} else {
			branch.kw[k] = v
		}
	}
	if len(rest) == 1 {
		branch.kw["type"] = rest[0]
	} else {
		branch.kw["type"] = rest
	}
	null := newNode(n.origin)
	null.kw["type"] = "null"
	parent.kw["anyOf"] = []*node{branch, null}
	return parent
}

func isString(v any) bool {
	_, ok := v.(string)
	return ok
}

// jsList converts a list of subschemas.
func (c *converter) jsList(l []*node, depth int) []any {
	out := make([]any, len(l))
	for i, e := range l {
		out[i] = c.js(e, depth+1)
	}
	return out
}

// countKeys must hold non-negative integers, numberKeys numbers.
var (
	countKeys = map[string]bool{
		"minLength": true, "maxLength": true, "minItems": true, "maxItems": true,
		"minProperties": true, "maxProperties": true, "minContains": true, "maxContains": true,
	}
	numberKeys = map[string]bool{
		"minimum": true, "maximum": true, "exclusiveMinimum": true, "exclusiveMaximum": true, "multipleOf": true,
	}
)

// jsCheck returns the value of keyword k fixed to what the JSON Schema
// meta-schema allows, or false when it must be dropped (each reported).
// A pattern that is not an RE2 expression goes into the description.
func (c *converter) jsCheck(n *node, k string, v any, out map[string]any) (any, bool) {
	drop := func(why string) (any, bool) {
		c.log.add(n.origin, k, why+": dropped")
		return nil, false
	}
	switch {
	case countKeys[k]:
		if _, ok := toCount(v); !ok {
			return drop("not a non-negative integer")
		}
	case numberKeys[k]:
		if f, ok := toFloat(v); !ok || k == "multipleOf" && f <= 0 {
			return drop("not a valid number")
		}
	case k == "title" || k == "description" || k == "format" || k == "pattern":
		str, ok := v.(string)
		if !ok {
			return drop("not a string")
		}
		if k == "pattern" {
			if !validRE2(str) {
				c.log.add(n.origin, k, "not an RE2 expression: moved to the description")
				d, _ := n.kw["description"].(string)
				out["description"] = withNotes(d, []string{"pattern: " + str})
				return nil, false
			}
		}
	case k == "required":
		l, ok := v.([]any)
		if !ok {
			return drop("not an array")
		}
		var names []any
		for _, e := range l {
			if s, ok := e.(string); ok && !slices.Contains(names, any(s)) {
				names = append(names, s)
			}
		}
		if len(names) != len(l) {
			c.log.add(n.origin, k, "duplicates and non-strings removed")
		}
		return names, true
	case k == "enum" || k == "examples":
		if _, ok := v.([]any); !ok {
			return drop("not an array")
		}
	case k == "contentEncoding" || k == "contentMediaType":
		if _, ok := v.(string); !ok {
			return drop("not a string")
		}
	case k == "dependentRequired":
		m, ok := v.(map[string]any)
		if !ok {
			return drop("not an object")
		}
		fixed := make(map[string]any, len(m))
		for _, name := range sortedKeys(m) {
			var names []any
			for _, s := range stringSet(m[name]) {
				names = append(names, s)
			}
			fixed[name] = append([]any{}, names...)
		}
		if !equalJSON(fixed, m) {
			c.log.add(n.origin, k, "lists fixed to unique strings")
		}
		return fixed, true
	case k == "uniqueItems" || k == "deprecated" || k == "readOnly" || k == "writeOnly":
		if _, ok := v.(bool); !ok {
			return drop("not a boolean")
		}
	case k == "patternProperties":
		m, _ := v.(map[string]any)
		kept := make(map[string]any, len(m))
		for _, re := range sortedKeys(m) {
			if !validRE2(re) {
				c.log.add(n.origin, k, "pattern "+strconv.Quote(re)+" is not an RE2 expression: dropped")
				continue
			}
			kept[re] = m[re]
		}
		return kept, true
	}
	return v, true
}
