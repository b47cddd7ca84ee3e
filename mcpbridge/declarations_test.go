package mcpbridge

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/geminitest"
)

// defaultToolNames are the tools the stdio test server offers besides the
// numbered ones.
var defaultToolNames = []string{"add_tool", "crash", "echo", "env", "raw", "sleep", "weird"}

func TestGenAITools(t *testing.T) {
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
		want    int    // declarations; -1 = error
		wantErr string // substring of the error
	}{
		{"no servers", nil, 0, ""},
		{"one tool", []ServerConfig{only("echo")}, 1, ""},
		{"sorted across servers", []ServerConfig{only("sleep", "echo"), numbered(2)}, 4, ""},
		{"512 tools", []ServerConfig{numbered(512)}, 512, ""},
		{"513 tools", []ServerConfig{numbered(513)}, -1, "513 tools are registered, at most 512 fit in one request; narrow the servers' tools with includeTools or excludeTools"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := newBridge(t, nil, tc.servers...)
			discover(t, b)
			tools, err := b.GenAITools()
			if tc.want < 0 {
				if !errors.Is(err, ErrTooManyTools) || !strings.Contains(err.Error(), tc.wantErr) || tools != nil {
					t.Fatalf("GenAITools() = %v, %v, want nil and an error containing %q", tools, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("GenAITools() = %v, want nil error", err)
			}
			if tc.want == 0 {
				if tools != nil {
					t.Errorf("GenAITools() = %v, want nil", tools)
				}
				return
			}
			if len(tools) != 1 || len(tools[0].FunctionDeclarations) != tc.want {
				t.Fatalf("GenAITools() = %d tools, want one holding %d declarations", len(tools), tc.want)
			}
			var names []string
			for _, d := range tools[0].FunctionDeclarations {
				names = append(names, d.Name)
			}
			if !slices.IsSorted(names) {
				t.Errorf("GenAITools() names = %v, want sorted", names)
			}
			// The strict fake accepts the request.
			srv := geminitest.New(t, nil, geminitest.Text("ok"))
			ctx := context.Background()
			_, err = srv.Client(ctx).Models.GenerateContent(ctx, "gemini-2.5-flash",
				[]*genai.Content{genai.NewContentFromText("hi", genai.RoleUser)}, &genai.GenerateContentConfig{Tools: tools})
			if err != nil {
				t.Errorf("GenerateContent with GenAITools() = %v, want accepted", err)
			}
		})
	}
}
