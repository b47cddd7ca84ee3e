package schema

import "testing"

func TestTargetNames(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Target
	}{{"gemini", Gemini}, {"", Gemini}, {" Vertex ", Vertex}, {"JSONSCHEMA", JSONSchema}} {
		got, err := ParseTarget(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseTarget(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
		if back, _ := ParseTarget(got.String()); back != got {
			t.Errorf("ParseTarget(%v.String()) = %v, want %v", got, back, got)
		}
	}
	if _, err := ParseTarget("openai"); err == nil {
		t.Errorf("ParseTarget(openai) error = nil, want an error")
	}
	if got := Target(9).String(); got != "Target(9)" {
		t.Errorf("Target(9).String() = %q, want Target(9)", got)
	}
}
