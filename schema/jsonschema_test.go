package schema

import "testing"

func TestJSONSchemaTarget(t *testing.T) {
	cvRun(t, []cvCase{{
		name:    "$schema, $id, $comment, $anchor/dropped from parametersJsonSchema",
		target:  JSONSchema,
		in:      `{"$schema":"x","$id":"urn:x","$comment":"c","type":"object","properties":{"a":{"$anchor":"a","$dynamicAnchor":"d","type":"string"}}}`,
		want:    `{"type":"object","properties":{"a":{"type":"string"}}}`,
		changes: []string{": $schema", ": $id", ": $comment", "properties.a: $anchor"},
	}, {
		name:   "JSON Schema is otherwise kept as it is",
		target: JSONSchema,
		in: `{"type":"object","additionalProperties":false,"properties":{"u":{"type":"string","format":"uri","pattern":"^h"},"n":{"type":"number","exclusiveMinimum":0,"multipleOf":0.5},
			"t":{"type":"array","items":{"type":"string"},"uniqueItems":true},"c":{"if":{"required":["a"]},"then":{"required":["b"]}},"x":{"not":{"type":"null"}}}}`,
		want: `{"type":"object","additionalProperties":false,"properties":{"u":{"type":"string","format":"uri","pattern":"^h"},"n":{"type":"number","exclusiveMinimum":0,"multipleOf":0.5},
			"t":{"type":"array","items":{"type":"string"},"uniqueItems":true},"c":{"if":{"required":["a"]},"then":{"required":["b"]}},"x":{"not":{"type":"null"}}}}`,
	}, {
		name:    "exclusiveMinimum / exclusiveMaximum/draft-4 boolean form becomes the numeric form",
		target:  JSONSchema,
		in:      `{"type":"object","properties":{"n":{"type":"number","minimum":1,"exclusiveMinimum":true,"maximum":5,"exclusiveMaximum":false}}}`,
		want:    `{"type":"object","properties":{"n":{"type":"number","exclusiveMinimum":1,"maximum":5}}}`,
		changes: []string{"properties.n: exclusiveMinimum", "properties.n: exclusiveMaximum"},
	}, {
		name:    "type names/OpenAPI upper case names are lowered, unknown names dropped",
		target:  JSONSchema,
		in:      `{"type":"OBJECT","properties":{"a":{"type":"STRING"},"b":{"type":["INTEGER","null"]},"c":{"type":"any"},"d":{"type":["null"]},"e":{"type":["string","any"]}}}`,
		want:    `{"type":"object","properties":{"a":{"type":"string"},"b":{"anyOf":[{"type":"integer"},{"type":"null"}]},"c":{},"d":{"type":"null"},"e":{"type":"string"}}}`,
		changes: []string{"properties.a: type", "properties.b: type", "properties.c: type", "properties.d: type", "properties.e: type"},
	}, {
		name:   "JSON Schema is otherwise kept as it is/values the meta-schema rejects are fixed or dropped",
		target: JSONSchema,
		in: `{"type":"object","required":["a","a",3],"properties":{"a":{"type":"string","minLength":-1,"maxLength":2.5,"pattern":"^(?!x)","description":"d","title":7},
			"n":{"type":"number","multipleOf":0,"minimum":"1"},"m":{"type":"object","patternProperties":{"^ok$":{"type":"string"},"(?<=x)":{}}}}}`,
		want:    `{"type":"object","required":["a"],"properties":{"a":{"type":"string","description":"d (pattern: ^(?!x))"},"n":{"type":"number"},"m":{"type":"object","patternProperties":{"^ok$":{"type":"string"}}}}}`,
		changes: []string{": required", "properties.a: minLength", "properties.a: maxLength", "properties.a: pattern", "properties.a: title", "properties.n: multipleOf", "properties.n: minimum", "properties.m: patternProperties"},
	}, {
		name:   "boolean schema true / false/kept inside parametersJsonSchema",
		target: JSONSchema,
		in:     `{"type":"object","properties":{"t":true,"f":false}}`,
		want:   `{"type":"object","properties":{"t":true,"f":false}}`,
	}, {
		name:   "root not an OBJECT/empty input gives an object",
		target: JSONSchema,
		in:     ``,
		want:   `{"type":"object"}`,
	}})
}

