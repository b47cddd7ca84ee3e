package schema

import (
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// cvCompile compiles an original schema with a real JSON Schema validator.
func cvCompile(t *testing.T, schema string) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(schema))
	if err != nil {
		t.Fatalf("decoding %s: %v", schema, err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("mem://schema.json", doc); err != nil {
		t.Fatalf("AddResource(%s): %v", schema, err)
	}
	sch, err := c.Compile("mem://schema.json")
	if err != nil {
		t.Fatalf("Compile(%s): %v", schema, err)
	}
	return sch
}

// TestRestoredArgumentsValidate checks the restorer end to end: arguments a
// model writes for the converted schema fail the original schema as they
// are, and pass it once restored.
func TestRestoredArgumentsValidate(t *testing.T) {
	cases := []struct {
		name, schema, args string
	}{{
		name:   "enum with non-strings/numbers",
		schema: `{"type":"object","properties":{"n":{"type":"integer","enum":[1,2,3]}},"required":["n"]}`,
		args:   `{"n":"2"}`,
	}, {
		name:   "const/numeric const through $ref in array items",
		schema: `{"type":"object","properties":{"l":{"type":"array","items":{"$ref":"#/$defs/one"}}},"$defs":{"one":{"const":1.50}}}`,
		args:   `{"l":["1.50","1.50"]}`,
	}, {
		name:   "enum with non-strings/objects as members",
		schema: `{"type":"object","properties":{"o":{"enum":[{"a":[1,true]},"x"]}}}`,
		args:   `{"o":"{\"a\":[1,true]}"}`,
	}, {
		name:   "root not an OBJECT/wrapped array root",
		schema: `{"type":"array","items":{"type":"boolean","enum":[true]}}`,
		args:   `{"value":["true"]}`,
	}, {
		name:   "additionalProperties/a map written as JSON text",
		schema: `{"type":"object","properties":{"h":{"type":"object","additionalProperties":{"type":"integer"}}}}`,
		args:   `{"h":"{\"a\":1,\"b\":2}"}`,
	}, {
		name:   "nested/oneOf of objects with const discriminators",
		schema: `{"type":"object","properties":{"f":{"oneOf":[{"type":"object","properties":{"op":{"const":1},"a":{"type":"string"}},"required":["op"]},{"type":"object","properties":{"op":{"const":2},"b":{"type":"string"}},"required":["op","b"]}]}}}`,
		args:   `{"f":{"op":"2","b":"x"}}`,
	}}
	for _, tc := range cases {
		for _, target := range []Target{Gemini, Vertex} {
			t.Run(tc.name+"/"+target.String(), func(t *testing.T) {
				sch := cvCompile(t, tc.schema)
				args := cvDecode(t, tc.args).(map[string]any)
				if err := sch.Validate(any(args)); err == nil {
					t.Fatalf("original schema accepts the unrestored %s; the case tests nothing", tc.args)
				}
				res := cvConvert(t, tc.schema, target)
				got := res.Restorer.Restore(args)
				if err := sch.Validate(got); err != nil {
					t.Errorf("Restore(%s) = %s, which the original schema rejects: %v", tc.args, cvJSON(t, got), err)
				}
			})
		}
	}
}

func cvJSON(t *testing.T, v any) string {
	t.Helper()
	out := cvOutput(t, &Result{Target: JSONSchema, JSONSchema: map[string]any{"v": v}})
	return strings.TrimSuffix(strings.TrimPrefix(out, `{"v":`), `}`)
}

// TestJSONSchemaOutputCompiles checks that every JSONSchema-target output is
// a JSON Schema a real validator compiles.
func TestJSONSchemaOutputCompiles(t *testing.T) {
	inputs := map[string]string{
		"odd values": `{"type":"object","required":["a","a",3],"properties":{"a":{"type":"string","minLength":-1,"maxLength":2.5,"pattern":"^(?!x)","title":7},"n":{"type":"number","multipleOf":0}}}`,
	}
	for k, v := range cvFixtures {
		inputs[k] = v
	}
	for _, name := range sortedKeys(inputs) {
		t.Run(name, func(t *testing.T) {
			res := cvConvert(t, inputs[name], JSONSchema)
			cvCompile(t, cvOutput(t, res))
		})
	}
}

// FuzzJSONSchemaOutputCompiles checks that, for arbitrary JSON input, the
// JSONSchema-target output compiles with a real validator.
func FuzzJSONSchemaOutputCompiles(f *testing.F) {
	for _, name := range sortedKeys(cvFixtures) {
		f.Add([]byte(cvFixtures[name]))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		res, err := Convert(raw, &Options{Target: JSONSchema})
		if err != nil {
			return
		}
		cvCompile(t, cvOutput(t, res))
	})
}
