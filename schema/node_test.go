package schema

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestClone(t *testing.T) {
	in := map[string]any{"a": []any{1.5, json.Number("2"), map[string]any{"b": true}}, "c": nil}
	out := clone(in).(map[string]any)
	if diff := cmp.Diff(any(in), any(out)); diff != "" {
		t.Fatalf("clone() differs (-in +out):\n%s", diff)
	}
	out["a"].([]any)[2].(map[string]any)["b"] = false
	if in["a"].([]any)[2].(map[string]any)["b"] != true {
		t.Errorf("editing clone() changed the original")
	}
	// Go types encoding/json does not produce are normalised.
	got := clone(map[string]any{"l": []string{"x"}, "n": 3, "bad": func() {}})
	want := map[string]any{"l": []any{"x"}, "n": json.Number("3"), "bad": nil}
	if diff := cmp.Diff(any(want), got); diff != "" {
		t.Errorf("clone(Go types) (-want +got):\n%s", diff)
	}
}

func TestNodeCopiesAreIndependent(t *testing.T) {
	n := &node{origin: "x", kw: map[string]any{"type": "string", "minLength": json.Number("1")}}
	m := n.with("maxLength", json.Number("2")).without("minLength")
	if n.has("maxLength") || !n.has("minLength") {
		t.Errorf("with/without modified the original node: %v", n.kw)
	}
	if !m.has("maxLength") || m.has("minLength") || m.origin != "x" {
		t.Errorf("with/without = %v (origin %q), want maxLength only, origin x", m.kw, m.origin)
	}
}

func TestPointers(t *testing.T) {
	doc := map[string]any{"a/b": map[string]any{"~c": 1.0}, "l": []any{"x", "y"}, "": "empty"}
	cases := []struct {
		ptr  string
		want any
	}{
		{"", doc},
		{"/a~1b/~0c", 1.0},
		{"/l/1", "y"},
		{"/l/2", nil},
		{"/l/-1", nil},
		{"/missing", nil},
		{"/", "empty"},
	}
	for _, tc := range cases {
		if got := walkPointer(doc, tc.ptr); !cmp.Equal(got, tc.want) {
			t.Errorf("walkPointer(%q) = %v, want %v", tc.ptr, got, tc.want)
		}
	}
	if got := pointerOrigin("/$defs/a~1b"); got != "$defs.a/b" {
		t.Errorf("pointerOrigin(/$defs/a~1b) = %q, want $defs.a/b", got)
	}
}
