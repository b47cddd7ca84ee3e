package schema

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// cvRestore converts schema for target and restores args (JSON text),
// checking that args are not modified; it returns the restored value as
// JSON text.
func cvRestore(t *testing.T, schema, args string, target Target) (string, *Result) {
	t.Helper()
	res := cvConvert(t, schema, target)
	in, _ := cvDecode(t, args).(map[string]any)
	before := cvDecode(t, args)
	got := res.Restorer.Restore(in)
	if diff := cmp.Diff(before, any(in)); args != "null" && diff != "" {
		t.Errorf("Restore(%s) modified its arguments (-before +after):\n%s", args, diff)
	}
	b, err := json.Marshal(got)
	if err != nil {
		t.Fatalf("json.Marshal(Restore(%s)): %v", args, err)
	}
	return string(b), res
}

func TestRestore(t *testing.T) {
	cases := []struct {
		name, schema, args, want string
		target                   Target
	}{{
		name:   "enum with non-strings/numbers come back exactly as written",
		schema: `{"type":"object","properties":{"n":{"type":"number","enum":[5,1.5,-1,1e3,0.10]}}}`,
		args:   `{"n":"1e3"}`, want: `{"n":1e3}`,
	}, {
		name:   "enum with non-strings/1.5",
		schema: `{"type":"object","properties":{"n":{"type":"number","enum":[5,1.5,-1,1e3,0.10]}}}`,
		args:   `{"n":"0.10"}`, want: `{"n":0.10}`,
	}, {
		name:   "enum with non-strings/booleans",
		schema: `{"type":"object","properties":{"b":{"type":"boolean","enum":[true,false]}}}`,
		args:   `{"b":"false"}`, want: `{"b":false}`,
	}, {
		name:   "enum with non-strings/objects and arrays",
		schema: `{"type":"object","properties":{"o":{"enum":[{"a":1,"b":[true]},[1,"x"]]}}}`,
		args:   `{"o":"{\"a\":1,\"b\":[true]}"}`, want: `{"o":{"a":1,"b":[true]}}`,
	}, {
		name:   "enum with non-strings/mixed members with colliding text",
		schema: `{"type":"object","properties":{"m":{"enum":[1,"1",true,"true"]}}}`,
		args:   `{"m":"1 (number)"}`, want: `{"m":1}`,
	}, {
		name:   "enum with non-strings/the string member stays a string",
		schema: `{"type":"object","properties":{"m":{"enum":[1,"1",true,"true"]}}}`,
		args:   `{"m":"1"}`, want: `{"m":"1"}`,
	}, {
		name:   "merged enum branches/numeric const restored",
		schema: `{"type":"object","properties":{"k":{"oneOf":[{"const":1},{"const":"two"},{"const":true}]}}}`,
		args:   `{"k":"1"}`, want: `{"k":1}`,
	}, {
		name:   "merged enum branches/boolean const restored",
		schema: `{"type":"object","properties":{"k":{"oneOf":[{"const":1},{"const":"two"},{"const":true}]}}}`,
		args:   `{"k":"true"}`, want: `{"k":true}`,
	}, {
		name:   "merged enum branches/string member stays",
		schema: `{"type":"object","properties":{"k":{"oneOf":[{"const":1},{"const":"two"},{"const":true}]}}}`,
		args:   `{"k":"two"}`, want: `{"k":"two"}`,
	}, {
		name:   "const/numeric const",
		schema: `{"type":"object","properties":{"c":{"const":42}}}`,
		args:   `{"c":"42"}`, want: `{"c":42}`,
	}, {
		name:   "empty or null in enum/null passes through as null",
		schema: `{"type":"object","properties":{"n":{"enum":[1,null]}}}`,
		args:   `{"n":null}`, want: `{"n":null}`,
	}, {
		name:   "values matching no rewrite pass through",
		schema: `{"type":"object","properties":{"n":{"type":"integer","enum":[1,2]},"s":{"type":"string"}}}`,
		args:   `{"n":"7","s":"1","extra":{"n":"1"}}`, want: `{"extra":{"n":"1"},"n":"7","s":"1"}`,
	}, {
		name:   "nested/inside items of nested objects",
		schema: `{"type":"object","properties":{"rows":{"type":"array","items":{"type":"object","properties":{"level":{"enum":[1,2,3]},"tags":{"type":"array","items":{"enum":[true]}}}}}}}`,
		args:   `{"rows":[{"level":"2","tags":["true","x"]},{"level":"9"},"junk"]}`,
		want:   `{"rows":[{"level":2,"tags":[true,"x"]},{"level":"9"},"junk"]}`,
	}, {
		name:   "nested/anyOf picks the branch whose enum holds the value",
		schema: `{"type":"object","properties":{"v":{"anyOf":[{"type":"string","enum":["low","high"]},{"type":"integer","enum":[1,2]}]}}}`,
		args:   `{"v":"2"}`, want: `{"v":2}`,
	}, {
		name:   "nested/anyOf leaves the string branch's values alone",
		schema: `{"type":"object","properties":{"v":{"anyOf":[{"type":"string","enum":["low","high"]},{"type":"integer","enum":[1,2]}]}}}`,
		args:   `{"v":"low"}`, want: `{"v":"low"}`,
	}, {
		name: "nested/anyOf of objects picks the branch declaring the keys",
		schema: `{"type":"object","properties":{"f":{"oneOf":[{"type":"object","properties":{"op":{"const":1},"a":{"type":"string"}}},
			{"type":"object","properties":{"op":{"const":2},"b":{"type":"string"}}}]}}}`,
		args: `{"f":{"op":"2","b":"x"}}`, want: `{"f":{"b":"x","op":2}}`,
	}, {
		name:   "nested/anyOf inside an anyOf branch (enum member)",
		schema: `{"type":"object","properties":{"v":{"anyOf":[{"type":"boolean"},{"anyOf":[{"enum":[1,2]},{"type":"object","properties":{"k":{"enum":[true]}}}]}]}}}`,
		args:   `{"v":"2"}`, want: `{"v":2}`,
	}, {
		name:   "nested/anyOf inside an anyOf branch (object)",
		schema: `{"type":"object","properties":{"v":{"anyOf":[{"type":"boolean"},{"anyOf":[{"enum":[1,2]},{"type":"object","properties":{"k":{"enum":[true]}}}]}]}}}`,
		args:   `{"v":{"k":"true"}}`, want: `{"v":{"k":true}}`,
	}, {
		name:   "nested/through $ref and type arrays",
		schema: `{"type":"object","properties":{"p":{"$ref":"#/$defs/P"}},"$defs":{"P":{"type":["integer","null"],"enum":[1,2,null]}}}`,
		args:   `{"p":"1"}`, want: `{"p":1}`,
	}, {
		name:   "root not an OBJECT/a root union of objects restores every branch's enums",
		schema: `{"oneOf":[{"type":"object","properties":{"k":{"const":1},"a":{"enum":[true]}}},{"type":"object","properties":{"k":{"const":2},"b":{"type":"string"}}}]}`,
		args:   `{"k":"2","a":"true","b":"x"}`, want: `{"a":true,"b":"x","k":2}`,
	}, {
		name:   "root not an OBJECT/a root union keeps the restore of a property that differs",
		schema: `{"anyOf":[{"type":"object","properties":{"v":{"type":"string"}}},{"type":"object","properties":{"v":{"type":"integer","enum":[1]}}}]}`,
		args:   `{"v":"1"}`, want: `{"v":1}`,
	}, {
		name:   "root not an OBJECT/wrapped root is unwrapped",
		schema: `{"type":"array","items":{"type":"integer","enum":[10,20]}}`,
		args:   `{"value":["10","20","30"]}`, want: `[10,20,"30"]`,
	}, {
		name:   "root not an OBJECT/wrapped scalar root",
		schema: `{"type":"integer","enum":[3]}`,
		args:   `{"value":"3"}`, want: `3`,
	}, {
		name:   "root not an OBJECT/missing value gives null",
		schema: `{"type":"string"}`,
		args:   `{}`, want: `null`,
	}, {
		name:   "root not an OBJECT/JSONSchema target unwraps too",
		schema: `{"type":"integer","enum":[3]}`, target: JSONSchema,
		args: `{"value":3}`, want: `3`,
	}, {
		name:   "node without type/objects and arrays written as JSON text are decoded, scalars stay strings",
		schema: `{"type":"object","properties":{"a":{},"list":{"type":"array"}}}`,
		args:   `{"a":"{\"k\":[1,2.50]}","list":["1","hello","null"," [true]","{bad"]}`,
		want:   `{"a":{"k":[1,2.50]},"list":["1","hello","null",[true],"{bad"]}`,
	}, {
		name:   "additionalProperties/a map written as JSON text is decoded",
		schema: `{"type":"object","properties":{"headers":{"type":"object","additionalProperties":{"type":"string"}}}}`,
		args:   `{"headers":"{\"X-A\":\"1\"}"}`, want: `{"headers":{"X-A":"1"}}`,
	}, {
		name:   "node without type/any value sent as a plain value passes through",
		schema: `{"type":"object","properties":{"a":{}}}`,
		args:   `{"a":{"k":1}}`, want: `{"a":{"k":1}}`,
	}, {
		name:   "enum/JSONSchema target keeps enums, so nothing is restored",
		schema: `{"type":"object","properties":{"n":{"enum":[1,2]}}}`, target: JSONSchema,
		args: `{"n":"1"}`, want: `{"n":"1"}`,
	}, {
		name:   "nil arguments stay nil",
		schema: `{"type":"object","properties":{"n":{"enum":[1,2]}}}`,
		args:   `null`, want: `null`,
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := cvRestore(t, tc.schema, tc.args, tc.target)
			if diff := cmp.Diff(cvDecode(t, tc.want), cvDecode(t, got)); diff != "" {
				t.Errorf("Restore(%s) = %s, want %s (-want +got):\n%s", tc.args, got, tc.want, diff)
			}
			if got != string(cvMarshalNumbers(t, tc.want)) {
				t.Errorf("Restore(%s) = %s, want exactly %s", tc.args, got, cvMarshalNumbers(t, tc.want))
			}
		})
	}
}

