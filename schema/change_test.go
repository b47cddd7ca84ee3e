package schema

import (
	"slices"
	"testing"
)

func TestChangeString(t *testing.T) {
	cases := []struct {
		c    Change
		want string
	}{
		{Change{Path: "properties.x", Keyword: "oneOf", Detail: "treated as anyOf"}, "properties.x: oneOf: treated as anyOf"},
		{Change{Keyword: "$schema", Detail: "dropped"}, "(root): $schema: dropped"},
	}
	for _, tc := range cases {
		if got := tc.c.String(); got != tc.want {
			t.Errorf("Change%+v.String() = %q, want %q", tc.c, got, tc.want)
		}
	}
}

func TestChangesUseOriginalPathsOnce(t *testing.T) {
	// A definition used three times reports its own rewrites once, at its
	// place in the original document.
	in := `{"type":"object","properties":{"a":{"$ref":"#/$defs/N"},"b":{"$ref":"#/$defs/N"},"c":{"type":"array","items":{"$ref":"#/$defs/N"}}},
		"$defs":{"N":{"type":"integer","enum":[1,2]}}}`
	res := cvConvert(t, in, Gemini)
	count := 0
	for _, c := range res.Changes {
		if c.Path == "$defs.N" && c.Keyword == "enum" {
			count++
		}
	}
	if count != 1 {
		t.Errorf("Convert(shared definition).Changes = %v, want one enum change at $defs.N", res.Changes)
	}
	for _, want := range []Change{
		{Path: "properties.a", Keyword: "$ref", Detail: `inlined "#/$defs/N"`},
		{Path: "properties.c.items", Keyword: "$ref", Detail: `inlined "#/$defs/N"`},
	} {
		if !slices.Contains(res.Changes, want) {
			t.Errorf("Convert(shared definition).Changes = %v, want %v", res.Changes, want)
		}
	}
}

func TestNoChangesForCleanSchemas(t *testing.T) {
	for _, in := range []string{
		``,
		`{"type":"object","properties":{"a":{"type":"string","description":"x"},"b":{"type":"array","items":{"type":"integer","format":"int32"}}},"required":["a"]}`,
		`{"type":"OBJECT","properties":{"e":{"type":"STRING","enum":["a","b"],"nullable":true}}}`,
	} {
		for _, target := range []Target{Gemini, Vertex} {
			if res := cvConvert(t, in, target); len(res.Changes) > 0 {
				t.Errorf("Convert(%s, %v).Changes = %v, want none", in, target, res.Changes)
			}
		}
	}
}
