package schema

import (
	"slices"
	"strings"
)

// droppedNotes says which dropped keywords still matter to the model, and
// how to say so in the description; nil means "just drop".
var droppedNotes = map[string]func(v any) string{
	"uniqueItems": func(v any) string {
		if b, _ := v.(bool); b {
			return "items must be unique"
		}
		return ""
	},
	"contains":    func(any) string { return "must contain a matching item" },
	"minContains": func(v any) string { return "at least " + numText(v) + " matching items" },
	"maxContains": func(v any) string { return "at most " + numText(v) + " matching items" },
	"deprecated": func(v any) string {
		if b, _ := v.(bool); b {
			return "deprecated"
		}
		return ""
	},
	"dependentRequired": func(v any) string {
		m, _ := v.(map[string]any)
		var parts []string
		for _, k := range sortedKeys(m) {
			if req := stringSet(m[k]); len(req) > 0 {
				parts = append(parts, "with "+k+" also "+strings.Join(req, ", "))
			}
		}
		return strings.Join(parts, "; ")
	},
	"additionalProperties": func(v any) string {
		switch v := v.(type) {
		case *node:
			if v.isFalse() {
				return "no other properties allowed"
			}
			if v.isEmpty() {
				return ""
			}
			if t := typeNames(v.kw["type"]); len(t) > 0 {
				return "other properties: " + strings.Join(t, " or ")
			}
			return "other properties allowed"
		}
		return ""
	},
	"patternProperties": func(v any) string {
		m, _ := v.(map[string]any)
		if len(m) == 0 {
			return ""
		}
		return "properties named like " + strings.Join(sortedKeys(m), ", ")
	},
	"propertyNames": func(v any) string {
		if n, ok := v.(*node); ok {
			if p := n.str("pattern"); p != "" {
				return "property names match " + p
			}
		}
		return ""
	},
}

// dropRest drops every keyword of n that used does not hold, reporting
// each, and appends to notes what the model should still know. t is the
// type the node was converted as ("any", "null" or "enum" for those
// special forms).
func (c *converter) dropRest(n *node, t string, used map[string]bool, notes *[]string) {
	var buf [8]string // most nodes have few keywords left: no allocation
	keys := buf[:0]
	for k := range n.kw {
		if !used[k] {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		v := n.kw[k]
		if owners := typeOfKey(k); len(owners) > 0 && !containsStr(owners, t) {
			c.log.add(n.origin, k, "dropped: not allowed for "+typeLabel(t))
			continue
		}
		if f := droppedNotes[k]; f != nil && notes != nil {
			if note := f(v); note != "" {
				c.log.add(n.origin, k, "not supported: moved to the description")
				*notes = append(*notes, note)
				continue
			}
		}
		switch {
		case strings.HasPrefix(k, "$") || k == "readOnly" || k == "writeOnly" || k == "deprecated":
			c.log.add(n.origin, k, "dropped")
		case knownKeywords[k] || droppedNotes[k] != nil || typeOfKey(k) != nil:
			c.log.add(n.origin, k, "not supported: dropped")
		default:
			c.log.add(n.origin, k, "unknown keyword dropped")
		}
	}
}

// typeLabel names a conversion type in change details.
func typeLabel(t string) string {
	switch t {
	case "enum":
		return "an enum (written as STRING)"
	case "any":
		return "an any-value placeholder"
	}
	if g, ok := genaiTypes[t]; ok {
		return string(g) + " type"
	}
	return t
}

// knownKeywords are JSON Schema and OpenAPI keywords (reported as
// unsupported rather than unknown when dropped).
var knownKeywords = map[string]bool{
	"not": true, "if": true, "then": true, "else": true, "dependentSchemas": true,
	"dependencies": true, "unevaluatedItems": true, "unevaluatedProperties": true,
	"contentSchema": true, "discriminator": true, "xml": true, "externalDocs": true,
	"additionalItems": true, "const": true, "enum": true, "examples": true,
}
