package schema

// The check of a `parametersJsonSchema` (the JSONSchema target): what
// the API refuses in a JSON Schema document.

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// CheckJSONSchema reports every way v breaks the API's rules for
// `parametersJsonSchema`, sorted by path and then message; nil means none
// found. v is checked in its JSON form (any Go value is marshaled first, so
// a value that cannot be marshaled is a violation): the root must be an
// object schema (`"type": "object"`, or no type and `properties`), `$schema`
// may not appear, a node with `$ref` may only carry `description` and
// `default` beside it, every `$ref` must be a local JSON pointer ("#",
// "#/$defs/x") that resolves to a schema, no loop of references may
// consist of required fields only (one that no finite value ends: the
// loop must pass an optional or nullable property, or the items of an
// array that may be empty), `type` arrays may not contain
// "null" (some backends reject them), subschemas must be objects or booleans,
// and nesting may not exceed the checker's depth. Values inside `enum`,
// `const`, `default` and `examples` are data and are not inspected.
// v is not modified. CheckJSONSchema never panics and is safe for concurrent
// use.
func CheckJSONSchema(v any) []Violation {
	doc, err := chkJSONValue(v)
	if err != nil {
		return []Violation{{Message: "not encodable as JSON: " + err.Error()}}
	}
	c := &jsonChecker{root: doc}
	root, ok := doc.(map[string]any)
	if !ok {
		c.add("", "schema must be a JSON object describing an object, not %s", chkKind(doc))
		return c.out
	}
	if t, has := root["type"]; has {
		if t != "object" {
			c.add("", `type: root schema must be of type "object"`)
		}
	} else if _, has := root["properties"]; !has {
		c.add("", `type: root schema must be of type "object" (or have properties)`)
	}
	c.schema(doc, "", 0)
	loops := requiredRefLoops(doc)
	for _, t := range sortedKeys(loops) {
		c.add(loops[t], "%s at %s", refLoopMessage, loops[t])
	}
	return chkSort(c.out)
}

type jsonChecker struct {
	root any
	out  []Violation
}

func (c *jsonChecker) add(path, format string, args ...any) {
	c.out = append(c.out, Violation{Path: path, Message: fmt.Sprintf(format, args...)})
}

// Subschema keywords by shape.
var (
	chkSchemaMaps = []string{"$defs", "definitions", "dependentSchemas", "patternProperties", "properties"}
	chkSchemaOne  = []string{"additionalItems", "additionalProperties", "contains", "contentSchema", "else", "if",
		"items", "not", "propertyNames", "then", "unevaluatedItems", "unevaluatedProperties"}
	chkSchemaList = []string{"allOf", "anyOf", "oneOf", "prefixItems"}
	chkJSONTypes  = map[string]bool{"array": true, "boolean": true, "integer": true, "null": true,
		"number": true, "object": true, "string": true}
)

func (c *jsonChecker) schema(v any, path string, depth int) {
	s, ok := v.(map[string]any)
	if !ok {
		if _, isBool := v.(bool); !isBool {
			c.add(path, "not a schema: want an object or a boolean, not %s", chkKind(v))
		}
		return
	}
	if depth > checkMaxDepth {
		c.add(path, "exceeds the maximum allowed nesting depth (%d levels)", checkMaxDepth)
		return
	}
	if _, has := s["$schema"]; has {
		c.add(path, "$schema: not allowed")
	}
	if ref, has := s["$ref"]; has {
		var extra []string
		for _, k := range sortedKeys(s) {
			if k != "$ref" && k != "description" && k != "default" {
				extra = append(extra, k)
			}
		}
		if len(extra) > 0 {
			c.add(path, "If a schema node has $ref set, then only description and default can be set alongside it (also set: %s)",
				strings.Join(extra, ", "))
		}
		if r, isString := ref.(string); isString {
			c.ref(r, path)
		} else {
			c.add(path, "$ref: must be a string")
		}
	}
	if t, has := s["type"]; has {
		c.typ(t, path)
	}
	for _, k := range sortedKeys(s) {
		sub := s[k]
		list, isList := sub.([]any)
		switch {
		case slices.Contains(chkSchemaMaps, k):
			m, isMap := sub.(map[string]any)
			if !isMap {
				c.add(path, "%s: must be an object of schemas", k)
			}
			for _, name := range sortedKeys(m) {
				c.schema(m[name], chkJoin(path, k+"."+name), depth+1)
			}
		case slices.Contains(chkSchemaList, k) || k == "items" && isList: // items: draft-04 tuple
			if len(list) == 0 && k != "items" {
				c.add(path, "%s: must be a non-empty array of schemas", k)
			}
			for i, e := range list {
				c.schema(e, chkJoin(path, k+"."+strconv.Itoa(i)), depth+1)
			}
		case slices.Contains(chkSchemaOne, k):
			c.schema(sub, chkJoin(path, k), depth+1)
		}
	}
}

func (c *jsonChecker) typ(t any, path string) {
	switch t := t.(type) {
	case string:
		if !chkJSONTypes[t] {
			c.add(path, "type: unknown type %q", t)
		}
	case []any:
		if len(t) == 0 {
			c.add(path, "type: must not be an empty array")
		}
		for i, e := range t {
			name, _ := e.(string)
			switch {
			case !chkJSONTypes[name]:
				c.add(path, "type[%d]: unknown type %s", i, chkKind(e))
			case name == "null":
				c.add(path, `type: type arrays containing "null" are rejected by some backends (use anyOf or a single type)`)
			}
		}
	default:
		c.add(path, "type: must be a string or an array of strings, not %s", chkKind(t))
	}
}

// ref reports a $ref that is not a local JSON pointer resolving to a schema.
func (c *jsonChecker) ref(ref, path string) {
	if !strings.HasPrefix(ref, "#") {
		c.add(path, "$ref: only local references (\"#...\") are supported, not %q", ref)
		return
	}
	frag := ref[1:]
	if u, err := url.PathUnescape(frag); err == nil {
		frag = u
	}
	undefined := func() { c.add(path, "$ref: reference to undefined schema %q", ref) }
	if frag != "" && !strings.HasPrefix(frag, "/") {
		undefined() // a plain-name anchor; anchors are not resolved
		return
	}
	target := c.root
	if frag != "" {
		for _, tok := range strings.Split(frag[1:], "/") {
			tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
			var ok bool
			switch t := target.(type) {
			case map[string]any:
				target, ok = t[tok]
			case []any:
				i, err := strconv.Atoi(tok)
				ok = err == nil && i >= 0 && i < len(t) && strconv.Itoa(i) == tok
				if ok {
					target = t[i]
				}
			}
			if !ok {
				undefined()
				return
			}
		}
	}
	switch target.(type) {
	case map[string]any, bool:
	default:
		c.add(path, "$ref: %q does not point to a schema (found %s)", ref, chkKind(target))
	}
}

// chkKind names the JSON kind of a decoded value.
func chkKind(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number, float64:
		return "a number"
	case string:
		return strconv.Quote(v)
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}
