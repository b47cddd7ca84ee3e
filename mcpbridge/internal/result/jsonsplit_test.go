package result

import (
	"encoding/json"
	"maps"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var splitCases = []string{
	`{}`, ` { } `, `[]`, ` [ ] `, `null`, `"s"`, `12`, `true`, `{"a":1}`, `[1]`, `not json`, `{"a":1`, ``,
	`{"content":[{"type":"text","text":"size=2 (float64)"}],"isError":false}`,
	"{\n \"a\" : [ 1 , { \"b\" : \"c\\\"}]\" } ] ,\n \"d\":-1.5e+3,\"e\":null,\"f\":true }",
	`{"a":1,"a":2}`, `{"a\u0062":1,"ab":2}`, `{"\u00e9":1}`, "{\"a\xff\":1}", `{"k":"v\\"}`,
	`[{"type":"image","data":"AAAA","mimeType":"image/png"},"str",3,null,[[]],{}]`,
	`[ "a" , "b\\\"" ]`, `{"a":{"b":{"c":[1,2,{"d":"}"}]}}}`, `{"x":"]"}`, `[1,]`, `{"a":1,}`,
}

func TestObjectFields(t *testing.T) {
	for _, in := range splitCases {
		var want map[string]json.RawMessage
		wantErr := json.Unmarshal([]byte(in), &want)
		got, err := objectFields([]byte(in))
		if (err != nil) != (wantErr != nil) {
			t.Errorf("objectFields(%s) error = %v, want %v", in, err, wantErr)
			continue
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("objectFields(%s) mismatch (-want +got):\n%s", in, diff)
		}
	}
}

func TestArrayElems(t *testing.T) {
	for _, in := range splitCases {
		var want []json.RawMessage
		wantErr := json.Unmarshal([]byte(in), &want)
		got, err := arrayElems([]byte(in))
		if (err != nil) != (wantErr != nil) {
			t.Errorf("arrayElems(%s) error = %v, want %v", in, err, wantErr)
			continue
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("arrayElems(%s) mismatch (-want +got):\n%s", in, diff)
		}
	}
}

// FuzzSplitJSON checks that the fast splitters agree with encoding/json,
// also on the parts of a valid document, which validFields and validElems
// split without checking them again.
func FuzzSplitJSON(f *testing.F) {
	for _, c := range splitCases {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, in string) {
		var wantObj map[string]json.RawMessage
		objErr := json.Unmarshal([]byte(in), &wantObj)
		gotObj, err := objectFields([]byte(in))
		if (err != nil) != (objErr != nil) || (objErr == nil && !cmp.Equal(wantObj, gotObj)) {
			t.Errorf("objectFields(%q) = %q, %v, want %q, %v", in, gotObj, err, wantObj, objErr)
		}
		var wantArr []json.RawMessage
		arrErr := json.Unmarshal([]byte(in), &wantArr)
		gotArr, err := arrayElems([]byte(in))
		if (err != nil) != (arrErr != nil) || (arrErr == nil && !cmp.Equal(wantArr, gotArr)) {
			t.Errorf("arrayElems(%q) = %q, %v, want %q, %v", in, gotArr, err, wantArr, arrErr)
		}
		if !json.Valid([]byte(in)) {
			return
		}
		for _, part := range slices.Concat(slices.Collect(maps.Values(gotObj)), gotArr) {
			var wantObj map[string]json.RawMessage
			objErr := json.Unmarshal(part, &wantObj)
			if got, err := validFields(part); (err != nil) != (objErr != nil) || (objErr == nil && !cmp.Equal(wantObj, got)) {
				t.Errorf("validFields(%q) = %q, %v, want %q, %v", part, got, err, wantObj, objErr)
			}
			var wantArr []json.RawMessage
			arrErr := json.Unmarshal(part, &wantArr)
			if got, err := validElems(part); (err != nil) != (arrErr != nil) || (arrErr == nil && !cmp.Equal(wantArr, got)) {
				t.Errorf("validElems(%q) = %q, %v, want %q, %v", part, got, err, wantArr, arrErr)
			}
		}
	})
}
