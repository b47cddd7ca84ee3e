package schema

import "testing"

func TestAllOf(t *testing.T) {
	cvRun(t, []cvCase{{
		name: "allOf/merge properties, required and constraints",
		in: `{"type":"object","properties":{"m":{"allOf":[{"type":"object","properties":{"a":{"type":"string","minLength":1}},"required":["a"]},
			{"properties":{"a":{"maxLength":5},"b":{"type":"integer"}},"required":["b"]}]}}}`,
		want:    `{"type":"OBJECT","properties":{"m":{"type":"OBJECT","properties":{"a":{"type":"STRING","minLength":1,"maxLength":5},"b":{"type":"INTEGER"}},"required":["a","b"]}}}`,
		changes: []string{"properties.m: allOf"},
	}, {
		name:    "allOf/tighter bounds win and integer narrows number",
		in:      `{"type":"object","properties":{"n":{"allOf":[{"type":"number","minimum":1,"maximum":10},{"type":"integer","minimum":3,"maximum":20}]}}}`,
		want:    `{"type":"OBJECT","properties":{"n":{"type":"INTEGER","minimum":3,"maximum":10}}}`,
		changes: []string{"properties.n: allOf"},
	}, {
		name:    "allOf/conflicting types keep the first and report it",
		in:      `{"type":"object","properties":{"c":{"allOf":[{"type":"string"},{"type":"integer"}]}}}`,
		want:    `{"type":"OBJECT","properties":{"c":{"type":"STRING"}}}`,
		changes: []string{"properties.c: allOf", "properties.c: type"},
	}, {
		name:    "allOf/nullable only when every branch allows null",
		in:      `{"type":"object","properties":{"a":{"allOf":[{"type":["string","null"]},{"type":"string","minLength":2}]}}}`,
		want:    `{"type":"OBJECT","properties":{"a":{"type":"STRING","minLength":2}}}`,
		changes: []string{"properties.a: allOf"},
	}, {
		name:    "allOf/enums intersect",
		in:      `{"type":"object","properties":{"e":{"allOf":[{"enum":["a","b","c"]},{"enum":["b","c","d"]}]}}}`,
		want:    `{"type":"OBJECT","properties":{"e":{"type":"STRING","enum":["b","c"]}}}`,
		changes: []string{"properties.e: allOf"},
	}, {
		name:    "allOf/nested allOf and $ref branches",
		in:      `{"type":"object","properties":{"x":{"allOf":[{"$ref":"#/$defs/A"},{"allOf":[{"properties":{"b":{"type":"boolean"}}}]}]}},"$defs":{"A":{"type":"object","properties":{"a":{"type":"string"}}}}}`,
		want:    `{"type":"OBJECT","properties":{"x":{"type":"OBJECT","properties":{"a":{"type":"STRING"},"b":{"type":"BOOLEAN"}}}}}`,
		changes: []string{"properties.x: allOf", "properties.x.allOf.1: allOf"},
	}, {
		name:    "allOf/the node's own annotations win",
		in:      `{"type":"object","properties":{"x":{"description":"outer","allOf":[{"type":"string","description":"inner"}]}}}`,
		want:    `{"type":"OBJECT","properties":{"x":{"type":"STRING","description":"outer"}}}`,
		changes: []string{"properties.x: allOf"},
	}, {
		name:   "allOf/JSONSchema target keeps allOf",
		target: JSONSchema,
		in:     `{"type":"object","properties":{"x":{"allOf":[{"type":"string"},{"minLength":1}]}}}`,
		want:   `{"type":"object","properties":{"x":{"allOf":[{"type":"string"},{"minLength":1}]}}}`,
	}})
}

func TestAllOfEdges(t *testing.T) {
	cvRun(t, []cvCase{{
		name: "allOf/items and other single subschemas are merged too",
		in:   `{"type":"object","properties":{"l":{"allOf":[{"type":"array","items":{"type":"string","minLength":1}},{"items":{"maxLength":4},"maxItems":2}]}}}`,
		want: `{"type":"OBJECT","properties":{"l":{"type":"ARRAY","items":{"type":"STRING","minLength":1,"maxLength":4},"maxItems":2}}}`,
	}, {
		name: "allOf/true and unresolvable branches add nothing",
		in:   `{"type":"object","properties":{"x":{"allOf":[true,{"$ref":"#/nope"},{"type":"string"}]}}}`,
		want: `{"type":"OBJECT","properties":{"x":{"type":"STRING"}}}`,
	}, {
		name:    "allOf/a false branch makes the node unsatisfiable",
		in:      `{"type":"object","properties":{"x":{"allOf":[{"type":"string"},false]}}}`,
		want:    `{"type":"OBJECT","properties":{"x":{"type":"STRING","description":"no value is valid here; any value; objects and arrays as JSON text"}}}`,
		changes: []string{"properties.x: allOf", "properties.x.allOf.1: type"},
	}, {
		name:    "allOf/conflicting plain values keep the first and report it",
		in:      `{"type":"object","properties":{"x":{"allOf":[{"type":"string","pattern":"^a"},{"pattern":"^b"}]}}}`,
		want:    `{"type":"OBJECT","properties":{"x":{"type":"STRING","pattern":"^a"}}}`,
		changes: []string{"properties.x.allOf.1: pattern"},
	}, {
		name:    "allOf/enums without common members keep the first and report it",
		in:      `{"type":"object","properties":{"e":{"allOf":[{"enum":["a"]},{"enum":["b"]}]}}}`,
		want:    `{"type":"OBJECT","properties":{"e":{"type":"STRING","enum":["a"]}}}`,
		changes: []string{"properties.e: enum"},
	}, {
		name:    "oneOf/beside anyOf: anyOf is kept",
		in:      `{"type":"object","properties":{"x":{"anyOf":[{"type":"string"},{"type":"integer"}],"oneOf":[{"type":"boolean"}]}}}`,
		want:    `{"type":"OBJECT","properties":{"x":{"anyOf":[{"type":"STRING"},{"type":"INTEGER"}]}}}`,
		changes: []string{"properties.x: oneOf"},
	}})
}
