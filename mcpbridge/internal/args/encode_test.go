package args

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

func TestArgsJSON(t *testing.T) {
	tests := []struct {
		name string
		args any
	}{
		{"nil", nil},
		{"empty", map[string]any{}},
		{"scalars", map[string]any{"s": "x", "b": true, "n": nil, "f": 2.0, "i": 7, "i64": int64(-9)}},
		{"floats", map[string]any{"small": 1e-7, "tiny": 5e-324, "big": 1e21, "edge": 1e-6, "neg": -123.456, "large": 12345678901234567890.0, "zero": 0.0, "negzero": math.Copysign(0, -1)}},
		{"nested", map[string]any{"a": []any{1.5, "two", map[string]any{"c": []any{}}}, "o": map[string]any{"k": false}}},
		{"invalid utf8", map[string]any{"s": "a\xffb"}},
		{"invalid utf8 key", map[string]any{"a\xff": 1.0}},
		{"json number", map[string]any{"n": json.Number("12345678901234567890"), "e": json.Number("1E+2"), "empty": json.Number("")}},
		{"other types", map[string]any{"u": uint8(3), "f32": float32(0.1), "strs": []string{"a"}}},
		{"html", map[string]any{"s": "<a&b>"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			raw, got, err := Encode(tc.args)
			if err != nil {
				t.Fatalf("Encode(%v) error: %v", tc.args, err)
			}
			wantRaw, err := json.Marshal(tc.args)
			if err != nil {
				t.Fatal(err)
			}
			want, err := jsonschema.UnmarshalJSON(bytes.NewReader(wantRaw))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(raw, wantRaw) {
				t.Errorf("Encode(%v) raw = %s, want %s", tc.args, raw, wantRaw)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Encode(%v) value mismatch (-want +got):\n%s", tc.args, diff)
			}
		})
	}
}

func TestArgsJSONErrors(t *testing.T) {
	for name, args := range map[string]any{
		"NaN":     map[string]any{"f": math.NaN()},
		"Inf":     []any{math.Inf(1)},
		"channel": map[string]any{"ch": make(chan int)},
		"number":  map[string]any{"n": json.Number("12a")},
	} {
		if _, _, err := Encode(args); err == nil {
			t.Errorf("Encode(%s) = nil error, want one", name)
		}
	}
}

func TestFloatNumberMatchesMarshal(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		f := math.Float64frombits(r.Uint64())
		if math.IsNaN(f) || math.IsInf(f, 0) {
			continue
		}
		want, err := json.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := floatNumber(f); !ok || string(got) != string(want) {
			t.Fatalf("floatNumber(%v) = %q, %v, want %s", f, got, ok, want)
		}
	}
}
