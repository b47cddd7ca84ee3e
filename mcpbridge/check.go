package mcpbridge

import (
	"fmt"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/schema"
)

// The most function declarations one request may carry: the Gemini
// Developer API's limit, and Vertex AI's as its function calling reference
// documents it.
const (
	maxGeminiDeclarations = 512
	maxVertexDeclarations = 128
)

// MaxDeclarations returns the most function declarations one request may
// carry for target: 128 for [schema.Vertex], as Vertex AI's function
// calling reference documents, and 512, the Developer API's limit,
// otherwise. It is the one declaration cap of the package: the default of
// [Selection.Limit], the limit of [Bridge.GenAITools] and of [CheckTools].
func MaxDeclarations(target schema.Target) int {
	if target == schema.Vertex {
		return maxVertexDeclarations
	}
	return maxGeminiDeclarations
}

// CheckTools reports every way the tools of one request break target's
// rules, in order; nil means none found. It checks what one declaration
// cannot show: at most [MaxDeclarations] declarations in all, no tool that
// declares nothing (the API rejects an empty list), no function declared
// twice; and every declaration with [schema.CheckDeclaration] for target,
// its paths prefixed with "tools[i].functionDeclarations[j].". tools are
// not modified.
//
// It is the check a host can run in its own tests over what it sends: the
// Bridge's tools with its host functions, for the target it deploys to.
func CheckTools(tools []*genai.Tool, target schema.Target) []schema.Violation {
	var out []schema.Violation
	total := 0
	seen := map[string]string{}
	for i, t := range tools {
		tpath := fmt.Sprintf("tools[%d]", i)
		if t == nil {
			out = append(out, schema.Violation{Path: tpath, Message: "tool is nil"})
			continue
		}
		if t.FunctionDeclarations != nil && len(t.FunctionDeclarations) == 0 && onlyFunctions(t) {
			out = append(out, schema.Violation{Path: tpath + ".functionDeclarations",
				Message: "an empty list of function declarations is rejected; leave the tool out"})
		}
		total += len(t.FunctionDeclarations)
		for j, d := range t.FunctionDeclarations {
			dpath := fmt.Sprintf("%s.functionDeclarations[%d]", tpath, j)
			for _, v := range schema.CheckDeclaration(d, target) {
				v.Path = joinViolationPath(dpath, v.Path)
				out = append(out, v)
			}
			if d == nil || d.Name == "" {
				continue
			}
			if first, dup := seen[d.Name]; dup {
				out = append(out, schema.Violation{Path: dpath + ".name",
					Message: fmt.Sprintf("function %q is declared twice (first at %s)", d.Name, first)})
			} else {
				seen[d.Name] = dpath
			}
		}
	}
	if limit := MaxDeclarations(target); total > limit {
		out = append(out, schema.Violation{Path: "tools",
			Message: fmt.Sprintf("%d function declarations; at most %d can be specified for %s", total, limit, target)})
	}
	return out
}

func joinViolationPath(prefix, p string) string {
	if p == "" {
		return prefix
	}
	return prefix + "." + p
}
