package schema

import "testing"

func TestRoot(t *testing.T) {
	cvRun(t, []cvCase{{
		name:    "root not an OBJECT/wrapped as {value: <schema>}",
		in:      `{"type":"string","description":"a name"}`,
		want:    `{"type":"OBJECT","properties":{"value":{"type":"STRING","description":"a name"}},"required":["value"]}`,
		changes: []string{": type"},
	}, {
		name:    "root not an OBJECT/a root anyOf of scalars is wrapped",
		in:      `{"anyOf":[{"type":"string"},{"type":"object","properties":{"b":{"type":"integer"}}}]}`,
		want:    `{"type":"OBJECT","properties":{"value":{"anyOf":[{"type":"STRING"},{"type":"OBJECT","properties":{"b":{"type":"INTEGER"}}}]}},"required":["value"]}`,
		changes: []string{": type"},
	}, {
		name:    "root not an OBJECT/a root union of objects becomes one object",
		in:      `{"oneOf":[{"type":"object","properties":{"a":{"type":"string"},"k":{"const":"x"}},"required":["k","a"]},{"type":"object","properties":{"b":{"type":"integer"},"k":{"const":"y"}},"required":["k","b"]}]}`,
		want:    `{"type":"OBJECT","properties":{"a":{"type":"STRING"},"b":{"type":"INTEGER"},"k":{"type":"STRING","enum":["x","y"]}},"required":["k"],"description":"one of these sets of properties is required: (k, a) or (k, b)"}`,
		changes: []string{": type", ": anyOf", ": oneOf"},
	}, {
		name:    "root not an OBJECT/an object root with anyOf of required alternatives stays an object",
		in:      `{"type":"object","description":"Find","properties":{"id":{"type":"string"},"name":{"type":"string"},"n":{"type":"integer","enum":[1,2]}},"anyOf":[{"required":["id"]},{"required":["name"]}]}`,
		want:    `{"type":"OBJECT","description":"Find (one of these sets of properties is required: (id) or (name))","properties":{"id":{"type":"STRING"},"name":{"type":"STRING"},"n":{"type":"STRING","enum":["1","2"]}}}`,
		changes: []string{": anyOf"},
	}, {
		name:   "root not an OBJECT/a property differing between root branches becomes their anyOf",
		target: Vertex,
		in:     `{"anyOf":[{"type":"object","properties":{"v":{"type":"string"}}},{"type":"object","properties":{"v":{"type":"integer","enum":[1]}}}]}`,
		want:   `{"type":"OBJECT","properties":{"v":{"anyOf":[{"type":"STRING"},{"type":"STRING","enum":["1"]}]}}}`,
	}, {
		name:    "root not an OBJECT/a typeless root with properties is an object",
		in:      `{"properties":{"a":{"type":"string"}},"required":["a"]}`,
		want:    `{"type":"OBJECT","properties":{"a":{"type":"STRING"}},"required":["a"]}`,
		changes: []string{": type"},
	}, {
		name:    "root not an OBJECT/null is removed from an object root's types",
		in:      `{"type":["object","null"],"properties":{"a":{"type":"string"}}}`,
		want:    `{"type":"OBJECT","properties":{"a":{"type":"STRING"}}}`,
		changes: []string{": type"},
	}, {
		name:    "root not an OBJECT/JSONSchema target wraps too",
		target:  JSONSchema,
		in:      `{"type":"array","items":{"type":"integer"}}`,
		want:    `{"type":"object","properties":{"value":{"type":"array","items":{"type":"integer"}}},"required":["value"]}`,
		changes: []string{": type"},
	}})
}
