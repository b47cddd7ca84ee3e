package genaitool

import (
	"testing"

	"google.golang.org/genai"
)

func TestOnlyFunctions(t *testing.T) {
	decls := []*genai.FunctionDeclaration{{Name: "f"}}
	for _, tc := range []struct {
		name string
		tool *genai.Tool
		want bool
	}{
		{"empty", &genai.Tool{}, true},
		{"declarations", &genai.Tool{FunctionDeclarations: decls}, true},
		{"search", &genai.Tool{GoogleSearch: &genai.GoogleSearch{}}, false},
		{"declarations and code execution", &genai.Tool{FunctionDeclarations: decls, CodeExecution: &genai.ToolCodeExecution{}}, false},
	} {
		if got := OnlyFunctions(tc.tool); got != tc.want {
			t.Errorf("%s: OnlyFunctions() = %v, want %v", tc.name, got, tc.want)
		}
	}
}
