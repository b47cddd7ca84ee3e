package schema

import (
	"regexp"
	"strings"
	"testing"
)

func TestTypes(t *testing.T) {
	anyText := `"description":"any value; objects and arrays as JSON text"`
	cvRun(t, []cvCase{{
		name: "node without type/inferred from its keywords",
		in: `{"type":"object","properties":{"p":{"properties":{"a":{"type":"string"}}},"i":{"items":{"type":"string"}},"e":{"enum":["a"]},
			"s":{"minLength":2},"n":{"minimum":0},"f":{"format":"int64"},"d":{"default":true},"x":{"example":1.5}}}`,
		want: `{"type":"OBJECT","properties":{"p":{"type":"OBJECT","properties":{"a":{"type":"STRING"}}},"i":{"type":"ARRAY","items":{"type":"STRING"}},"e":{"type":"STRING","enum":["a"]},
			"s":{"type":"STRING","minLength":2},"n":{"type":"NUMBER","minimum":0},"f":{"type":"INTEGER","format":"int64"},"d":{"type":"BOOLEAN","default":true},"x":{"type":"NUMBER","example":1.5}}}`,
		changes: []string{"properties.p: type", "properties.i: type", "properties.e: type", "properties.s: type", "properties.n: type", "properties.f: type", "properties.d: type", "properties.x: type"},
	}, {
		name:    "node without type/no hint: any value as JSON text",
		in:      `{"type":"object","properties":{"a":{},"b":{"description":"anything"},"c":{"type":"TYPE_UNSPECIFIED"}}}`,
		want:    `{"type":"OBJECT","properties":{"a":{"type":"STRING",` + anyText + `},"b":{"type":"STRING","description":"anything (any value; objects and arrays as JSON text)"},"c":{"type":"STRING",` + anyText + `}}}`,
		changes: []string{"properties.a: type", "properties.b: type", "properties.c: type"},
	}, {
		name:    "boolean schema true / false/true is any value, false cannot be satisfied",
		in:      `{"type":"object","properties":{"t":true,"l":{"type":"array","items":false}}}`,
		want:    `{"type":"OBJECT","properties":{"t":{"type":"STRING",` + anyText + `},"l":{"type":"ARRAY","items":{"type":"STRING","description":"no value is valid here; any value; objects and arrays as JSON text"}}}}`,
		changes: []string{"properties.t: type", "properties.l.items: type"},
	}, {
		name: "very deep nesting/twelve levels survive intact",
		in:   cvDeep(12),
		want: strings.ReplaceAll(strings.ReplaceAll(cvDeep(12), `"object"`, `"OBJECT"`), `"string"`, `"STRING"`),
	}, {
		name:   "very deep nesting/twelve levels survive intact (JSONSchema)",
		target: JSONSchema,
		in:     cvDeep(12),
		want:   cvDeep(12),
	}})
}

func TestMaxDepth(t *testing.T) {
	for _, target := range cvTargets {
		for _, tc := range []struct {
			maxDepth, nesting, wantObjects int
		}{
			// cvDeep(n) has objects at depths 0..n-1; an object at depth d
			// keeps its children when d < MaxDepth. wantObjects counts the
			// object levels below the root.
			{0, 40, DefaultMaxDepth - 1},
			{5, 10, 4},
			{5, 5, 4},
			{5, 4, 3},
			{-3, 12, 11},
		} {
			res, err := Convert([]byte(cvDeep(tc.nesting)), &Options{Target: target, MaxDepth: tc.maxDepth})
			if err != nil {
				t.Fatal(err)
			}
			// Count the object levels below the root before the leaf.
			levels := 0
			if target == JSONSchema {
				for m := res.JSONSchema; ; levels++ {
					p, _ := m["properties"].(map[string]any)
					next, _ := p["x"].(map[string]any)
					if next == nil || next["type"] != "object" {
						break
					}
					m = next
				}
			} else {
				for s := res.Parameters; s.Properties["x"] != nil && s.Properties["x"].Type == "OBJECT"; s = s.Properties["x"] {
					levels++
				}
			}
			if levels != tc.wantObjects {
				t.Errorf("Convert(%d deep, MaxDepth %d, %v) keeps %d object levels, want %d", tc.nesting, tc.maxDepth, target, levels, tc.wantObjects)
			}
			cvAssertValid(t, res)
			cvAssertFixedPoint(t, res)
		}
	}
}

func TestMaxDepthWrappedRoot(t *testing.T) {
	// A non-object root cut by MaxDepth is converted one level deeper, as
	// the wrapped value lives, so the output is still a fixed point.
	in := `{"type":"array","items":` + cvDeep(40) + `}`
	for _, target := range cvTargets {
		res := cvConvert(t, in, target)
		cvAssertValid(t, res)
		cvAssertFixedPoint(t, res)
	}
}

