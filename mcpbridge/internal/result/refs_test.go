package result

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func decodeJSON(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("decoding %s: %v", s, err)
	}
	return v
}

func TestEscapeRefs(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"scalar", `"$ref"`, `"$ref"`},
		{"top", `{"$ref":"#/x"}`, `{"_$ref":"#/x"}`},
		{"family", `{"$ref":1,"_$ref":2,"__$ref":3}`, `{"_$ref":1,"__$ref":2,"___$ref":3}`},
		{"lookalikes", `{"$refs":1,"x$ref":2,"$REF":3,"_$ref_":4,"ref":5}`, `{"$refs":1,"x$ref":2,"$REF":3,"_$ref_":4,"ref":5}`},
		{"in array", `[{"$ref":1},[{"$ref":2}]]`, `[{"_$ref":1},[{"_$ref":2}]]`},
		{"deep", `{"a":{"b":[{"c":{"d":[[{"$ref":{"$ref":null}}]]}}]}}`, `{"a":{"b":[{"c":{"d":[[{"_$ref":{"_$ref":null}}]]}}]}}`},
		{"value untouched", `{"k":"$ref","l":["$ref"]}`, `{"k":"$ref","l":["$ref"]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := decodeJSON(t, tt.in)
			before := decodeJSON(t, tt.in)
			got := EscapeRefs(in)
			if diff := cmp.Diff(decodeJSON(t, tt.want), got); diff != "" {
				t.Errorf("EscapeRefs(%s) (-want +got):\n%s", tt.in, diff)
			}
			if diff := cmp.Diff(before, in); diff != "" {
				t.Errorf("EscapeRefs(%s) modified its input (-before +after):\n%s", tt.in, diff)
			}
		})
	}
}
