package schema

import (
	"strings"
	"testing"

	"google.golang.org/genai"
)

func TestRefs(t *testing.T) {
	cvRun(t, []cvCase{{
		name:    "$ref/$defs: inline #/$defs/x",
		in:      `{"type":"object","properties":{"a":{"$ref":"#/$defs/A"}},"$defs":{"A":{"type":"string"}}}`,
		want:    `{"type":"OBJECT","properties":{"a":{"type":"STRING"}}}`,
		changes: []string{"properties.a: $ref", ": $defs"},
	}, {
		name:    "$ref/definitions: inline #/definitions/x",
		in:      `{"type":"object","properties":{"a":{"$ref":"#/definitions/A"}},"definitions":{"A":{"type":"integer"}}}`,
		want:    `{"type":"OBJECT","properties":{"a":{"type":"INTEGER"}}}`,
		changes: []string{"properties.a: $ref", ": definitions"},
	}, {
		name: "$ref/any JSON pointer with ~0 ~1 and percent-encoding",
		in: `{"type":"object","properties":{"a":{"$ref":"#/$defs/a~1b~0c"},"b":{"$ref":"#/$defs/with%20space"},"c":{"$ref":"#/properties/a"},"d":{"$ref":"#/$defs/list/1"}},
			"$defs":{"a/b~c":{"type":"integer"},"with space":{"type":"boolean"},"list":[{"type":"string"},{"type":"number"}]}}`,
		want: `{"type":"OBJECT","properties":{"a":{"type":"INTEGER"},"b":{"type":"BOOLEAN"},"c":{"type":"INTEGER"},"d":{"type":"NUMBER"}}}`,
	}, {
		name: "$ref/anchor and absolute reference to the document's $id",
		in: `{"$id":"https://x.test/s.json","type":"object","properties":{"a":{"$ref":"#here"},"b":{"$ref":"https://x.test/s.json#/$defs/B"}},
			"$defs":{"A":{"$anchor":"here","type":"string"},"B":{"type":"boolean"}}}`,
		want: `{"type":"OBJECT","properties":{"a":{"type":"STRING"},"b":{"type":"BOOLEAN"}}}`,
	}, {
		name:    "$ref/siblings beside $ref are merged (annotations win, constraints add)",
		in:      `{"type":"object","properties":{"a":{"$ref":"#/$defs/A","description":"mine","required":["x"]}},"$defs":{"A":{"type":"object","description":"theirs","properties":{"x":{"type":"string"}}}}}`,
		want:    `{"type":"OBJECT","properties":{"a":{"type":"OBJECT","description":"mine","properties":{"x":{"type":"STRING"}},"required":["x"]}}}`,
		changes: []string{"properties.a: $ref"},
	}, {
		name:    "$ref/annotation-only siblings override the target's",
		in:      `{"type":"object","properties":{"a":{"$ref":"#/$defs/A","title":"T"}},"$defs":{"A":{"type":"string","title":"old","minLength":1}}}`,
		want:    `{"type":"OBJECT","properties":{"a":{"type":"STRING","title":"T","minLength":1}}}`,
		changes: []string{"properties.a: $ref"},
	}, {
		name: "$ref/recursion is cut after RefDepth expansions with a described placeholder",
		in:   `{"type":"object","properties":{"n":{"$ref":"#/$defs/N"}},"$defs":{"N":{"type":"object","properties":{"next":{"$ref":"#/$defs/N"}}}}}`,
		want: `{"type":"OBJECT","properties":{"n":{"type":"OBJECT","properties":{"next":{"type":"OBJECT","properties":{"next":{"type":"STRING",
			"description":"recursive \"N\", nested too deep to describe; any value; objects and arrays as JSON text"}}}}}}}`,
		changes: []string{"$defs.N.properties.next: $ref"},
	}, {
		name:    "$ref/recursive root reference",
		in:      `{"type":"object","properties":{"self":{"$ref":"#"}}}`,
		want:    `{"type":"OBJECT","properties":{"self":{"type":"OBJECT","properties":{"self":{"type":"OBJECT","properties":{"self":{"type":"STRING","description":"recursive root schema, nested too deep to describe; any value; objects and arrays as JSON text"}}}}}}}`,
		changes: []string{"properties.self: $ref"},
	}, {
		name:    "$ref/unresolvable local reference becomes a described any-value placeholder",
		in:      `{"type":"object","properties":{"a":{"$ref":"#/$defs/nope","description":"the a"}}}`,
		want:    `{"type":"OBJECT","properties":{"a":{"type":"STRING","description":"the a (unresolved reference #/$defs/nope; any value; objects and arrays as JSON text)"}}}`,
		changes: []string{"properties.a: $ref"},
	}, {
		name:    "$ref/remote reference becomes a described any-value placeholder",
		in:      `{"type":"object","properties":{"a":{"$ref":"other.json#/x"}}}`,
		want:    `{"type":"OBJECT","properties":{"a":{"type":"STRING","description":"unresolved reference other.json#/x; any value; objects and arrays as JSON text"}}}`,
		changes: []string{"properties.a: $ref"},
	}, {
		name:   "$ref/JSONSchema target keeps the reference, other keys beside it go beside an allOf",
		target: JSONSchema,
		in:     `{"type":"object","properties":{"a":{"$ref":"#/$defs/A","description":"d","minLength":2}},"$defs":{"A":{"type":"string"}}}`,
		want:   `{"type":"object","properties":{"a":{"allOf":[{"$ref":"#/$defs/A"}],"description":"d","minLength":2}},"$defs":{"A":{"type":"string"}}}`,
	}, {
		name:   "$ref/JSONSchema target bounds cycles",
		target: JSONSchema,
		in:     `{"type":"object","properties":{"self":{"$ref":"#"}}}`,
		want:   `{"type":"object","properties":{"self":{"type":"object","properties":{"self":{"type":"object","properties":{"self":{"description":"recursive root schema, nested too deep to describe: any value"}}}}}}}`,
	}})
}

