package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpgenai/bridge/internal/testauth"
)

func TestInspectLogsIn(t *testing.T) {
	isolate(t)
	config := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", config)
	t.Setenv("DISPLAY", "")
	t.Setenv("WAYLAND_DISPLAY", "")

	as := testauth.Start(t)
	s := server.NewMCPServer("tracker", "1.0.0")
	s.AddTool(mcp.NewTool("search_issues", mcp.WithDescription("Search issues.")), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("none"), nil
	})
	remote := as.ServeMCP(t, s, false, "")
	settings := filepath.Join(t.TempDir(), "settings.json")
	if err := os.WriteFile(settings, []byte(`{"mcpServers": {"tracker": {"httpUrl": "`+remote.URL+`"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}

	var out strings.Builder
	br := &testauth.Browser{}
	code := run(t.Context(), []string{"-config", settings}, strings.NewReader(""), &out, br)
	errs := br.Wait()
	if code != 0 {
		t.Fatalf("inspect exit %d, stderr:\n%s", code, br.String())
	}
	for _, err := range errs {
		t.Errorf("browser: %v", err)
	}
	for _, want := range []string{`MCP server "tracker" needs a login`, `logged in to "tracker"`} {
		if !strings.Contains(br.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, br.String())
		}
	}
	for _, want := range []string{"📡 tracker (CONNECTED)", "Auth: authenticated", "search_issues"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, out.String())
		}
	}
	if fi, err := os.Stat(filepath.Join(config, "mcpbridge", "oauth-tokens.json")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("token file: %v, want mode 0600 under XDG_CONFIG_HOME/mcpbridge", err)
	}
}
