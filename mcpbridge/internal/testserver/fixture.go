package testserver

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// FixtureTool is one tool of a published server's tools/list answer, as
// kept under schema/testdata/servers: its name and raw input schema.
type FixtureTool struct {
	Name        string          `json:"name"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// ReadFixture reads the tools of a tools/list fixture file
// ({"package": ..., "version": ..., "tools": [...]}), in the file's order.
func ReadFixture(path string) ([]FixtureTool, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f struct {
		Tools []FixtureTool `json:"tools"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f.Tools, nil
}

// addFixtureTools adds tools (a published server's names and schemas),
// each answering with its name and the arguments it received, as JSON
// text: {"tool": name, "args": {...}}.
func addFixtureTools(s *server.MCPServer, tools []FixtureTool) {
	for _, t := range tools {
		name := t.Name
		s.AddTool(mcp.NewToolWithRawSchema(name, "", t.InputSchema),
			func(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				out, err := json.Marshal(map[string]any{"tool": name, "args": r.GetArguments()})
				if err != nil {
					return nil, err
				}
				return mcp.NewToolResultText(string(out)), nil
			})
	}
}
