package schema

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"
)

// cvTargets lists every target, in order.
var cvTargets = []Target{Gemini, Vertex, JSONSchema}

// cvConvert converts in (JSON text) and fails the test on error.
func cvConvert(t testing.TB, in string, target Target) *Result {
	t.Helper()
	res, err := Convert([]byte(in), &Options{Target: target})
	if err != nil {
		t.Fatalf("Convert(%s, %v) error: %v", in, target, err)
	}
	return res
}

// cvOutput is the JSON text of a result's schema.
func cvOutput(t testing.TB, res *Result) string {
	t.Helper()
	var v any = res.Parameters
	if res.Target == JSONSchema {
		v = res.JSONSchema
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("json.Marshal(%T): %v", v, err)
	}
	return string(b)
}

// cvDecode decodes JSON text with json.Number.
func cvDecode(t testing.TB, s string) any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decoding %s: %v", s, err)
	}
	return v
}

// cvCase is one conversion with its expected output.
type cvCase struct {
	name   string // the API rule (or behaviour) it covers
	in     string
	target Target
	want   string // expected output JSON
	// changes, if set, must each appear (as "path: keyword") in Changes.
	changes []string
}

// cvRun runs table cases: output as wanted, expected changes reported, and
// the output valid for its target and a fixed point of Convert.
func cvRun(t *testing.T, cases []cvCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := cvConvert(t, tc.in, tc.target)
			got := cvOutput(t, res)
			if diff := cmp.Diff(cvDecode(t, tc.want), cvDecode(t, got)); diff != "" {
				t.Errorf("Convert(%s, %v) = %s\nwant %s\n(-want +got):\n%s", tc.in, tc.target, got, tc.want, diff)
			}
			have := map[string]bool{}
			for _, c := range res.Changes {
				have[c.Path+": "+c.Keyword] = true
			}
			for _, w := range tc.changes {
				if !have[w] {
					t.Errorf("Convert(%s, %v).Changes = %v, want one at %q", tc.in, tc.target, res.Changes, w)
				}
			}
			cvAssertValid(t, res)
			cvAssertFixedPoint(t, res)
			assertChanges(t, []byte(tc.in), res)
		})
	}
}

// cvAssertValid checks the output with the package's checker.
func cvAssertValid(t testing.TB, res *Result) {
	t.Helper()
	var vs []Violation
	if res.Target == JSONSchema {
		vs = CheckJSONSchema(res.JSONSchema)
	} else {
		vs = Check(res.Parameters, res.Target)
	}
	if len(vs) > 0 {
		t.Errorf("Check(Convert(%v)) = %v, want none", res.Target, vs)
	}
}

// cvAssertFixedPoint converts the output again: same bytes, no changes, an
// identity restorer.
func cvAssertFixedPoint(t testing.TB, res *Result) {
	t.Helper()
	out := cvOutput(t, res)
	again := cvConvert(t, out, res.Target)
	if got := cvOutput(t, again); got != out {
		t.Errorf("Convert(Convert(x)) = %s\nwant %s (idempotent)", got, out)
	}
	if len(again.Changes) > 0 {
		t.Errorf("Convert(Convert(x)).Changes = %v, want none", again.Changes)
	}
	if !again.Restorer.Identity() {
		t.Errorf("Convert(Convert(x)).Restorer.Identity() = false, want true")
	}
}

