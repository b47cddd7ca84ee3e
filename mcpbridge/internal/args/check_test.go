package args

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestCheckArgs(t *testing.T) {
	cyclicMap := map[string]any{"a": 1.0}
	cyclicMap["self"] = map[string]any{"back": cyclicMap}
	cyclicSlice := []any{1.0, nil}
	cyclicSlice[1] = cyclicSlice
	type node struct {
		Next *node
		Tags map[string]string
	}
	loop := &node{}
	loop.Next = &node{Next: loop}
	shared := map[string]any{"x": 1.0}
	deep := map[string]any{}
	for cur, i := deep, 0; i < maxArgsDepth+5; i++ {
		next := map[string]any{}
		cur["d"] = next
		cur = next
	}
	arr := make([]any, 4)
	many := make([]any, MaxBytes/valueCost+1)
	type label string
	tests := []struct {
		name string
		args any
		want string // "" = nil error
	}{
		{"nil", nil, ""},
		{"plain", map[string]any{"a": []any{1.0, "x", map[string]any{"b": true}}}, ""},
		{"shared value twice is not a cycle", map[string]any{"a": shared, "b": []any{shared, shared}}, ""},
		{"windows of one array", map[string]any{"a": arr[:2], "b": []any{arr[:3]}}, ""},
		{"typed", map[string]any{"n": &node{Tags: map[string]string{"k": "v"}}}, ""},
		{"cyclic map", cyclicMap, "a value that contains itself at '/self/back'"},
		{"cyclic slice", map[string]any{"list": cyclicSlice}, "a value that contains itself at '/list/1'"},
		{"cyclic pointers", map[string]any{"n": loop}, "a value that contains itself at '/n/Next/Next'"},
		{"too deep", deep, "nested more than 10000 levels deep at '…/d/d/d"},
		{"a string at the bound", map[string]any{"s": strings.Repeat("x", MaxBytes-valueCost-1)}, ""},
		{"one long string", map[string]any{"s": strings.Repeat("x", MaxBytes)}, "arguments of more than 8388608 bytes"},
		{"long strings in a list", map[string]any{"l": []any{strings.Repeat("x", MaxBytes/2), strings.Repeat("x", MaxBytes/2)}}, "arguments of more than 8388608 bytes"},
		{"many small values", map[string]any{"l": many}, "arguments of more than 8388608 bytes"},
		{"long keys", map[string]any{strings.Repeat("k", MaxBytes): 1.0}, "arguments of more than 8388608 bytes"},
		{"typed strings", map[string]any{"t": []label{label(strings.Repeat("x", MaxBytes))}}, "arguments of more than 8388608 bytes"},
		{"bytes", map[string]any{"b": make([]byte, MaxBytes+1)}, "arguments of more than 8388608 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Check(tt.args)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if tt.want == "" && got != "" || !strings.HasPrefix(got, tt.want) {
				t.Errorf("Check() = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestCheckArgsFlatAllocs: the usual arguments (a map of strings, numbers,
// booleans and nulls) are checked without allocating.
func TestCheckArgsFlatAllocs(t *testing.T) {
	args := map[string]any{"s": "x", "f": 2.0, "b": true, "n": nil, "i": 3}
	if n := testing.AllocsPerRun(100, func() {
		if err := Check(args); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("Check(flat) = %v allocations, want 0", n)
	}
}

// FuzzCheck: on any JSON value, Check never panics, and a value it
// accepts encodes.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{`{"a":[1,"x",{"b":true}]}`, `[[[[]]]]`, `"x"`, `{"":null}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var v any
		if json.Unmarshal(b, &v) != nil {
			return
		}
		if err := Check(v); err != nil {
			return
		}
		if _, _, err := Encode(v); err != nil {
			t.Fatalf("Check(%s) = nil, but Encode fails: %v", b, err)
		}
	})
}
