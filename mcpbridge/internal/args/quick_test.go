package args

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
)

// quickAgainstFull returns the quick check's verdict on instance under
// schema (ok false when the schema is outside the subset) and the full
// validator's error.
func quickAgainstFull(t testing.TB, schema, instance string) (quick, inSubset bool, full error) {
	t.Helper()
	s, err := Compile([]byte(schema))
	if err != nil {
		t.Skipf("schema %s does not compile: %v", schema, err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(instance)))
	if err != nil {
		t.Skipf("instance %s is not JSON: %v", instance, err)
	}
	q := quickOf(json.RawMessage(schema))
	if q == nil {
		return false, false, s.Validate(v)
	}
	return q.valid(v), true, s.Validate(v)
}

func TestQuickSchema(t *testing.T) {
	const closed = `{"type":"object","properties":{"s":{"type":"string"},"n":{"type":["integer","null"]},` +
		`"e":{"enum":["a",1,true,null]},"arr":{"type":"array","items":{"type":"number"}},` +
		`"o":{"type":"object","additionalProperties":{"type":"boolean"}}},"required":["s"],"additionalProperties":false,"description":"x"}`
	tests := []struct {
		name, schema, instance string
		inSubset, quick        bool
	}{
		{"pick valid", testserver.PickSchema, `{"size":2,"note":"x"}`, true, true},
		{"pick outside enum", testserver.PickSchema, `{"size":4}`, true, false},
		{"pick missing", testserver.PickSchema, `{"note":"x"}`, true, false},
		{"pick 2.0 unsure", testserver.PickSchema, `{"size":2.0}`, true, false},
		{"pick string", testserver.PickSchema, `{"size":"2"}`, true, false},
		{"closed valid", closed, `{"s":"x","n":null,"e":1,"arr":[1.5,2e3],"o":{"k":true}}`, true, true},
		{"closed extra", closed, `{"s":"x","z":1}`, true, false},
		{"closed wrong item", closed, `{"s":"x","arr":["1"]}`, true, false},
		{"closed wrong additional", closed, `{"s":"x","o":{"k":1}}`, true, false},
		{"closed enum true", closed, `{"s":"x","e":true}`, true, true},
		{"closed enum 1.0 unsure", closed, `{"s":"x","e":1.0}`, true, false},
		{"closed enum object", closed, `{"s":"x","e":{}}`, true, false},
		{"not an object", closed, `[1]`, true, false},
		{"raw (anyOf)", testserver.RawSchema, `{"a":"x"}`, false, false},
		{"profile (pattern)", testserver.ProfileSchema, `{"id":"u-1"}`, false, false},
		{"loose ($ref)", `{"type":"object","properties":{"x":{"$ref":"#/$defs/x"}},"$defs":{"x":{"type":"string"}}}`, `{"x":"a"}`, false, false},
		{"format", `{"type":"string","format":"email"}`, `"a"`, false, false},
		{"true schema", `true`, `{"a":1}`, true, true},
		{"false schema", `false`, `0`, false, false},
		{"false property", `{"properties":{"a":false}}`, `{}`, false, false},
		{"float enum", `{"enum":[1.5]}`, `1.5`, false, false},
		{"tuple items", `{"$schema":"http://json-schema.org/draft-07/schema#","items":[{"type":"string"}]}`, `["a"]`, false, false},
		{"no type, object keywords on a string", `{"required":["a"],"properties":{"a":{"type":"string"}}}`, `"str"`, true, true},
		{"big integer", `{"type":"integer","enum":[123456789012345678901234567890]}`, `123456789012345678901234567890`, true, true},
		{"negative zero", `{"enum":[0]}`, `-0`, true, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			quick, inSubset, full := quickAgainstFull(t, tc.schema, tc.instance)
			if inSubset != tc.inSubset || quick != tc.quick {
				t.Errorf("quick check of %s under %s = %v (in subset %v), want %v (in subset %v)",
					tc.instance, tc.schema, quick, inSubset, tc.quick, tc.inSubset)
			}
			if quick && full != nil {
				t.Errorf("quick check accepted %s under %s, but the validator says %v", tc.instance, tc.schema, full)
			}
		})
	}
}

// FuzzQuickSchema checks the one property that matters: the quick check
// never accepts arguments that the full validator rejects.
func FuzzQuickSchema(f *testing.F) {
	f.Add(testserver.PickSchema, `{"size":2}`)
	f.Add(`{"type":"object","properties":{"a":{"type":["integer","string"],"enum":[1,"x",null]}},"additionalProperties":false}`, `{"a":1}`)
	f.Add(`{"type":"array","items":{"type":"object","required":["k"]}}`, `[{"k":0}]`)
	f.Fuzz(func(t *testing.T, schema, instance string) {
		if !json.Valid([]byte(schema)) || !json.Valid([]byte(instance)) {
			return
		}
		s, err := Compile([]byte(schema))
		if err != nil {
			return
		}
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(instance)))
		if err != nil {
			return
		}
		if q := quickOf(json.RawMessage(schema)); q != nil && q.valid(v) {
			if err := s.Validate(v); err != nil {
				t.Errorf("quick check accepted %s under %s, but the validator says %v", instance, schema, err)
			}
		}
	})
}
