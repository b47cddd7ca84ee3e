package schema

import "testing"

func TestKeywords(t *testing.T) {
	cvRun(t, []cvCase{{
		name:    "$schema, $id, $comment, $anchor/dropped",
		in:      `{"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"urn:x","$comment":"c","type":"object","properties":{"a":{"$anchor":"a","type":"string"}}}`,
		want:    `{"type":"OBJECT","properties":{"a":{"type":"STRING"}}}`,
		changes: []string{": $schema", ": $id", ": $comment", "properties.a: $anchor"},
	}, {
		name:    "additionalProperties/dropped, false noted in the description",
		in:      `{"type":"object","properties":{"o":{"type":"object","additionalProperties":false,"description":"strict"},"m":{"type":"object","additionalProperties":{"type":"string"}},"t":{"type":"object","additionalProperties":true}}}`,
		want:    `{"type":"OBJECT","properties":{"o":{"type":"OBJECT","description":"strict (no other properties allowed)"},"m":{"type":"STRING","description":"a JSON object, written as JSON text; values: string"},"t":{"type":"STRING","description":"a JSON object, written as JSON text"}}}`,
		changes: []string{"properties.o: additionalProperties", "properties.m: additionalProperties", "properties.t: additionalProperties"},
	}, {
		name:    "additionalProperties/Vertex drops it too (genai.Schema has no field for it)",
		target:  Vertex,
		in:      `{"type":"object","additionalProperties":false,"properties":{"a":{"type":"string"},"m":{"type":"object","properties":{"b":{"type":"string"}},"additionalProperties":{"type":"integer"}}}}`,
		want:    `{"type":"OBJECT","description":"no other properties allowed","properties":{"a":{"type":"STRING"},"m":{"type":"OBJECT","description":"other properties: integer","properties":{"b":{"type":"STRING"}}}}}`,
		changes: []string{": additionalProperties"},
	}, {
		name:    "uniqueItems, contains, prefixItems, unevaluated*/dropped with a note",
		in:      `{"type":"object","properties":{"t":{"type":"array","items":{"type":"string"},"uniqueItems":true,"contains":{"const":"x"},"minContains":2,"unevaluatedItems":false}}}`,
		want:    `{"type":"OBJECT","properties":{"t":{"type":"ARRAY","items":{"type":"STRING"},"description":"must contain a matching item; at least 2 matching items; items must be unique"}}}`,
		changes: []string{"properties.t: uniqueItems", "properties.t: contains", "properties.t: unevaluatedItems"},
	}, {
		name: "not, if/then/else, dependentRequired, dependentSchemas, patternProperties, propertyNames/dropped",
		in: `{"type":"object","properties":{"c":{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"if":{"required":["a"]},"then":{"required":["b"]},"else":{},
			"not":{"required":["z"]},"dependentRequired":{"a":["b"]},"dependentSchemas":{"a":{"required":["b"]}},"patternProperties":{"^x-":{"type":"string"}},"propertyNames":{"pattern":"^[a-z]+$"}}}}`,
		want: `{"type":"OBJECT","properties":{"c":{"type":"OBJECT","properties":{"a":{"type":"STRING"},"b":{"type":"STRING"}},
			"description":"with a also b; properties named like ^x-; property names match ^[a-z]+$"}}}`,
		changes: []string{"properties.c: if", "properties.c: then", "properties.c: else", "properties.c: not", "properties.c: dependentSchemas", "properties.c: patternProperties", "properties.c: propertyNames"},
	}, {
		name: "format/safe formats kept, others moved into the description",
		in: `{"type":"object","properties":{"dt":{"type":"string","format":"date-time"},"u":{"type":"string","format":"uri","description":"link"},"id":{"type":"string","format":"uuid"},
			"i":{"type":"integer","format":"int64"},"i8":{"type":"integer","format":"int8"},"f":{"type":"number","format":"float"},"b":{"type":"boolean","format":"x"}}}`,
		want: `{"type":"OBJECT","properties":{"dt":{"type":"STRING","format":"date-time"},"u":{"type":"STRING","description":"link (format: uri)"},"id":{"type":"STRING","description":"format: uuid"},
			"i":{"type":"INTEGER","format":"int64"},"i8":{"type":"INTEGER","description":"format: int8"},"f":{"type":"NUMBER","format":"float"},"b":{"type":"BOOLEAN"}}}`,
		changes: []string{"properties.u: format", "properties.id: format", "properties.i8: format", "properties.b: format"},
	}, {
		name: "exclusiveMinimum / exclusiveMaximum/integers move by one, numbers note the strictness",
		in: `{"type":"object","properties":{"i":{"type":"integer","exclusiveMinimum":0,"exclusiveMaximum":10},"f":{"type":"integer","exclusiveMinimum":1.5},
			"n":{"type":"number","exclusiveMinimum":0.5,"maximum":2},"t":{"type":"integer","minimum":5,"exclusiveMinimum":2}}}`,
		want: `{"type":"OBJECT","properties":{"i":{"type":"INTEGER","minimum":1,"maximum":9},"f":{"type":"INTEGER","minimum":2},
			"n":{"type":"NUMBER","minimum":0.5,"maximum":2,"description":"greater than 0.5"},"t":{"type":"INTEGER","minimum":5}}}`,
		changes: []string{"properties.i: exclusiveMinimum", "properties.i: exclusiveMaximum", "properties.n: exclusiveMinimum", "properties.t: exclusiveMinimum"},
	}, {
		name:    "exclusiveMinimum / exclusiveMaximum/draft-4 boolean form",
		in:      `{"type":"object","properties":{"i":{"type":"integer","minimum":1,"exclusiveMinimum":true,"maximum":5,"exclusiveMaximum":false},"n":{"type":"number","maximum":3,"exclusiveMaximum":true}}}`,
		want:    `{"type":"OBJECT","properties":{"i":{"type":"INTEGER","minimum":2,"maximum":5},"n":{"type":"NUMBER","maximum":3,"description":"less than 3"}}}`,
		changes: []string{"properties.i: exclusiveMinimum", "properties.i: exclusiveMaximum", "properties.n: exclusiveMaximum"},
	}, {
		name:    "multipleOf/dropped with a note",
		in:      `{"type":"object","properties":{"n":{"type":"integer","multipleOf":5}}}`,
		want:    `{"type":"OBJECT","properties":{"n":{"type":"INTEGER","description":"multiple of 5"}}}`,
		changes: []string{"properties.n: multipleOf"},
	}, {
		name:    "examples/first one kept as example",
		in:      `{"type":"object","properties":{"e":{"type":"string","examples":["first","second"]},"both":{"type":"string","example":"mine","examples":["x"]}}}`,
		want:    `{"type":"OBJECT","properties":{"e":{"type":"STRING","example":"first"},"both":{"type":"STRING","example":"mine"}}}`,
		changes: []string{"properties.e: examples", "properties.both: examples"},
	}, {
		name: "accepted keywords/kept as they are",
		in: `{"type":"object","title":"T","description":"D","minProperties":1,"maxProperties":3,"propertyOrdering":["b","a"],"properties":{
			"a":{"type":"string","minLength":1,"maxLength":9,"pattern":"^a","default":"ab","example":"ax","nullable":true},
			"b":{"type":"array","items":{"type":"number","minimum":0,"maximum":1},"minItems":1,"maxItems":2}}}`,
		want: `{"type":"OBJECT","title":"T","description":"D","minProperties":1,"maxProperties":3,"propertyOrdering":["b","a"],"properties":{
			"a":{"type":"STRING","minLength":1,"maxLength":9,"pattern":"^a","default":"ab","example":"ax","nullable":true},
			"b":{"type":"ARRAY","items":{"type":"NUMBER","minimum":0,"maximum":1},"minItems":1,"maxItems":2}}}`,
	}, {
		name:    "accepted keywords/unsatisfiable ranges and non-RE2 patterns are dropped",
		in:      `{"type":"object","properties":{"a":{"type":"integer","minimum":9,"maximum":1},"s":{"type":"string","minLength":5,"maxLength":2,"pattern":"^(?!x)"}}}`,
		want:    `{"type":"OBJECT","properties":{"a":{"type":"INTEGER"},"s":{"type":"STRING","description":"pattern: ^(?!x)"}}}`,
		changes: []string{"properties.a: minimum", "properties.s: minLength", "properties.s: pattern"},
	}, {
		name:    "unknown keywords/dropped and reported",
		in:      `{"type":"object","x-internal":true,"readOnly":true,"properties":{"a":{"type":"string","deprecated":true}}}`,
		want:    `{"type":"OBJECT","properties":{"a":{"type":"STRING","description":"deprecated"}}}`,
		changes: []string{": x-internal", ": readOnly", "properties.a: deprecated"},
	}})
}
