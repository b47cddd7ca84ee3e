package args

import (
	"encoding/json"
	"maps"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestWithoutOptionalNulls(t *testing.T) {
	const schema = `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"boolean"},"c":{"type":["string","null"]}},"required":["a"]}`
	for _, tc := range []struct {
		name    string
		in      map[string]any
		want    map[string]any
		removed bool
	}{
		{"optional null", map[string]any{"a": "x", "b": nil}, map[string]any{"a": "x"}, true},
		{"required null kept", map[string]any{"a": nil}, map[string]any{"a": nil}, false},
		{"values kept", map[string]any{"a": "x", "b": true}, map[string]any{"a": "x", "b": true}, false},
		{"every optional null", map[string]any{"a": "x", "b": nil, "c": nil, "zz": nil}, map[string]any{"a": "x"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := NewSchema(json.RawMessage(schema), nil, nil)
			in := maps.Clone(tc.in)
			got, removed := s.WithoutOptionalNulls(in)
			if removed != tc.removed {
				t.Errorf("removed = %v, want %v", removed, tc.removed)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("WithoutOptionalNulls(%v) (-want +got):\n%s", tc.in, diff)
			}
			if diff := cmp.Diff(tc.in, in); diff != "" {
				t.Errorf("the input was modified (-before +after):\n%s", diff)
			}
		})
	}
}

// FuzzWithoutOptionalNulls: for any schema and arguments, the result keeps
// every member that is not null or is required, removes only nulls, and
// leaves the input as it was.
func FuzzWithoutOptionalNulls(f *testing.F) {
	f.Add(`{"required":["a"]}`, `{"a":null,"b":null,"c":1}`)
	f.Add(`{"required":[1,"b",null]}`, `{"b":null}`)
	f.Add(`{"required":"a"}`, `{"a":null}`)
	f.Add(`[]`, `{"x":null}`)
	f.Fuzz(func(t *testing.T, schema, args string) {
		_, v, err := Encode(json.RawMessage(args))
		if err != nil {
			return
		}
		m, isMap := v.(map[string]any)
		var before map[string]any
		if isMap {
			before = maps.Clone(m)
		}
		s := NewSchema(json.RawMessage(schema), nil, nil)
		got, removed := s.WithoutOptionalNulls(v)
		if !isMap {
			if removed {
				t.Fatalf("removed members of a non-object %s", args)
			}
			return
		}
		out := got.(map[string]any)
		if !reflect.DeepEqual(m, before) {
			t.Fatalf("input modified")
		}
		for k, val := range m {
			_, kept := out[k]
			if !kept && (val != nil || s.rootRequired()[k]) {
				t.Fatalf("removed %q = %v", k, val)
			}
		}
		if removed != (len(out) < len(m)) {
			t.Fatalf("removed = %v, but %d of %d members kept", removed, len(out), len(m))
		}
	})
}
