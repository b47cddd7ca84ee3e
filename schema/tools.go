package schema

import (
	"fmt"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/internal/genaitool"
)

// The most function declarations one request may carry: the Gemini
// Developer API's limit, and Vertex AI's as its function calling reference
// documents it.
const (
	maxGeminiDeclarations = 512
	maxVertexDeclarations = 128
)

// MaxDeclarations returns the most function declarations one request may
// carry for t: 128 for [Vertex], as Vertex AI's function calling reference
// documents, and 512, the Developer API's limit, otherwise. [CheckTools]
// holds a request to it.
func (t Target) MaxDeclarations() int {
	if t == Vertex {
		return maxVertexDeclarations
	}
	return maxGeminiDeclarations
}

// CheckTools reports every way the tools of one request break target's
// rules, in order; nil means none found. It checks what one declaration
// cannot show: at most [Target.MaxDeclarations] declarations in all, no
// tool that declares nothing (the API rejects an empty list), no function
// declared twice; and every declaration with [CheckDeclaration] for target,
// its paths prefixed with "tools[i].functionDeclarations[j].". tools are
// not modified.
//
// It is the check a program can run in its own tests over what it sends:
// its function declarations, generated or written by hand, for the target
// it deploys to.
func CheckTools(tools []*genai.Tool, target Target) []Violation {
	var out []Violation
	total := 0
	seen := map[string]string{}
	for i, t := range tools {
		tpath := fmt.Sprintf("tools[%d]", i)
		if t == nil {
			out = append(out, Violation{Path: tpath, Message: "tool is nil"})
			continue
		}
		if t.FunctionDeclarations != nil && len(t.FunctionDeclarations) == 0 && genaitool.OnlyFunctions(t) {
			out = append(out, Violation{Path: tpath + ".functionDeclarations",
				Message: "an empty list of function declarations is rejected; leave the tool out"})
		}
		total += len(t.FunctionDeclarations)
		for j, d := range t.FunctionDeclarations {
			dpath := fmt.Sprintf("%s.functionDeclarations[%d]", tpath, j)
			for _, v := range CheckDeclaration(d, target) {
				v.Path = join(dpath, v.Path)
				out = append(out, v)
			}
			if d == nil || d.Name == "" {
				continue
			}
			if first, dup := seen[d.Name]; dup {
				out = append(out, Violation{Path: dpath + ".name",
					Message: fmt.Sprintf("function %q is declared twice (first at %s)", d.Name, first)})
			} else {
				seen[d.Name] = dpath
			}
		}
	}
	if limit := target.MaxDeclarations(); total > limit {
		out = append(out, Violation{Path: "tools",
			Message: fmt.Sprintf("%d function declarations; at most %d can be specified for %s", total, limit, target)})
	}
	return out
}
