package mcpbridge

import (
	"context"
	"slices"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/registry"
)

// TestQualifiedToolNames: with Options.ToolNames set to Gemini CLI's
// scheme, two servers offering the same tool are both named
// mcp_<server>_<tool>, a call by that name reaches the right server with
// its original tool name, and the declarations carry the same names.
func TestQualifiedToolNames(t *testing.T) {
	one, two := mcptestExec("one"), mcptestExec("two")
	one.IncludeTools, two.IncludeTools = []string{"echo"}, []string{"echo"}
	b := newBridge(t, &Options{ToolNames: registry.QualifiedNames}, one, two)
	discover(t, b)

	got := toolNamesOf(b.Tools())
	slices.Sort(got)
	if want := []string{"mcp_one_echo", "mcp_two_echo"}; !slices.Equal(got, want) {
		t.Fatalf("tools = %q, want %q", got, want)
	}
	for _, d := range mustDeclare(t, b).Tools[0].FunctionDeclarations {
		if !strings.HasPrefix(d.Name, "mcp_") {
			t.Errorf("declaration %q is not qualified", d.Name)
		}
	}
	r := b.Execute(context.Background(), &genai.FunctionCall{Name: "mcp_two_echo", Args: map[string]any{"text": "hi"}})
	if r.Err != nil || r.Server != "two" || r.ServerTool != "echo" || !strings.Contains(r.ReturnDisplay, "hi") {
		t.Errorf("Execute(mcp_two_echo) = server %q tool %q, %v, %v; want two's echo", r.Server, r.ServerTool, r.ReturnDisplay, r.Err)
	}
}
