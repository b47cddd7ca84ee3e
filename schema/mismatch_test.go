package schema

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMismatches(t *testing.T) {
	tests := []struct {
		name, schema, args string
		target             Target
		want               []string // Mismatch.String() of each
	}{
		{"stringified integer enum", `{"type":"object","properties":{"priority":{"type":"integer","enum":[1,2,3]}}}`,
			`{"priority":"7"}`, Gemini, []string{`priority: "7" is not one of "1", "2", "3"`}},
		{"member is fine", `{"type":"object","properties":{"priority":{"type":"integer","enum":[1,2,3]}}}`,
			`{"priority":"2"}`, Gemini, nil},
		{"string enums are left to the validator", `{"type":"object","properties":{"s":{"enum":["a","b"]}}}`,
			`{"s":"c"}`, Gemini, nil},
		{"mixed enum lists every member as shown", `{"type":"object","properties":{"m":{"enum":["a",1,true]}}}`,
			`{"m":"x"}`, Gemini, []string{`m: "x" is not one of "a", "1", "true"`}},
		{"inside arrays and objects", `{"type":"object","properties":{"l":{"type":"array","items":{"type":"object","properties":{"n":{"enum":[1,2]}}}}}}`,
			`{"l":[{"n":"1"},{"n":"9"}]}`, Gemini, []string{`l.1.n: "9" is not one of "1", "2"`}},
		{"const branches merged into one enum", `{"type":"object","properties":{"k":{"oneOf":[{"const":1},{"const":2}]}}}`,
			`{"k":"3"}`, Vertex, []string{`k: "3" is not one of "1", "2"`}},
		{"anyOf of enums", `{"type":"object","properties":{"k":{"anyOf":[{"enum":[1,2]},{"type":"object","properties":{"a":{"type":"string"}}}]}}}`,
			`{"k":"3"}`, Gemini, []string{`k: "3" is not one of "1", "2"`}},
		{"anyOf with a plain string branch may take any string", `{"type":"object","properties":{"k":{"anyOf":[{"enum":[1,2]},{"type":"string"}]}}}`,
			`{"k":"3"}`, Gemini, nil},
		{"wrapped root", `{"enum":[1,2]}`, `{"value":"5"}`, Gemini, []string{`(root): "5" is not one of "1", "2"`}},
		{"JSONSchema target keeps enums: nothing to report", `{"type":"object","properties":{"p":{"enum":[1,2]}}}`,
			`{"p":"7"}`, JSONSchema, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := cvConvert(t, tc.schema, tc.target)
			var args map[string]any
			if err := json.Unmarshal([]byte(tc.args), &args); err != nil {
				t.Fatal(err)
			}
			restored := res.Restorer.Restore(args)
			var got []string
			for _, m := range res.Restorer.Mismatches(restored) {
				got = append(got, m.String())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Mismatches(Restore(%s)) for %s (-want +got):\n%s", tc.args, tc.schema, diff)
			}
		})
	}
	var nilRestorer *Restorer
	if got := nilRestorer.Mismatches(map[string]any{"a": "b"}); got != nil {
		t.Errorf("(*Restorer)(nil).Mismatches = %v, want nil", got)
	}
}

func TestMismatchDetail(t *testing.T) {
	m := Mismatch{Path: []string{"a", "0"}, Value: `say "hi"`, Allowed: []string{"x"}}
	if got, want := m.Detail(), `"say \"hi\"" is not one of "x"`; got != want {
		t.Errorf("Mismatch.Detail() = %q, want %q", got, want)
	}
	if got, want := m.String(), `a.0: "say \"hi\"" is not one of "x"`; got != want {
		t.Errorf("Mismatch.String() = %q, want %q", got, want)
	}
}
