package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// manyFlag makes the test binary an MCP server with as many tools as its
// argument says, each schema carrying $schema (see TestMain).
const manyFlag = "-test-many-server"

func serveMany(count string) int {
	n, err := strconv.Atoi(count)
	if err != nil {
		return 2
	}
	s := server.NewMCPServer("many", "1.0.0", server.WithToolCapabilities(false))
	for i := range n {
		schema := `{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "properties": {"q": {"type": "string"}}}`
		s.AddTool(mcp.NewToolWithRawSchema(fmt.Sprintf("tool_%03d", i), "A tool.", json.RawMessage(schema)), echoArgs)
	}
	if err := server.NewStdioServer(s).Listen(context.Background(), os.Stdin, os.Stdout); err != nil && err != context.Canceled {
		return 1
	}
	return 0
}

// writeSettings writes a settings file of body's servers and returns its path.
func writeSettings(t *testing.T, servers string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "settings.json")
	if err := os.WriteFile(path, []byte(`{"mcpServers": {`+servers+`}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// manyServer is the settings entry of a test server with n tools.
func manyServer(t *testing.T, n int) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd, _ := json.Marshal(exe)
	return fmt.Sprintf(`"many": {"command": %s, "args": [%q, "%d"], "timeout": 30000}`, cmd, manyFlag, n)
}

// TestTooManyForTarget: more tools than Vertex AI's 128 per request are all
// shown, in text and JSON, with a warning that the limit is exceeded; a
// root change every tool shares ($schema dropped) is said once, not per
// tool.
func TestTooManyForTarget(t *testing.T) {
	isolate(t)
	settings := writeSettings(t, manyServer(t, 130))

	code, out, errOut := runInspect(t, "-config", settings, "-target", "vertex")
	if code != 0 {
		t.Fatalf("inspect -target vertex = exit %d, stderr:\n%s", code, errOut)
	}
	for _, want := range []string{
		"Function declarations (130, ",
		"warning: more than one request carries: 130 tools are registered",
		"at most 128 fit in one request",
		"schema, in 130 tools: (root): $schema: dropped",
		"▶ tool_129",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("inspect output lacks %q", want)
		}
	}
	if n := strings.Count(out, "$schema: dropped"); n != 1 {
		t.Errorf("$schema: dropped said %d times, want once", n)
	}
	if !strings.Contains(errOut, "inspect: 1 of 1 servers connected, 130 tools") {
		t.Errorf("stderr lacks the summary line:\n%s", errOut)
	}

	code, out, errOut = runInspect(t, "-config", settings, "-target", "vertex", "-json")
	if code != 0 {
		t.Fatalf("inspect -json -target vertex = exit %d, stderr:\n%s", code, errOut)
	}
	var doc jsonDoc
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("-json output is not JSON: %v\n%s", err, out)
	}
	if len(doc.Tools) != 1 || len(doc.Tools[0].FunctionDeclarations) != 130 {
		t.Errorf("-json has %d tools, want one with 130 declarations", len(doc.Tools))
	}
	if len(doc.Warnings) != 1 || !strings.Contains(doc.Warnings[0], "at most 128") {
		t.Errorf("-json warnings = %q, want the request limit", doc.Warnings)
	}
}

// TestNothingConnected: when every configured server fails, the status still
// shows each one's error, a summary says none connected, and the exit
// status is 1.
func TestNothingConnected(t *testing.T) {
	isolate(t)
	settings := writeSettings(t, `"gone": {"command": "/nonexistent/mcp-server", "timeout": 5000}`)
	code, out, errOut := runInspect(t, "-config", settings)
	if code != 1 {
		t.Errorf("inspect = exit %d, want 1", code)
	}
	if !strings.Contains(out, "gone (DISCONNECTED)") {
		t.Errorf("the status lacks the failed server:\n%s", out)
	}
	if !strings.Contains(errOut, "inspect: 0 of 1 servers connected, 0 tools") || !strings.Contains(errOut, "no server could be reached") {
		t.Errorf("stderr lacks the summary:\n%s", errOut)
	}
}