func TestOutputBudget(t *testing.T) {
	// Keywords beside anyOf are copied into every branch: nested, the
	// copies multiply. The output stays bounded, and
	// is still valid and a fixed point.
	var nest func(k int) string
	nest = func(k int) string {
		if k == 0 {
			return `{"type":"string"}`
		}
		return `{"type":"object","properties":{"p":` + nest(k-1) + `},"anyOf":[{"required":["p"]},{"minProperties":1}]}`
	}
	in := `{"type":"object","properties":{"x":` + nest(15) + `}}`
	for _, target := range []Target{Gemini, Vertex} {
		res := cvConvert(t, in, target)
		cut := false
		for _, c := range res.Changes {
			cut = cut || c.Detail == "schema too large: any value"
		}
		if !cut {
			t.Errorf("Convert(multiplying schema, %v) cut nothing; want the output budget to apply", target)
		}
		if out := cvOutput(t, res); len(out) > 4<<20 {
			t.Errorf("Convert(multiplying schema, %v) output is %d bytes, want it bounded", target, len(out))
		}
		cvAssertValid(t, res)
		cvAssertFixedPoint(t, res)
	}
}

func TestMaxDepthLeavesThatGrow(t *testing.T) {
	// At the cap, nodes whose output has children (arrays get items, type
	// arrays become anyOf) are cut too, so the output never exceeds the cap
	// and stays a fixed point.
	for _, leaf := range []string{`{"type":"array"}`, `{"minItems":1}`, `{"type":["string","integer"]}`, `{"type":["string","null"]}`, `{"type":"string","enum":[1]}`} {
		in := `{"type":"object","properties":{"a":{"type":"object","properties":{"b":` + leaf + `}}}}`
		for _, target := range cvTargets {
			res, err := Convert([]byte(in), &Options{Target: target, MaxDepth: 2})
			if err != nil {
				t.Fatal(err)
			}
			out := cvOutput(t, res)
			again, _ := Convert([]byte(out), &Options{Target: target, MaxDepth: 2})
			if got := cvOutput(t, again); got != out || len(again.Changes) > 0 {
				t.Errorf("Convert(Convert(%s, MaxDepth 2, %v)) = %s, %v; want %s and no changes", leaf, target, got, again.Changes, out)
			}
			if d := cvDepth(cvDecode(t, out)); d > 2 {
				t.Errorf("Convert(%s, MaxDepth 2, %v) = %s, nested %d levels, want at most 2", leaf, target, out, d)
			}
		}
	}
}

// cvDepth returns the schema nesting depth of a JSON schema value (root 0).
func cvDepth(v any) int {
	m, ok := v.(map[string]any)
	if !ok {
		return 0
	}
	best := 0
	visit := func(c any) {
		if d := cvDepth(c) + 1; d > best {
			best = d
		}
	}
	for k, c := range m {
		switch k {
		case "properties", "patternProperties":
			cm, _ := c.(map[string]any)
			for _, e := range cm {
				visit(e)
			}
		case "anyOf", "oneOf", "allOf", "prefixItems":
			l, _ := c.([]any)
			for _, e := range l {
				visit(e)
			}
		case "items", "additionalProperties", "not", "contains":
			visit(c)
		}
	}
	return best
}

func TestMaxDepthWrappedLeafAtTheCap(t *testing.T) {
	// A non-object root whose leaves reach exactly MaxDepth is converted one
	// level deeper before wrapping, so the wrapped output keeps the cap.
	in := `{"type":"array","items":{"type":"array","items":{"type":"string"}}}`
	for _, target := range cvTargets {
		res, err := Convert([]byte(in), &Options{Target: target, MaxDepth: 2})
		if err != nil {
			t.Fatal(err)
		}
		out := cvOutput(t, res)
		if d := cvDepth(cvDecode(t, out)); d > 2 {
			t.Errorf("Convert(%s, MaxDepth 2, %v) = %s, nested %d levels, want at most 2", in, target, out, d)
		}
		again, _ := Convert([]byte(out), &Options{Target: target, MaxDepth: 2})
		if got := cvOutput(t, again); got != out || len(again.Changes) > 0 {
			t.Errorf("Convert(Convert(x)) = %s, %v; want %s and no changes", got, again.Changes, out)
		}
	}
}

func TestValidRE2(t *testing.T) {
	for _, p := range []string{"", "^#[0-9a-f]{6}$", "a(b", `\d+`, `(?P<x>a)`, `(?=a)`, `a{1001}`, `a{2,1}`,
		`\p{Greek}`, `\p{Nope}`, `[z-a]`, strings.Repeat("(", 1001) + strings.Repeat(")", 1001),
		strings.Repeat("a{1000}", 3)} {
		t.Run(p[:min(len(p), 20)], func(t *testing.T) {
			_, err := regexp.Compile(p)
			if got, want := validRE2(p), err == nil; got != want {
				t.Errorf("validRE2(%q) = %v, want %v", p, got, want)
			}
		})
	}
}