func TestRefDepthOption(t *testing.T) {
	in := `{"type":"object","properties":{"self":{"$ref":"#"}}}`
	for _, tc := range []struct {
		refDepth, wantLevels int
	}{{1, 1}, {2, 2}, {5, 5}, {0, DefaultRefDepth}, {-1, DefaultRefDepth}} {
		res, err := Convert([]byte(in), &Options{RefDepth: tc.refDepth})
		if err != nil {
			t.Fatal(err)
		}
		levels := 0
		for s := res.Parameters.Properties["self"]; s != nil && s.Type == "OBJECT"; s = s.Properties["self"] {
			levels++
		}
		if levels != tc.wantLevels {
			t.Errorf("Convert(self-reference, RefDepth %d) expands %d levels, want %d", tc.refDepth, levels, tc.wantLevels)
		}
	}
}

func TestRefWideRecursionIsBounded(t *testing.T) {
	// Every definition refers to every other twice: expanding naively would
	// be exponential. The node budget keeps the output bounded.
	defs := `{`
	names := []string{"a", "b", "c", "d", "e", "f", "g", "h"}
	for i, n := range names {
		if i > 0 {
			defs += ","
		}
		defs += `"` + n + `":{"type":"object","properties":{`
		for j, m := range names {
			if j > 0 {
				defs += ","
			}
			defs += `"` + m + `1":{"$ref":"#/$defs/` + m + `"},"` + m + `2":{"$ref":"#/$defs/` + m + `"}`
		}
		defs += `}}`
	}
	defs += `}`
	in := `{"type":"object","properties":{"root":{"$ref":"#/$defs/a"}},"$defs":` + defs + `}`
	res, err := Convert([]byte(in), &Options{Target: Gemini, Budget: -1})
	if err != nil {
		t.Fatal(err)
	}
	// The budget, not the recursion limit, must be what stopped the
	// expansion: some reference was left out as too large ...
	budgetCuts := 0
	for _, c := range res.Changes {
		if c.Keyword == "$ref" && strings.HasSuffix(c.Detail, "not expanded: schema too large") {
			budgetCuts++
		}
	}
	if budgetCuts == 0 {
		t.Errorf("Convert(wide recursion) changes = %v, want a reference not expanded because the schema is too large", res.Changes)
	}
	// ... and the output holds at most maxNodes schemas, plus the one
	// definition (an object and its 16 properties) whose expansion was
	// under way when the budget ran out.
	const definition = 1 + 16
	if n := countSchemas(res.Parameters); n > maxNodes+definition || n <= maxNodes/4 {
		t.Errorf("Convert(wide recursion) output has %d schemas, want more than %d (the budget was used) and at most %d", n, maxNodes/4, maxNodes+definition)
	}
	cvAssertValid(t, res)
}

// countSchemas counts s and every schema nested in it.
func countSchemas(s *genai.Schema) int {
	if s == nil {
		return 0
	}
	n := 1 + countSchemas(s.Items)
	for _, p := range s.Properties {
		n += countSchemas(p)
	}
	for _, b := range s.AnyOf {
		n += countSchemas(b)
	}
	return n
}
