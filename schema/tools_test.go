package schema

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"
)

func TestCheckTools(t *testing.T) {
	obj := &genai.Schema{Type: genai.TypeObject, Properties: map[string]*genai.Schema{"x": {Type: genai.TypeString}}}
	decls := func(n int) []*genai.FunctionDeclaration {
		out := make([]*genai.FunctionDeclaration, n)
		for i := range out {
			out[i] = &genai.FunctionDeclaration{Name: fmt.Sprintf("f%d", i), Parameters: obj}
		}
		return out
	}
	nullable := &genai.Schema{Type: genai.TypeObject, Properties: map[string]*genai.Schema{"x": {Type: genai.TypeNULL}}}
	tests := []struct {
		name   string
		tools  []*genai.Tool
		target Target
		want   []Violation
	}{
		{"fine", []*genai.Tool{{FunctionDeclarations: decls(3)}, {GoogleSearch: &genai.GoogleSearch{}}}, Gemini, nil},
		{"512 for the Developer API", []*genai.Tool{{FunctionDeclarations: decls(512)}}, Gemini, nil},
		{"513 for the Developer API", []*genai.Tool{{FunctionDeclarations: decls(500)}, {FunctionDeclarations: decls(13)[:13]}}, Gemini,
			nil}, // set below: duplicates and the count
		{"129 for Vertex", []*genai.Tool{{FunctionDeclarations: decls(129)}}, Vertex,
			[]Violation{{Path: "tools", Message: "129 function declarations; at most 128 can be specified for vertex"}}},
		{"128 for Vertex", []*genai.Tool{{FunctionDeclarations: decls(128)}}, Vertex, nil},
		{"empty list and nil tool", []*genai.Tool{{FunctionDeclarations: []*genai.FunctionDeclaration{}}, nil}, Gemini,
			[]Violation{
				{Path: "tools[0].functionDeclarations", Message: "an empty list of function declarations is rejected; leave the tool out"},
				{Path: "tools[1]", Message: "tool is nil"},
			}},
		{"schema rules per target", []*genai.Tool{{FunctionDeclarations: []*genai.FunctionDeclaration{{Name: "n", Parameters: nullable}}}}, Vertex,
			[]Violation{{Path: "tools[0].functionDeclarations[0].parameters.properties.x", Message: Check(nullable, Vertex)[0].Message}}},
	}
	tests[2].want = []Violation{}
	for i := range 13 {
		tests[2].want = append(tests[2].want, Violation{Path: fmt.Sprintf("tools[1].functionDeclarations[%d].name", i),
			Message: fmt.Sprintf("function %q is declared twice (first at tools[0].functionDeclarations[%d])", fmt.Sprintf("f%d", i), i)})
	}
	tests[2].want = append(tests[2].want, Violation{Path: "tools", Message: "513 function declarations; at most 512 can be specified for gemini"})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, CheckTools(tc.tools, tc.target)); diff != "" {
				t.Errorf("CheckTools(%s) mismatch (-want +got):\n%s", tc.name, diff)
			}
		})
	}
}

func TestTargetMaxDeclarations(t *testing.T) {
	for target, want := range map[Target]int{Gemini: 512, Vertex: 128, JSONSchema: 512} {
		if got := target.MaxDeclarations(); got != want {
			t.Errorf("%v.MaxDeclarations() = %d, want %d", target, got, want)
		}
	}
}
