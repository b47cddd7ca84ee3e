package schema

import "testing"

func TestNulls(t *testing.T) {
	cvRun(t, []cvCase{{
		name: "type arrays/[T, null] becomes T with nullable",
		in:   `{"type":"object","properties":{"a":{"type":["string","null"]},"b":{"type":["null","INTEGER"],"minimum":1}}}`,
		want: `{"type":"OBJECT","properties":{"a":{"type":"STRING","nullable":true},"b":{"type":"INTEGER","nullable":true,"minimum":1}}}`,
	}, {
		name:    "type arrays/several non-null types become anyOf, constraints to their type",
		in:      `{"type":"object","properties":{"v":{"type":["string","integer","null"],"description":"d","minLength":1,"maximum":9}}}`,
		want:    `{"type":"OBJECT","properties":{"v":{"description":"d","anyOf":[{"type":"STRING","nullable":true,"minLength":1},{"type":"INTEGER","nullable":true,"maximum":9}]}}}`,
		changes: []string{"properties.v: type"},
	}, {
		name:    "type arrays/sequential-thinking style [boolean, string]",
		in:      `{"type":"object","properties":{"isRevision":{"type":["boolean","string"]}}}`,
		want:    `{"type":"OBJECT","properties":{"isRevision":{"anyOf":[{"type":"BOOLEAN"},{"type":"STRING"}]}}}`,
		changes: []string{"properties.isRevision: type"},
	}, {
		name:    "null branch/{type: null} branches become nullable on the rest",
		in:      `{"type":"object","properties":{"a":{"anyOf":[{"type":"string"},{"type":"null"}]},"b":{"anyOf":[{"type":"null"},{"type":"integer"},{"type":"boolean"}]}}}`,
		want:    `{"type":"OBJECT","properties":{"a":{"type":"STRING","nullable":true},"b":{"anyOf":[{"type":"INTEGER","nullable":true},{"type":"BOOLEAN","nullable":true}]}}}`,
		changes: []string{"properties.a.anyOf.1: type", "properties.b.anyOf.0: type"},
	}, {
		name: "null branch/const null and enum [null] branches count as null",
		in:   `{"type":"object","properties":{"a":{"oneOf":[{"type":"string"},{"const":null}]},"b":{"anyOf":[{"enum":[null]},{"type":"number"}]}}}`,
		want: `{"type":"OBJECT","properties":{"a":{"type":"STRING","nullable":true},"b":{"type":"NUMBER","nullable":true}}}`,
	}, {
		name: "type null alone/Gemini keeps type NULL",
		in:   `{"type":"object","properties":{"n":{"type":"null","description":"nothing"}}}`,
		want: `{"type":"OBJECT","properties":{"n":{"type":"NULL","description":"nothing"}}}`,
	}, {
		name:    "type null alone/Vertex has no NULL type: nullable STRING",
		target:  Vertex,
		in:      `{"type":"object","properties":{"n":{"type":"null"}}}`,
		want:    `{"type":"OBJECT","properties":{"n":{"type":"STRING","nullable":true,"description":"always null"}}}`,
		changes: []string{"properties.n: type"},
	}, {
		name: "nullable/OpenAPI nullable is kept",
		in:   `{"type":"object","properties":{"a":{"type":"string","nullable":true}}}`,
		want: `{"type":"OBJECT","properties":{"a":{"type":"STRING","nullable":true}}}`,
	}, {
		name:    "type arrays/JSONSchema target writes null as an anyOf branch",
		target:  JSONSchema,
		in:      `{"type":"object","properties":{"a":{"type":["string","null"],"description":"d","maxLength":3},"b":{"type":["string","integer"]}}}`,
		want:    `{"type":"object","properties":{"a":{"description":"d","anyOf":[{"type":"string","maxLength":3},{"type":"null"}]},"b":{"type":["string","integer"]}}}`,
		changes: []string{"properties.a: type"},
	}})
}
