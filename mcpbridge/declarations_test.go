package mcpbridge

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/geminitest"
)

// defaultToolNames are the tools the stdio test server offers besides the
// numbered ones.
var defaultToolNames = []string{"add_tool", "crash", "echo", "env", "raw", "sleep", "weird"}

// TestDeclare: Declare without a conversation gives every tool, sorted by
// name, in one genai.Tool, up to the limit (more are selected, not an
// error), nothing for no tools, and the strict fake accepts what it gives.
func TestDeclare(t *testing.T) {
	numbered := func(n int) ServerConfig {
		c := stdioServer("many", fmt.Sprintf("-tools=%d", n))
		c.ExcludeTools = defaultToolNames
		return c
	}
	only := func(names ...string) ServerConfig {
		c := stdioServer("few")
		c.IncludeTools = names
		return c
	}
	tests := []struct {
		name    string
		servers []ServerConfig
		want    int // declarations
		omitted int
	}{
		{"no servers", nil, 0, 0},
		{"one tool", []ServerConfig{only("echo")}, 1, 0},
		{"sorted across servers", []ServerConfig{only("sleep", "echo"), numbered(2)}, 4, 0},
		{"512 tools", []ServerConfig{numbered(512)}, 512, 0},
		{"513 tools", []ServerConfig{numbered(513)}, 512, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := newBridge(t, nil, tc.servers...)
			discover(t, b)
			d, err := b.Declare(context.Background(), nil, nil)
			if err != nil {
				t.Fatalf("Declare() = %v, want nil error", err)
			}
			tools := d.Tools
			if d.Report.Declared != tc.want || len(d.Report.Omitted) != tc.omitted || d.Report.Size == 0 && tc.want > 0 {
				t.Errorf("Declare().Report = %+v, want %d declared and %d omitted", d.Report, tc.want, tc.omitted)
			}
			if tc.want == 0 {
				if tools != nil || d.SystemInstruction() != nil {
					t.Errorf("Declare() = %v, %v, want nil", tools, d.SystemInstruction())
				}
				return
			}
			if d.SystemInstruction() == nil {
				t.Error("Declare().SystemInstruction = nil, want the server's")
			}
			if len(tools) != 1 || len(tools[0].FunctionDeclarations) != tc.want {
				t.Fatalf("Declare() = %d tools, want one holding %d declarations", len(tools), tc.want)
			}
			var names []string
			for _, d := range tools[0].FunctionDeclarations {
				names = append(names, d.Name)
			}
			if !slices.IsSorted(names) {
				t.Errorf("Declare() names = %v, want sorted", names)
			}
			// The strict fake accepts the request.
			srv := geminitest.New(t, nil, geminitest.Text("ok"))
			ctx := context.Background()
			_, err = srv.Client(ctx).Models.GenerateContent(ctx, "gemini-2.5-flash",
				[]*genai.Content{genai.NewContentFromText("hi", genai.RoleUser)}, &genai.GenerateContentConfig{Tools: tools})
			if err != nil {
				t.Errorf("GenerateContent with Declare()'s tools = %v, want accepted", err)
			}
		})
	}
}
