package schema

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// discriminated is a property "op" holding a union of objects that share
// the names "kind" and "n", told apart by kind's const.
const discriminated = `{"type":"object","properties":{"op":{"oneOf":[
	{"type":"object","properties":{"kind":{"const":"a"},"n":{"type":"integer","enum":[1,2]}},"required":["kind"]},
	{"type":"object","properties":{"kind":{"const":"b"},"n":{"type":"string","enum":["1","2"]}},"required":["kind"]},
	{"type":"object","properties":{"kind":{"const":"c"},"n":{"type":"object","additionalProperties":true}},"required":["kind"]}]}}}`

func TestRestoreChoosesBranch(t *testing.T) {
	cases := []struct {
		name, schema, args, want string
	}{{
		name:   "discriminator const picks the branch/first",
		schema: discriminated,
		args:   `{"op":{"kind":"a","n":"1"}}`, want: `{"op":{"kind":"a","n":1}}`,
	}, {
		name:   "discriminator const picks the branch/second keeps the string",
		schema: discriminated,
		args:   `{"op":{"kind":"b","n":"1"}}`, want: `{"op":{"kind":"b","n":"1"}}`,
	}, {
		name:   "discriminator const picks the branch/third decodes JSON text",
		schema: discriminated,
		args:   `{"op":{"kind":"c","n":"{\"x\":1}"}}`, want: `{"op":{"kind":"c","n":{"x":1}}}`,
	}, {
		name:   "no discriminator: the enum the value is in wins",
		schema: `{"type":"object","properties":{"v":{"anyOf":[{"type":"object","properties":{"n":{"enum":[1,2]}}},{"type":"object","properties":{"n":{"enum":[true]}}}]}}}`,
		args:   `{"v":{"n":"true"}}`, want: `{"v":{"n":true}}`,
	}, {
		name:   "required names decide when enums do not",
		schema: `{"type":"object","properties":{"v":{"anyOf":[{"type":"object","properties":{"a":{"type":"string"},"n":{"enum":[1]}},"required":["a"]},{"type":"object","properties":{"b":{"type":"string"},"n":{"type":"object","additionalProperties":true}},"required":["b"]}]}}}`,
		args:   `{"v":{"b":"x","n":"{}"}}`, want: `{"v":{"b":"x","n":{}}}`,
	}, {
		name:   "types decide when required names do not",
		schema: `{"type":"object","properties":{"v":{"anyOf":[{"type":"object","properties":{"a":{"type":"integer"},"n":{"enum":[1]}}},{"type":"object","properties":{"a":{"type":"string"},"n":{"type":"object","additionalProperties":true}}}]}}}`,
		args:   `{"v":{"a":"text","n":"{\"k\":2}"}}`, want: `{"v":{"a":"text","n":{"k":2}}}`,
	}, {
		name:   "string enum beside a free object/member stays",
		schema: `{"type":"object","properties":{"f":{"anyOf":[{"type":"string","enum":["id","name"]},{"type":"object","additionalProperties":true}]}}}`,
		args:   `{"f":"id"}`, want: `{"f":"id"}`,
	}, {
		name:   "string enum beside a free object/JSON object text is decoded",
		schema: `{"type":"object","properties":{"f":{"anyOf":[{"type":"string","enum":["id","name"]},{"type":"object","additionalProperties":true}]}}}`,
		args:   `{"f":"{\"expand\":true}"}`, want: `{"f":{"expand":true}}`,
	}, {
		name:   "string enum beside a free object/other text stays a string",
		schema: `{"type":"object","properties":{"f":{"anyOf":[{"type":"string","enum":["id","name"]},{"type":"object","additionalProperties":true}]}}}`,
		args:   `{"f":"other"}`, want: `{"f":"other"}`,
	}, {
		name:   "string or free object/object text is decoded",
		schema: `{"type":"object","properties":{"f":{"anyOf":[{"type":"string"},{"type":"object","additionalProperties":true}]}}}`,
		args:   `{"f":"{\"a\":1}"}`, want: `{"f":{"a":1}}`,
	}, {
		name:   "string or free object/other text stays",
		schema: `{"type":"object","properties":{"f":{"anyOf":[{"type":"string"},{"type":"object","additionalProperties":true}]}}}`,
		args:   `{"f":"hello"}`, want: `{"f":"hello"}`,
	}, {
		name:   "any value or string/text stays a string whatever the order",
		schema: `{"type":"object","properties":{"f":{"anyOf":[{},{"type":"string"}]}}}`,
		args:   `{"f":"[1]"}`, want: `{"f":"[1]"}`,
	}, {
		name:   "root union of objects/the discriminator picks the branch",
		schema: `{"oneOf":[{"type":"object","properties":{"kind":{"const":"a"},"n":{"type":"integer","enum":[1]}},"required":["kind"]},{"type":"object","properties":{"kind":{"const":"b"},"n":{"type":"string","enum":["1"]}},"required":["kind"]}]}`,
		args:   `{"kind":"b","n":"1"}`, want: `{"kind":"b","n":"1"}`,
	}, {
		name:   "root union of objects/the other branch",
		schema: `{"oneOf":[{"type":"object","properties":{"kind":{"const":"a"},"n":{"type":"integer","enum":[1]}},"required":["kind"]},{"type":"object","properties":{"kind":{"const":"b"},"n":{"type":"string","enum":["1"]}},"required":["kind"]}]}`,
		args:   `{"kind":"a","n":"1"}`, want: `{"kind":"a","n":1}`,
	}, {
		name:   "maps/values restored by an enum of consts",
		schema: `{"type":"object","properties":{"sort":{"type":"object","additionalProperties":{"anyOf":[{"const":1},{"const":-1},{"enum":["asc","desc"]}]}}}}`,
		args:   `{"sort":"{\"a\":\"1\",\"b\":\"-1\",\"c\":\"asc\",\"d\":-1}"}`, want: `{"sort":{"a":1,"b":-1,"c":"asc","d":-1}}`,
	}, {
		name:   "maps/text for integer, number and boolean values",
		schema: `{"type":"object","properties":{"i":{"type":"object","additionalProperties":{"type":"integer"}},"n":{"type":"object","additionalProperties":{"type":"number"}},"b":{"type":"object","additionalProperties":{"type":"boolean"}}}}`,
		args:   `{"i":"{\"a\":\"1\",\"b\":\"1.5\",\"c\":\"x\"}","n":"{\"a\":\"1.5\",\"b\":\"1e400x\"}","b":"{\"a\":\"true\",\"b\":\"no\"}"}`,
		want:   `{"b":{"a":true,"b":"no"},"i":{"a":1,"b":"1.5","c":"x"},"n":{"a":1.5,"b":"1e400x"}}`,
	}, {
		name:   "maps/a string value schema keeps text",
		schema: `{"type":"object","properties":{"m":{"type":"object","additionalProperties":{"type":["string","integer"]}}}}`,
		args:   `{"m":"{\"a\":\"1\"}"}`, want: `{"m":{"a":"1"}}`,
	}, {
		name:   "maps/nested object values",
		schema: `{"type":"object","properties":{"m":{"type":"object","additionalProperties":{"type":"object","properties":{"w":{"type":"integer"},"e":{"enum":[1,2]}}}}}}`,
		args:   `{"m":"{\"a\":{\"w\":\"3\",\"e\":\"2\"}}"}`, want: `{"m":{"a":{"e":2,"w":3}}}`,
	}, {
		name:   "tuples/by position",
		schema: `{"type":"object","properties":{"t":{"type":"array","prefixItems":[{"type":"string"},{"enum":[1,2]},{"type":"boolean"}]}}}`,
		args:   `{"t":["1","1",true,"1"]}`, want: `{"t":["1",1,true,"1"]}`,
	}, {
		name:   "tuples/elements after the positions follow items",
		schema: `{"type":"object","properties":{"t":{"type":"array","prefixItems":[{"type":"string"}],"items":{"enum":[1,2]}}}}`,
		args:   `{"t":["1","1","2"]}`, want: `{"t":["1",1,2]}`,
	}, {
		name:   "tuples/draft-04 items list and additionalItems",
		schema: `{"type":"object","properties":{"t":{"type":"array","items":[{"enum":[5]},{"type":"string"}],"additionalItems":{"enum":[true]}}}}`,
		args:   `{"t":["5","5","true"]}`, want: `{"t":[5,"5",true]}`,
	}}
	for _, tc := range cases {
		for _, target := range []Target{Gemini, Vertex} {
			t.Run(tc.name+"/"+target.String(), func(t *testing.T) {
				got, _ := cvRestore(t, tc.schema, tc.args, target)
				if diff := cmp.Diff(cvDecode(t, tc.want), cvDecode(t, got)); diff != "" {
					t.Errorf("Restore(%s) = %s, want %s (-want +got):\n%s", tc.args, got, tc.want, diff)
				}
			})
		}
	}
}

