package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpgenai/bridge/geminitest"
	"github.com/mcpgenai/bridge/mcpbridge"
)

// askFlag makes the test binary the MCP server "asker" (see TestMain).
const askFlag = "-mcp-ask-server"

// askServer is the MCP server "asker": profile asks the user for a form
// whose "age" has a default, and where lists the client's roots.
func askServer() *server.MCPServer {
	s := server.NewMCPServer("asker", "1.0.0", server.WithToolCapabilities(false), server.WithElicitation())
	s.AddTool(mcp.NewTool("profile", mcp.WithDescription("Asks who you are.")),
		func(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if a := server.ElicitationResponse(r.Params.InputResponses, "who"); a != nil {
				b, _ := json.Marshal(a.Content)
				return mcp.NewToolResultText(string(a.Action) + " " + string(b)), nil
			}
			return server.NewInputRequestBuilder("").Elicit("who", mcp.ElicitationParams{
				Mode: mcp.ElicitationModeForm, Message: "Who are you?",
				RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{
					"name": map[string]any{"type": "string"}, "age": map[string]any{"type": "integer", "default": 30},
				}, "required": []any{"name"}},
			}).ToolResult(), nil
		})
	s.AddTool(mcp.NewTool("where", mcp.WithDescription("Lists the roots.")),
		func(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if roots := server.RootsResponse(r.Params.InputResponses, "roots"); roots != nil {
				b, _ := json.Marshal(roots.Roots)
				return mcp.NewToolResultText(string(b)), nil
			}
			return server.NewInputRequestBuilder("").Roots("roots").ToolResult(), nil
		})
	return s
}

func askSettings(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd, _ := json.Marshal(exe)
	path := filepath.Join(t.TempDir(), "settings.json")
	body := `{"mcpServers": {"asker": {"command": ` + string(cmd) + `, "args": ["` + askFlag + `"], "timeout": 30000}}}`
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestElicitationAsked: a server's question reaches the person at the
// terminal, whose answer (with the form's default for what was left out)
// reaches the server; the working directory is offered as the root.
func TestElicitationAsked(t *testing.T) {
	srv := fakeGemini(t,
		geminitest.Calls(geminitest.Call{Name: "profile", Args: map[string]any{}}),
		expect(t, "output", `accept {"age":30,"name":"Ada"}`,
			geminitest.Calls(geminitest.Call{Name: "where", Args: map[string]any{}})),
		func(req *geminitest.Request) geminitest.Response {
			wd, _ := os.Getwd()
			root, _ := mcpbridge.DirRoot(wd)
			frs := req.FunctionResponses()
			if got, _ := frs[0].Response["output"].(string); len(frs) != 1 || !strings.Contains(got, root.URI) {
				t.Errorf("where = %v, want the working directory %s", frs[0].Response, root.URI)
			}
			return geminitest.Text("Hello Ada.")(req)
		},
	)
	code, out, errOut := session{stdin: "a\nAda\n\n", terminal: true}.run(t, "-config", askSettings(t), "-yes", "-prompt", "Greet me")
	if code != 0 || out != "Hello Ada.\n" {
		t.Fatalf("agent = exit %d, stdout %q, stderr:\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, `MCP server "asker"`) || !strings.Contains(errOut, `asks: Who are you?`) {
		t.Errorf("stderr lacks the question:\n%s", errOut)
	}
	if srv.Remaining() != 0 {
		t.Errorf("%d scripted turns left", srv.Remaining())
	}
}

// TestElicitationNobodyToAsk: with -prompt and no terminal nobody is asked,
// and the call fails rather than reading as a decline.
func TestElicitationNobodyToAsk(t *testing.T) {
	fakeGemini(t,
		geminitest.Calls(geminitest.Call{Name: "profile", Args: map[string]any{}}),
		func(req *geminitest.Request) geminitest.Response {
			frs := req.FunctionResponses()
			out, _ := frs[0].Response["output"].(string)
			if len(frs) != 1 || frs[0].Response["error"] == nil || strings.Contains(out, "decline") {
				t.Errorf("profile without anyone to ask = %v, want an error and no decline", frs)
			}
			return geminitest.Text("Nobody answered.")(req)
		},
	)
	code, out, errOut := session{stdin: "a\nAda\n"}.run(t, "-config", askSettings(t), "-yes", "-prompt", "Greet me")
	if code != 0 || out != "Nobody answered.\n" || strings.Contains(errOut, "asks:") {
		t.Fatalf("agent = exit %d, stdout %q, stderr:\n%s", code, out, errOut)
	}
}