func TestConvertShapes(t *testing.T) {
	empty := `{"type":"OBJECT"}`
	cases := []struct {
		name, in string
		want     string
	}{
		{"absent", ``, empty},
		{"white space", " \n\t", empty},
		{"null", `null`, empty},
		{"empty object", `{}`, empty},
		{"boolean true", `true`, empty},
		{"boolean false", `false`, empty},
		{"object without properties", `{"type":"object"}`, empty},
		{"string root", `{"type":"string"}`, `{"type":"OBJECT","properties":{"value":{"type":"STRING"}},"required":["value"]}`},
		{"array value root", `[1,2]`, empty},
		{"number value root", `5`, empty},
		{"upper case OpenAPI types", `{"type":"OBJECT","properties":{"a":{"type":"STRING"},"b":{"type":"INTEGER","format":"int64"}}}`,
			`{"type":"OBJECT","properties":{"a":{"type":"STRING"},"b":{"type":"INTEGER","format":"int64"}}}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := cvConvert(t, tc.in, Gemini)
			if got := cvOutput(t, res); got != cvOutput(t, &Result{Parameters: cvMust(t, tc.want)}) {
				t.Errorf("Convert(%q) = %s, want %s", tc.in, got, tc.want)
			}
			cvAssertValid(t, res)
			cvAssertFixedPoint(t, res)
			assertChanges(t, []byte(tc.in), res)
		})
	}
}

// cvMust decodes a *genai.Schema from JSON.
func cvMust(t testing.TB, s string) *genai.Schema {
	t.Helper()
	var out genai.Schema
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		t.Fatalf("decoding schema %s: %v", s, err)
	}
	return &out
}

func TestConvertErrors(t *testing.T) {
	for _, in := range []string{`{`, `{"a":1}}`, `nope`, `{"a":1} {"b":2}`, "\x00"} {
		t.Run(in, func(t *testing.T) {
			res, err := Convert([]byte(in), nil)
			if err == nil {
				t.Errorf("Convert(%q) = %v, nil; want an error", in, cvOutput(t, res))
			}
		})
	}
}

// cvFixtures covers every keyword rule of the Gemini API at least once; the
// property tests below run over all of them and every target.
var cvFixtures = map[string]string{
	"refs": `{"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"urn:x","type":"object",
		"properties":{"a":{"$ref":"#/$defs/A"},"b":{"$ref":"#/definitions/B","description":"bee"},
		"c":{"$ref":"#/$defs/a~1b~0c"},"d":{"$ref":"#/$defs/with%20space"},"e":{"$ref":"https://example.com/x.json"},
		"f":{"$ref":"#/$defs/missing"},"g":{"$ref":"#/properties/a"},"h":{"$ref":"#/$defs/A","required":["x"],"minProperties":1}},
		"$defs":{"A":{"type":"object","properties":{"x":{"type":"string"}}},"a/b~c":{"type":"integer"},"with space":{"type":"boolean"}},
		"definitions":{"B":{"type":"number"}}}`,
	"recursive tree": `{"type":"object","properties":{"root":{"$ref":"#/$defs/node"}},"$defs":{"node":{"type":"object",
		"properties":{"name":{"type":"string"},"children":{"type":"array","items":{"$ref":"#/$defs/node"}}},"required":["name"]}}}`,
	"self root":        `{"type":"object","properties":{"next":{"$ref":"#"},"v":{"type":"integer"}}}`,
	"mutual recursion": `{"$ref":"#/$defs/a","$defs":{"a":{"type":"object","properties":{"b":{"$ref":"#/$defs/b"}}},"b":{"type":"object","properties":{"a":{"$ref":"#/$defs/a"}}}}}`,
	"allOf": `{"type":"object","properties":{"m":{"allOf":[{"type":"object","properties":{"a":{"type":"string","minLength":1}},"required":["a"]},
		{"properties":{"a":{"maxLength":5},"b":{"type":"integer"}},"required":["b"]},{"type":["object","null"]}]},
		"conflict":{"allOf":[{"type":"string"},{"type":"integer"}]},"num":{"allOf":[{"type":"number","minimum":1},{"type":"integer","minimum":3,"maximum":9}]}}}`,
	"oneOf": `{"type":"object","properties":{"x":{"oneOf":[{"type":"string"},{"type":"integer"}],"description":"either"}}}`,
	"nulls": `{"type":"object","properties":{"a":{"type":["string","null"]},"b":{"type":["null","integer","string"]},
		"c":{"anyOf":[{"type":"string"},{"type":"null"}],"default":null},"d":{"type":"null"},"e":{"anyOf":[{"type":"null"},{"type":"object","properties":{"z":{"type":"string"}}},{"type":"array","items":{"type":"string"}}]},"f":{"nullable":true,"type":"string"}}}`,
	"anyOf": `{"type":"object","properties":{"one":{"anyOf":[{"type":"string","description":"only"}],"description":"outer"},
		"sib":{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"anyOf":[{"required":["a"]},{"required":["b"]}],"description":"a or b"},
		"mixed":{"anyOf":[{"type":"string","enum":["x"]},{"type":"integer","enum":[1,2]}],"default":"x","title":"T"}}}`,
	"const and enums": `{"type":"object","properties":{"c":{"const":"fixed"},"n":{"const":5},"i":{"type":"integer","enum":[1,2,3]},
		"mix":{"enum":[1,"1",true,"true",null,"",{"a":1},[1,2],1.5,-1,1e3,"x","x"]},"b":{"type":"boolean","enum":[true]},"s":{"type":"string","enum":["a","b"],"format":"enum"}}}`,
	"bounds": `{"type":"object","properties":{"i":{"type":"integer","exclusiveMinimum":0,"exclusiveMaximum":10},"n":{"type":"number","exclusiveMinimum":0.5,"maximum":2},
		"d4":{"type":"integer","minimum":1,"exclusiveMinimum":true,"maximum":5,"exclusiveMaximum":false},"tight":{"type":"integer","minimum":5,"exclusiveMinimum":2},"bad":{"type":"integer","minimum":9,"maximum":1}}}`,
	"keywords": `{"type":"object","additionalProperties":false,"properties":{"u":{"type":"string","format":"uri","pattern":"^h","minLength":1},
		"dt":{"type":"string","format":"date-time"},"i32":{"type":"integer","format":"int32","multipleOf":5},"dbl":{"type":"number","format":"double"},
		"tags":{"type":"array","items":{"type":"string"},"uniqueItems":true,"minItems":1,"maxItems":3,"contains":{"const":"x"},"minContains":1},
		"ex":{"type":"string","examples":["first","second"]},"look":{"type":"string","pattern":"^(?!x)"},
		"cond":{"type":"object","if":{"required":["a"]},"then":{"required":["b"]},"not":{"type":"null"},"dependentRequired":{"a":["b"]},"properties":{"a":{"type":"string"},"b":{"type":"string"}},"x-custom":1,"$comment":"c"},
		"map":{"type":"object","additionalProperties":{"type":"string"},"propertyNames":{"pattern":"^[a-z]+$"},"patternProperties":{"^x-":{"type":"string"}}}}}`,
	"arrays": `{"type":"object","properties":{"none":{"type":"array"},"empty":{"type":"array","items":{}},"tuple":{"type":"array","items":[{"type":"string"},{"type":"integer"}]},
		"prefix":{"type":"array","prefixItems":[{"type":"string"}],"items":{"type":"number"}},"nested":{"type":"array","items":{"type":"array"}},"described":{"type":"array","items":{"description":"a thing"}}}}`,
	"misplaced": `{"type":"object","properties":{"s":{"type":"string","properties":{"a":{"type":"string"}},"required":["a"],"items":{"type":"string"},"minimum":1},
		"o":{"type":"object","required":["ghost","real","real"],"properties":{"real":{"type":"string"},"gone":false},"minLength":2}}}`,
	"typeless": `{"properties":{"p":{"properties":{"a":{"type":"string"}}},"i":{"items":{"type":"string"}},"e":{"enum":["a","b"]},"s":{"minLength":2},
		"n":{"minimum":0},"f":{"format":"int64"},"d":{"default":true},"any":{},"desc":{"description":"anything"},"t":true,"no":false}}`,
	"deep":                  cvDeep(12),
	"very deep":             cvDeep(40),
	"root array":            `{"type":"array","items":{"type":"integer","enum":[1,2]}}`,
	"root anyOf":            `{"anyOf":[{"type":"object","properties":{"a":{"type":"string"}}},{"type":"object","properties":{"b":{"type":"integer"}}}]}`,
	"root nullable":         `{"type":["object","null"],"properties":{"a":{"type":"string"}}}`,
	"draft-04":              `{"$schema":"http://json-schema.org/draft-04/schema#","id":"x","type":"object","properties":{"n":{"type":"number","minimum":0,"exclusiveMinimum":true},"t":{"type":"array","items":[{"type":"string"}],"additionalItems":false}},"definitions":{"u":{"type":"string"}}}`,
	"vertex anyOf siblings": `{"type":"object","properties":{"v":{"description":"d","title":"t","anyOf":[{"type":"string"},{"type":"integer","description":"num"}],"nullable":true}}}`,
	"draft-4 tuple":         `{"type":"object","properties":{"pair":{"type":"array","items":[{"type":"string"},{"type":"string","enum":["a"]}]}}}`,
	"big numbers":           `{"type":"object","properties":{"n":{"type":"integer","enum":[12345678901234567890, 1.0, 1]},"m":{"type":"number","minimum":1e400}}}`,
}

// cvDeep returns an object schema nested depth levels deep.
func cvDeep(depth int) string {
	s := `{"type":"string"}`
	for range depth {
		s = `{"type":"object","properties":{"x":` + s + `}}`
	}
	return s
}

func TestConvertFixturesValidAndIdempotent(t *testing.T) {
	for _, name := range sortedKeys(cvFixtures) {
		for _, target := range cvTargets {
			t.Run(name+"/"+target.String(), func(t *testing.T) {
				res := cvConvert(t, cvFixtures[name], target)
				cvAssertValid(t, res)
				cvAssertFixedPoint(t, res)
				assertChanges(t, []byte(cvFixtures[name]), res)
				if res.Restorer == nil {
					t.Errorf("Convert(%s).Restorer = nil", name)
				}
				if got := res.Target; got != target {
					t.Errorf("Convert(%s).Target = %v, want %v", name, got, target)
				}
				if (target == JSONSchema) != (res.Parameters == nil) || (target == JSONSchema) == (res.JSONSchema == nil) {
					t.Errorf("Convert(%s, %v): Parameters %v, JSONSchema %v; want exactly the target's field", name, target, res.Parameters != nil, res.JSONSchema != nil)
				}
			})
		}
	}
}

func TestConvertPure(t *testing.T) {
	for _, name := range sortedKeys(cvFixtures) {
		for _, target := range cvTargets {
			t.Run(name+"/"+target.String(), func(t *testing.T) {
				raw := []byte(cvFixtures[name])
				before := bytes.Clone(raw)
				v, fresh := cvDecode(t, cvFixtures[name]), cvDecode(t, cvFixtures[name])
				res, err := ConvertValue(v, &Options{Target: target})
				if err != nil {
					t.Fatalf("ConvertValue error: %v", err)
				}
				if diff := cmp.Diff(fresh, v); diff != "" {
					t.Errorf("ConvertValue(%s) modified its input (-before +after):\n%s", name, diff)
				}
				fromBytes := cvConvert(t, string(raw), target)
				if !bytes.Equal(raw, before) {
					t.Errorf("Convert(%s) modified its input bytes", name)
				}
				if got, want := cvOutput(t, res), cvOutput(t, fromBytes); got != want {
					t.Errorf("ConvertValue(%s) = %s, Convert = %s; want the same", name, got, want)
				}
				// The result shares nothing with the input: editing the
				// output leaves a second conversion of v unchanged.
				if res.JSONSchema != nil {
					cvScribble(res.JSONSchema)
				}
				if diff := cmp.Diff(fresh, v); diff != "" {
					t.Errorf("editing the output of ConvertValue(%s) changed its input:\n%s", name, diff)
				}
			})
		}
	}
}

// cvScribble overwrites every value in a JSON tree.
func cvScribble(v any) {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			cvScribble(e)
			v[k] = "scribbled"
		}
	case []any:
		for i, e := range v {
			cvScribble(e)
			v[i] = "scribbled"
		}
	}
}

func TestConvertDeterministic(t *testing.T) {
	for _, name := range sortedKeys(cvFixtures) {
		for _, target := range cvTargets {
			t.Run(name+"/"+target.String(), func(t *testing.T) {
				first := cvConvert(t, cvFixtures[name], target)
				want := cvOutput(t, first)
				for range 20 {
					res := cvConvert(t, cvFixtures[name], target)
					if got := cvOutput(t, res); got != want {
						t.Fatalf("Convert(%s) = %s, earlier %s; want byte-identical", name, got, want)
					}
					if !reflect.DeepEqual(res.Changes, first.Changes) {
						t.Fatalf("Convert(%s).Changes = %v, earlier %v", name, res.Changes, first.Changes)
					}
				}
			})
		}
	}
}

func TestDeclaration(t *testing.T) {
	for _, target := range cvTargets {
		t.Run(target.String(), func(t *testing.T) {
			res := cvConvert(t, `{"type":"object","properties":{"a":{"type":"string"}}}`, target)
			d := res.Declaration("f", "does f")
			if d.Name != "f" || d.Description != "does f" {
				t.Errorf("Declaration() name/description = %q/%q, want f/does f", d.Name, d.Description)
			}
			if (d.Parameters != nil) == (d.ParametersJsonSchema != nil) {
				t.Errorf("Declaration(): Parameters %v, ParametersJsonSchema %v; want exactly one", d.Parameters != nil, d.ParametersJsonSchema != nil)
			}
			if vs := CheckDeclaration(d, target); len(vs) > 0 {
				t.Errorf("CheckDeclaration(Declaration()) = %v, want none", vs)
			}
		})
	}
	var nilRes *Result
	if d := nilRes.Declaration("f", ""); d.Parameters != nil || d.ParametersJsonSchema != nil {
		t.Errorf("(*Result)(nil).Declaration() has parameters, want none")
	}
}

func TestConvertValueGoTypes(t *testing.T) {
	// Values of Go types encoding/json does not produce are normalised.
	v := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"a": map[string]string{"type": "string"},
			"n": map[string]any{"type": "integer", "enum": []int{1, 2}, "minimum": 1},
			"c": map[string]any{"description": make(chan int)},
		},
	}
	res, err := ConvertValue(v, nil)
	if err != nil {
		t.Fatalf("ConvertValue error: %v", err)
	}
	want := `{"properties":{"a":{"type":"STRING"},"c":{"description":"any value; objects and arrays as JSON text","type":"STRING"},"n":{"enum":["1","2"],"type":"STRING"}},"type":"OBJECT"}`
	if got := cvOutput(t, res); got != want {
		t.Errorf("ConvertValue(Go types) = %s, want %s", got, want)
	}
	if got := res.Restorer.Restore(map[string]any{"n": "2"}); !cmp.Equal(got, any(map[string]any{"n": json.Number("2")})) {
		t.Errorf("Restore(n: 2) = %v, want json.Number 2", got)
	}
}

func TestConvertOddValues(t *testing.T) {
	// Malformed keyword values never panic and never reach the output.
	for _, in := range []string{
		`{"type":"object","properties":{"a":5,"b":{"$ref":7},"c":{"allOf":[]},"d":{"anyOf":"x"},"e":{"items":3,"type":"array"}}}`,
		`{"type":"object","properties":[1,2],"required":"a"}`,
		`{"type":7,"enum":"x","const":null}`,
		`{"type":"object","properties":{"a":{"type":["string",3,"nope"],"minLength":-1,"maxLength":1.5,"pattern":5,"format":true}}}`,
		`{"properties":{"":{"anyOf":[{"0000":"0"},{"type":"null","":{}}]}}}`,
		`{"properties":{"0":{"0000":"000000"},"":{"type":["null"]}}}`,
	} {
		for _, target := range cvTargets {
			res := cvConvert(t, in, target)
			cvAssertValid(t, res)
			cvAssertFixedPoint(t, res)
		}
	}
}

func TestConvertValueGenaiSchema(t *testing.T) {
	// A *genai.Schema (or any Go value encoding/json can marshal) converts
	// like its JSON form, and a valid one comes back unchanged.
	in := &genai.Schema{Type: genai.TypeObject, Properties: map[string]*genai.Schema{
		"a": {Type: genai.TypeString, Enum: []string{"x", "y"}},
		"n": {Type: genai.TypeInteger, Format: "int64", Nullable: genai.Ptr(true)},
	}, Required: []string{"a"}}
	res, err := ConvertValue(in, nil)
	if err != nil {
		t.Fatalf("ConvertValue error: %v", err)
	}
	if diff := cmp.Diff(in, res.Parameters); diff != "" {
		t.Errorf("ConvertValue(*genai.Schema) (-want +got):\n%s", diff)
	}
	if len(res.Changes) > 0 || !res.Restorer.Identity() {
		t.Errorf("ConvertValue(*genai.Schema) = changes %v, identity %v; want none, true", res.Changes, res.Restorer.Identity())
	}
}
