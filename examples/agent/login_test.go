package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpgenai/bridge/geminitest"
	"github.com/mcpgenai/bridge/internal/testauth"
)

func TestAgentLogsIn(t *testing.T) {
	srv := fakeGemini(t,
		geminitest.Calls(geminitest.Call{Name: "add", Args: map[string]any{"a": 2, "b": 3}}),
		expect(t, "output", "2 + 3 = 5", geminitest.Text("The sum is 5.")),
	)
	config := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", config)
	t.Setenv("DISPLAY", "")
	t.Setenv("WAYLAND_DISPLAY", "")
	as := testauth.Start(t)
	remote := as.ServeMCP(t, calcServer(), false, "")
	settings := filepath.Join(t.TempDir(), "settings.json")
	if err := os.WriteFile(settings, []byte(`{"mcpServers": {"calc": {"httpUrl": "`+remote.URL+`", "timeout": 30000}}}`), 0o600); err != nil {
		t.Fatal(err)
	}

	var out strings.Builder
	br := &testauth.Browser{}
	con := &console{stdin: strings.NewReader(""), stdout: &out, stderr: br}
	code := run(t.Context(), []string{"-config", settings, "-yes", "-prompt", "What is 2 + 3?"}, con)
	for _, err := range br.Wait() {
		t.Errorf("browser: %v", err)
	}
	if code != 0 {
		t.Fatalf("agent exit %d, stderr:\n%s", code, br.String())
	}
	if out.String() != "The sum is 5.\n" {
		t.Errorf("stdout = %q, want the final answer", out.String())
	}
	for _, want := range []string{`MCP server "calc" needs a login`, `logged in to "calc"`, "agent: 3 tools from 1 of 1 servers", "✓ add"} {
		if !strings.Contains(br.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, br.String())
		}
	}
	if srv.Remaining() != 0 {
		t.Errorf("%d scripted turns left", srv.Remaining())
	}
	if fi, err := os.Stat(filepath.Join(config, "mcpbridge", "oauth-tokens.json")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("token file: %v, want mode 0600 under XDG_CONFIG_HOME/mcpbridge", err)
	}
}