func TestMismatchesAmbiguous(t *testing.T) {
	// Both branches take {"n": "1"} equally; the first restores 1, the
	// second keeps "1".
	const tied = `{"type":"object","properties":{"v":{"anyOf":[
		{"type":"object","properties":{"n":{"enum":[1,2]}}},
		{"type":"object","properties":{"n":{"enum":["1",5]}}}]}}}`
	tests := []struct {
		name, schema, args string
		want               []Mismatch
		restored           string
	}{
		{"tie that changes the result is reported", tied, `{"v":{"n":"1"}}`,
			[]Mismatch{{Path: []string{"v"}, Branches: []int{0, 1}}}, `{"v":{"n":1}}`},
		{"a member of one branch only is clear", tied, `{"v":{"n":"2"}}`, nil, `{"v":{"n":2}}`},
		{"a tie that restores the same is not reported",
			`{"type":"object","properties":{"v":{"anyOf":[{"type":"object","properties":{"n":{"enum":[1]},"a":{"type":"string"}}},{"type":"object","properties":{"n":{"enum":[1]},"b":{"type":"integer"}}}]}}}`,
			`{"v":{"n":"1"}}`, nil, `{"v":{"n":1}}`},
		{"any value or string is clear", `{"type":"object","properties":{"f":{"anyOf":[{},{"type":"string"}]}}}`,
			`{"f":"[1]"}`, nil, `{"f":"[1]"}`},
		{"discriminated union is clear", discriminated, `{"op":{"kind":"b","n":"1"}}`, nil, `{"op":{"kind":"b","n":"1"}}`},
		{"enum misses inside map values", `{"type":"object","properties":{"m":{"type":"object","additionalProperties":{"enum":[1,-1]}}}}`,
			`{"m":"{\"a\":\"2\"}"}`, []Mismatch{{Path: []string{"m", "a"}, Value: "2", Allowed: []string{"1", "-1"}}}, `{"m":{"a":"2"}}`},
		{"enum misses at tuple positions", `{"type":"object","properties":{"t":{"type":"array","prefixItems":[{"type":"string"},{"enum":[1,2]}]}}}`,
			`{"t":["9","9"]}`, []Mismatch{{Path: []string{"t", "1"}, Value: "9", Allowed: []string{"1", "2"}}}, `{"t":["9","9"]}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, res := cvRestore(t, tc.schema, tc.args, Gemini)
			if diff := cmp.Diff(cvDecode(t, tc.restored), cvDecode(t, got)); diff != "" {
				t.Errorf("Restore(%s) = %s, want %s", tc.args, got, tc.restored)
			}
			var restored any
			if err := json.Unmarshal([]byte(got), &restored); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, res.Restorer.Mismatches(restored)); diff != "" {
				t.Errorf("Mismatches(%s) (-want +got):\n%s", got, diff)
			}
		})
	}
}

func TestMismatchDetailBranches(t *testing.T) {
	tests := []struct {
		m    Mismatch
		want string
	}{
		{Mismatch{Path: []string{"v"}, Branches: []int{0, 2}},
			"v: fits anyOf[0] and anyOf[2] equally, which restore it differently: restored by anyOf[0]"},
		{Mismatch{Branches: []int{1, 2, 3}},
			"(root): fits anyOf[1], anyOf[2] and anyOf[3] equally, which restore it differently: restored by anyOf[1]"},
	}
	for _, tc := range tests {
		if got := tc.m.String(); got != tc.want {
			t.Errorf("%+v.String() = %q, want %q", tc.m, got, tc.want)
		}
	}
}

func TestFitRanking(t *testing.T) {
	// Each pair: the first fit must rank above the second.
	pairs := []struct {
		name        string
		better, not fit
	}{
		{"a type that fits beats one that does not", fit{typeMiss: 5}, fit{excluded: true}},
		{"enum misses count first", fit{reqMiss: 3}, fit{enumMiss: 1}},
		{"then enum hits", fit{enumHit: 1, reqMiss: 2}, fit{}},
		{"then required names", fit{typeMiss: 2}, fit{reqMiss: 1}},
		{"then types", fit{unknown: 3}, fit{typeMiss: 1}},
		{"then unknown keys", fit{known: 0}, fit{unknown: 1}},
		{"then known keys", fit{known: 2}, fit{known: 1}},
	}
	for _, p := range pairs {
		if !p.better.better(p.not) || p.not.better(p.better) {
			t.Errorf("%s: %+v.better(%+v) = %v, reverse %v; want true, false", p.name, p.better, p.not,
				p.better.better(p.not), p.not.better(p.better))
		}
	}
}
