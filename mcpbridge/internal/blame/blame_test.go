package blame

import (
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"
)

func TestBadRequest(t *testing.T) {
	bad := genai.APIError{Code: 400, Message: "invalid", Status: "INVALID_ARGUMENT"}
	tests := []struct {
		name string
		err  error
		ok   bool
	}{
		{"value", bad, true},
		{"pointer", &bad, true},
		{"wrapped value", fmt.Errorf("generating: %w", bad), true},
		{"wrapped pointer", fmt.Errorf("generating: %w", &bad), true},
		{"other code", genai.APIError{Code: 429, Message: "slow down"}, false},
		{"nil pointer", (*genai.APIError)(nil), false},
		{"not an API error", errors.New("invalid"), false},
		{"nil", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := BadRequest(tt.err)
			want := genai.APIError{}
			if tt.ok {
				want = bad
			}
			if ok != tt.ok || !cmp.Equal(got, want) {
				t.Errorf("BadRequest(%v) = %+v, %t, want %+v, %t", tt.err, got, ok, want, tt.ok)
			}
		})
	}
}

func TestDeclarations(t *testing.T) {
	tools := []*genai.Tool{
		{GoogleSearch: &genai.GoogleSearch{}},
		{FunctionDeclarations: []*genai.FunctionDeclaration{{Name: "a"}, {Name: "b"}, {Name: "c"}}},
	}
	tests := []struct {
		msg  string
		want []string
	}{
		{"* GenerateContentRequest.tools[1].function_declarations[2].parameters.properties[x].enum: only allowed for STRING type\n", []string{"c"}},
		{`Invalid JSON payload received. Unknown name "foo" at 'tools[1].function_declarations[0].parameters': Cannot find field.`, []string{"a"}},
		{`Unknown name "x" at 'tools[1].functionDeclarations[1].parameters'`, []string{"b"}},
		{"* GenerateContentRequest.tools[1].function_declarations[1].name: x\n* GenerateContentRequest.tools[1].function_declarations[1].parameters: y\n* GenerateContentRequest.tools[1].function_declarations[0].parameters: z\n", []string{"b", "a"}},
		{"The function declaration `b` has an invalid schema; function declaration 'c' too", []string{"b", "c"}},
		{`Function declaration named "a" is invalid`, []string{"a"}},
		{"tools[1].function_declarations[9].name: out of range", nil},
		{"tools[0].function_declarations[0]: not a function tool", nil},
		{"tools[99999999999999999999].function_declarations[0]: too big to be an index", nil},
		{"function declaration \"zz\" is unknown", nil},
		{"A FunctionDeclaration in the request exceeds the maximum allowed nesting depth.", nil},
		{"Request contains an invalid argument.", nil},
	}
	for _, tc := range tests {
		if diff := cmp.Diff(tc.want, Declarations(tc.msg, tools)); diff != "" {
			t.Errorf("Declarations(%q) mismatch (-want +got):\n%s", tc.msg, diff)
		}
	}
}

// FuzzDeclarations: any message, however it is worded, gives names of
// declarations the request holds, each once, and never panics.
func FuzzDeclarations(f *testing.F) {
	f.Add("* GenerateContentRequest.tools[1].function_declarations[2].parameters: x")
	f.Add("tools[99999999999999999999].function_declarations[0]")
	f.Add("function declaration `a` and function declaration 'b'")
	f.Add(`Unknown name "x" at 'tools[1].functionDeclarations[0].parameters'`)
	tools := []*genai.Tool{
		nil,
		{FunctionDeclarations: []*genai.FunctionDeclaration{{Name: "a"}, nil, {Name: "b"}}},
	}
	f.Fuzz(func(t *testing.T, msg string) {
		got := Declarations(msg, tools)
		seen := map[string]bool{}
		for _, n := range got {
			if (n != "a" && n != "b") || seen[n] {
				t.Fatalf("Declarations(%q) = %v, want distinct declared names", msg, got)
			}
			seen[n] = true
		}
	})
}
