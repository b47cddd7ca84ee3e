package schema

import "testing"

func TestObjectsAndArrays(t *testing.T) {
	anyText := `"description":"any value; objects and arrays as JSON text"`
	cvRun(t, []cvCase{{
		name:    "ARRAY without items or with items: {}/items become an any-value STRING",
		in:      `{"type":"object","properties":{"none":{"type":"array"},"empty":{"type":"array","items":{}},"desc":{"type":"array","items":{"description":"a tag"}}}}`,
		want:    `{"type":"OBJECT","properties":{"none":{"type":"ARRAY","items":{"type":"STRING",` + anyText + `}},"empty":{"type":"ARRAY","items":{"type":"STRING",` + anyText + `}},"desc":{"type":"ARRAY","items":{"type":"STRING","description":"a tag (any value; objects and arrays as JSON text)"}}}}`,
		changes: []string{"properties.none: items", "properties.empty: items", "properties.desc: items"},
	}, {
		name:    "ARRAY without items or with items: {}/tuples become one anyOf item schema",
		in:      `{"type":"object","properties":{"t":{"type":"array","items":[{"type":"string"},{"type":"integer"}],"additionalItems":{"type":"boolean"}},"p":{"type":"array","prefixItems":[{"type":"string"}]}}}`,
		want:    `{"type":"OBJECT","properties":{"t":{"type":"ARRAY","description":"items in this order: string; integer; then any number of boolean","items":{"anyOf":[{"type":"STRING"},{"type":"INTEGER"},{"type":"BOOLEAN"}]}},"p":{"type":"ARRAY","items":{"type":"STRING"}}}}`,
		changes: []string{"properties.t: items", "properties.p: items"},
	}, {
		name:    "items on a non-ARRAY/dropped",
		in:      `{"type":"object","properties":{"s":{"type":"string","items":{"type":"string"},"minItems":1}}}`,
		want:    `{"type":"OBJECT","properties":{"s":{"type":"STRING"}}}`,
		changes: []string{"properties.s: items", "properties.s: minItems"},
	}, {
		name:    "properties/required on a non-OBJECT/dropped",
		in:      `{"type":"object","properties":{"s":{"type":"integer","properties":{"a":{"type":"string"}},"required":["a"],"minProperties":1}}}`,
		want:    `{"type":"OBJECT","properties":{"s":{"type":"INTEGER"}}}`,
		changes: []string{"properties.s: properties", "properties.s: required", "properties.s: minProperties"},
	}, {
		name:    "required naming a missing property/pruned (and duplicates removed)",
		in:      `{"type":"object","required":["ghost","real","real",7],"properties":{"real":{"type":"string"}}}`,
		want:    `{"type":"OBJECT","properties":{"real":{"type":"STRING"}},"required":["real"]}`,
		changes: []string{": required"},
	}, {
		name:    "boolean schema true / false/a false property is removed with its required entry",
		in:      `{"type":"object","required":["gone","a"],"properties":{"gone":false,"a":{"type":"string"}}}`,
		want:    `{"type":"OBJECT","properties":{"a":{"type":"STRING"}},"required":["a"]}`,
		changes: []string{": properties", ": required"},
	}, {
		name:    "propertyOrdering/names that are not properties are removed",
		in:      `{"type":"object","propertyOrdering":["b","zz","a"],"properties":{"a":{"type":"string"},"b":{"type":"string"}}}`,
		want:    `{"type":"OBJECT","propertyOrdering":["b","a"],"properties":{"a":{"type":"STRING"},"b":{"type":"STRING"}}}`,
		changes: []string{": propertyOrdering"},
	}, {
		name: "additionalProperties/objects without properties that allow others are written as JSON text",
		in: `{"type":"object","properties":{"headers":{"type":"object","additionalProperties":{"type":"string"},"minProperties":1,"description":"HTTP headers"},
			"doc":{"type":"object","additionalProperties":true,"default":{"a":1}},"pp":{"type":"object","patternProperties":{"^x":{}}},"bare":{"type":"object"},"none":{"type":"object","additionalProperties":false}}}`,
		want: `{"type":"OBJECT","properties":{"headers":{"type":"STRING","description":"HTTP headers (a JSON object, written as JSON text; values: string; minProperties: 1)"},
			"doc":{"type":"STRING","default":"{\"a\":1}","description":"a JSON object, written as JSON text"},"pp":{"type":"STRING","description":"a JSON object, written as JSON text; properties named like ^x"},
			"bare":{"type":"OBJECT"},"none":{"type":"OBJECT","description":"no other properties allowed"}}}`,
		changes: []string{"properties.headers: type", "properties.doc: type", "properties.pp: type"},
	}, {
		name:    "ARRAY without items or with items: {}/JSONSchema target keeps arrays, draft-4 tuples as prefixItems",
		target:  JSONSchema,
		in:      `{"type":"object","properties":{"none":{"type":"array"},"t":{"type":"array","items":[{"type":"string"}],"additionalItems":{"type":"integer"}}}}`,
		want:    `{"type":"object","properties":{"none":{"type":"array"},"t":{"type":"array","prefixItems":[{"type":"string"}],"items":{"type":"integer"}}}}`,
		changes: []string{"properties.t: items"},
	}})
}
