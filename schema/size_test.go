package schema

import (
	"encoding/json"
	"math"
	"testing"

	"google.golang.org/genai"
)

// TestSizeCountsAsMarshal holds the byte counts of size.go to the length
// of json.Marshal's encoding, for every byte value in a string and for
// every field of genai.Schema.
func TestSizeCountsAsMarshal(t *testing.T) {
	var all []byte
	for b := 0; b < 256; b++ {
		all = append(all, byte(b))
	}
	strs := []string{"", "plain", string(all), "é\u2028\u2029<>&\"\\\x7f", "\xff\xfe", "日本語", "\ud7ff\U0010ffff"}
	one, neg, big := 1.5, -1e-7, 1e21
	i0, i1 := int64(0), int64(-9223372036854775808)
	yes, no := true, false
	values := []any{
		nil, true, false, json.Number("12"), json.Number("-0.5e+3"), 1.25, 1e21, 123456789.0, -0.0000001,
		map[string]any(nil), []any(nil), map[string]any{}, []any{},
		map[string]any{"a": []any{json.Number("1"), "x", nil, map[string]any{"<": true}}},
	}
	for _, s := range strs {
		values = append(values, s, map[string]any{s: s})
	}
	schemas := []*genai.Schema{
		nil, {},
		{Type: genai.TypeObject, Description: string(all), Title: "t", Format: "f", Pattern: "<p>",
			Enum: []string{"a", "<"}, Required: []string{"a"}, PropertyOrdering: []string{"a", "b"},
			Properties: map[string]*genai.Schema{"a": {Type: genai.TypeString}, "b\u2028": nil},
			Default:    map[string]any{"a": "x"}, Example: []any{json.Number("1")}, Nullable: &no,
			MaxItems: &i0, MinItems: &i1, MaxLength: &i0, MinLength: &i0, MaxProperties: &i0, MinProperties: &i0,
			Maximum: &one, Minimum: &neg, AnyOf: []*genai.Schema{{Type: genai.TypeInteger, Nullable: &yes}, nil},
			Items: &genai.Schema{Maximum: &big}},
		{Enum: []string{}, Properties: map[string]*genai.Schema{}, AnyOf: []*genai.Schema{}},
	}
	for _, v := range values {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("json.Marshal(%#v): %v", v, err)
		}
		if n, ok := jsonLen(v, 0); !ok || n != len(b) {
			t.Errorf("jsonLen(%#v) = %d, %v; json.Marshal writes %d bytes: %s", v, n, ok, len(b), b)
		}
	}
	for _, s := range schemas {
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatalf("json.Marshal(%#v): %v", s, err)
		}
		if n, ok := genaiLen(s, 0); !ok || n != len(b) {
			t.Errorf("genaiLen(%#v) = %d, %v; json.Marshal writes %d bytes: %s", s, n, ok, len(b), b)
		}
	}
	// What json.Marshal refuses is not counted, so the caller's fallback
	// gives the same answer (0) as before.
	for _, v := range []any{json.Number("01"), json.Number("1."), json.Number("1e"), json.Number(""), math.NaN(), struct{}{}} {
		if _, err := json.Marshal(v); err == nil {
			if _, ok := v.(struct{}); !ok && v != json.Number("") {
				t.Errorf("json.Marshal(%#v) succeeded; the test expects it to fail", v)
			}
			continue
		}
		if n, ok := jsonLen(v, 0); ok {
			t.Errorf("jsonLen(%#v) = %d, true; want false (json.Marshal fails)", v, n)
		}
	}
}