// cvMarshalNumbers re-encodes JSON text keeping numbers as written.
func cvMarshalNumbers(t *testing.T, s string) []byte {
	t.Helper()
	b, err := json.Marshal(cvDecode(t, s))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRestoreRoundTrip checks, for every member v of many enums, that the
// string the model sees for v restores to exactly v.
func TestRestoreRoundTrip(t *testing.T) {
	enums := []string{
		`[1,2,3]`,
		`[1.5,-1,1e3,0,-0.0,12345678901234567890]`,
		`[true,false]`,
		`[{"a":1},{"a":"1"},[1,2],[],{}]`,
		`[1,"1",true,"true",null,"x",{"b":[null]},2.0,"2.0"]`,
		`["a","b"]`,
	}
	for _, target := range []Target{Gemini, Vertex} {
		for _, e := range enums {
			t.Run(target.String()+"/"+e, func(t *testing.T) {
				schema := `{"type":"object","properties":{"e":{"enum":` + e + `}}}`
				res := cvConvert(t, schema, target)
				members := cvDecode(t, e).([]any)
				texts := res.Parameters.Properties["e"].Enum
				var kept []any
				for _, m := range members {
					if m != nil && m != "" {
						kept = append(kept, m)
					}
				}
				if len(texts) != len(kept) {
					t.Fatalf("Convert(enum %s).Enum = %q, want %d members", e, texts, len(kept))
				}
				for i, text := range texts {
					got := res.Restorer.Restore(map[string]any{"e": text})
					want := map[string]any{"e": kept[i]}
					if diff := cmp.Diff(want, got); diff != "" {
						t.Errorf("Restore(%q) (-want +got):\n%s", text, diff)
					}
				}
			})
		}
	}
}

func TestRestoreFromDecodedFloats(t *testing.T) {
	// ConvertValue with float64 numbers restores float64 values.
	var v any
	if err := json.Unmarshal([]byte(`{"type":"object","properties":{"n":{"enum":[5,2.5]}}}`), &v); err != nil {
		t.Fatal(err)
	}
	res, err := ConvertValue(v, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := res.Restorer.Restore(map[string]any{"n": "2.5"})
	if diff := cmp.Diff(map[string]any{"n": 2.5}, got); diff != "" {
		t.Errorf("Restore(2.5) (-want +got):\n%s", diff)
	}
}

func TestRestoreResultIsIndependent(t *testing.T) {
	res := cvConvert(t, `{"type":"object","properties":{"o":{"enum":[{"a":[1]}]}}}`, Gemini)
	first := res.Restorer.Restore(map[string]any{"o": `{"a":[1]}`}).(map[string]any)
	first["o"].(map[string]any)["a"] = "scribbled"
	second := res.Restorer.Restore(map[string]any{"o": `{"a":[1]}`})
	if diff := cmp.Diff(map[string]any{"o": map[string]any{"a": []any{json.Number("1")}}}, second); diff != "" {
		t.Errorf("Restore after editing an earlier result (-want +got):\n%s", diff)
	}
}

func TestRestorerIdentity(t *testing.T) {
	cases := []struct {
		schema string
		target Target
		want   bool
	}{
		{`{"type":"object","properties":{"a":{"type":"string","enum":["x"]}}}`, Gemini, true},
		{`{"type":"object","properties":{"a":{"type":"integer","enum":[1]}}}`, Gemini, false},
		{`{"type":"object","properties":{"a":{"type":"array","items":{"const":true}}}}`, Vertex, false},
		{`{"type":"object","properties":{"a":{}}}`, Gemini, false},
		{`{"type":"object","properties":{"a":{"type":"integer","enum":[1]}}}`, JSONSchema, true},
		{`{"type":"string"}`, JSONSchema, false},
		{``, Gemini, true},
	}
	for _, tc := range cases {
		res := cvConvert(t, tc.schema, tc.target)
		if got := res.Restorer.Identity(); got != tc.want {
			t.Errorf("Convert(%s, %v).Restorer.Identity() = %v, want %v", tc.schema, tc.target, got, tc.want)
		}
	}
	var r *Restorer
	if !r.Identity() {
		t.Errorf("(*Restorer)(nil).Identity() = false, want true")
	}
	args := map[string]any{"a": "1"}
	if got := r.Restore(args); !cmp.Equal(got, any(args)) {
		t.Errorf("(*Restorer)(nil).Restore(%v) = %v, want the arguments", args, got)
	}
	var zero Restorer
	if got := zero.Restore(args); !cmp.Equal(got, any(args)) || !zero.Identity() {
		t.Errorf("Restorer{}.Restore(%v) = %v, want the arguments", args, got)
	}
}