func TestJSONSchemaPlaceholderKeepsAnnotations(t *testing.T) {
	cvRun(t, []cvCase{{
		name:   "unresolvable $ref keeps its description and title",
		target: JSONSchema,
		in:     `{"type":"object","properties":{"missing":{"$ref":"#/$defs/Nope","description":"Points nowhere.","title":"M"}}}`,
		want:   `{"type":"object","properties":{"missing":{"description":"Points nowhere. (unresolved reference #/$defs/Nope: any value)","title":"M"}}}`,
	}, {
		// A loop of required fields, which the API rejects as a
		// reference: inlined, and the recursion cut.
		name:   "cut recursion keeps the description beside $ref",
		target: JSONSchema,
		in:     `{"type":"object","properties":{"n":{"$ref":"#/$defs/N"}},"$defs":{"N":{"type":"object","required":["next"],"properties":{"next":{"$ref":"#/$defs/N","description":"the next one"}}}}}`,
		want: `{"type":"object","properties":{"n":{"type":"object","required":["next"],"properties":{"next":{"type":"object","description":"the next one","required":["next"],"properties":{
			"next":{"description":"the next one (recursive \"N\", nested too deep to describe: any value)"}}}}}}}`,
	}, {
		name:   "a recursion the API takes stays a reference",
		target: JSONSchema,
		in:     `{"type":"object","properties":{"n":{"$ref":"#/$defs/N"}},"$defs":{"N":{"type":"object","properties":{"next":{"$ref":"#/$defs/N","description":"the next one"}}}}}`,
		want:   `{"type":"object","properties":{"n":{"$ref":"#/$defs/N"}},"$defs":{"N":{"type":"object","properties":{"next":{"$ref":"#/$defs/N","description":"the next one"}}}}}`,
	}})
}

func TestJSONSchemaCleanups(t *testing.T) {
	cvRun(t, []cvCase{{
		name:    "x-* vendor extensions are dropped, also inside definitions",
		target:  JSONSchema,
		in:      `{"type":"object","x-server":"a","properties":{"a":{"$ref":"#/$defs/A"}},"$defs":{"A":{"type":"string","x-order":3}}}`,
		want:    `{"type":"object","properties":{"a":{"$ref":"#/$defs/A"}},"$defs":{"A":{"type":"string"}}}`,
		changes: []string{": x-server", "$defs.A: x-order"},
	}, {
		name:    "draft-04 dependencies become dependentRequired and dependentSchemas",
		target:  JSONSchema,
		in:      `{"type":"object","properties":{"a":{},"b":{},"c":{}},"dependencies":{"a":["b","b"],"c":{"required":["a"]}},"dependentRequired":{"a":["c"]}}`,
		want:    `{"type":"object","properties":{"a":{},"b":{},"c":{}},"dependentRequired":{"a":["c","b"]},"dependentSchemas":{"c":{"required":["a"]}}}`,
		changes: []string{": dependencies"},
	}, {
		name:    "required naming no property is pruned when additionalProperties is false",
		target:  JSONSchema,
		in:      `{"type":"object","properties":{"a":{}},"required":["a","ghost"],"additionalProperties":false}`,
		want:    `{"type":"object","properties":{"a":{}},"required":["a"],"additionalProperties":false}`,
		changes: []string{": required"},
	}, {
		name:    "required left empty by pruning is removed",
		target:  JSONSchema,
		in:      `{"type":"object","required":["ghost"],"additionalProperties":false}`,
		want:    `{"type":"object","additionalProperties":false}`,
		changes: []string{": required"},
	}, {
		name:   "required naming no property stays when other properties are allowed",
		target: JSONSchema,
		in:     `{"type":"object","properties":{"a":{}},"required":["a","extra"]}`,
		want:   `{"type":"object","properties":{"a":{}},"required":["a","extra"]}`,
	}})
}
