package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/schema"
)

// TestMain lets the test binary stand in for the inspector when the
// inspector starts its demo servers (it runs os.Executable() -demo-server).
func TestMain(m *testing.M) {
	if len(os.Args) > 2 && os.Args[1] == "-demo-server" {
		os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	if len(os.Args) > 2 && os.Args[1] == manyFlag {
		os.Exit(serveMany(os.Args[2]))
	}
	os.Exit(m.Run())
}

// isolate makes sure no settings file of the machine is found.
func isolate(t *testing.T) {
	t.Helper()
	t.Setenv("HOME", t.TempDir())
	t.Chdir(t.TempDir())
}

func runInspect(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(t.Context(), args, strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestDefaultRunText(t *testing.T) {
	isolate(t)
	code, out, errOut := runInspect(t)
	if code != 0 {
		t.Fatalf("inspect exit %d, stderr:\n%s", code, errOut)
	}
	for _, want := range []string{
		"Configuration: built-in demo servers",
		"📡 tracker (CONNECTED)",
		"📡 notes (CONNECTED)",
		"Discovery State: COMPLETED",
		"Function declarations (7, ",
		" bytes, ~",
		`▶ notes__get_status  (server "notes", tool "get_status")  `,
		`renamed (prefixed: "get_status" belongs to server "tracker")`,
		`renamed (sanitized: "notes/append" is not a valid function name)`,
		"generate_quarterly_engineeri___r_every_team_in_the_organization",
		"schema: properties.filter: $ref: inlined",
		"uniqueItems",
		"type: integer enum written as STRING",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("inspect output lacks %q; output:\n%s", want, out)
		}
	}
}

// TestDefaultRunDesc checks that -desc lists the tools with their
// descriptions, as Gemini CLI's /mcp desc, and that without it the status
// has one line of names.
func TestDefaultRunDesc(t *testing.T) {
	isolate(t)
	code, out, errOut := runInspect(t, "-desc")
	if code != 0 {
		t.Fatalf("inspect -desc exit %d, stderr:\n%s", code, errOut)
	}
	for _, want := range []string{
		"  Tools:\n    - assign: Assign an issue, or clear its assignee with null.\n",
		"    - search_issues: Search the issue tracker.\n    - set_priority: Set the priority of an issue (1 is the highest).\n",
		"    - generate_quarterly_engineeri___r_every_team_in_the_organization: A tool whose name is longer than Gemini allows.\n",
		"    - notes__get_status: Report whether the notes store is reachable.\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("inspect -desc output lacks %q; output:\n%s", want, out)
		}
	}
	_, plain, _ := runInspect(t)
	if !strings.Contains(plain, "  Tools: assign, generate_quarterly_engineeri___r_every_team_in_the_organization, get_status, ") || strings.Contains(plain, "Search the issue tracker.\n") {
		t.Errorf("inspect without -desc: want one line of tool names and no descriptions in the status; output:\n%s", plain)
	}
}

// jsonDocument is the -json document as a consumer would decode it.
type jsonDocument struct {
	Discovered bool `json:"discovered"`
	Servers    []struct {
		Name, Status, Error string
		Tools               []struct {
			Name, ServerToolName, Description string
			DeclarationBytes, EstimatedTokens int
			BudgetCuts                        int
		}
	} `json:"servers"`
	Tools    []*genai.Tool `json:"tools"`
	Warnings []string      `json:"warnings"`
}

func TestDefaultRunJSONEveryTarget(t *testing.T) {
	isolate(t)
	for _, target := range []schema.Target{schema.Gemini, schema.Vertex, schema.JSONSchema} {
		t.Run(target.String(), func(t *testing.T) {
			code, out, errOut := runInspect(t, "-json", "-target", target.String())
			if code != 0 || errOut != "" {
				t.Fatalf("inspect -json exit %d, stderr %q", code, errOut)
			}
			dec := json.NewDecoder(strings.NewReader(out))
			dec.DisallowUnknownFields()
			var doc jsonDocument
			if err := dec.Decode(&doc); err != nil {
				t.Fatalf("stdout is not the JSON document: %v\n%s", err, out)
			}
			if dec.More() {
				t.Fatalf("stdout has more than one JSON document")
			}
			if !doc.Discovered || len(doc.Servers) != 2 {
				t.Fatalf("discovered %v, %d servers; want true, 2", doc.Discovered, len(doc.Servers))
			}
			wantTools := map[string]int{"tracker": 5, "notes": 2}
			for _, s := range doc.Servers {
				if s.Status != "CONNECTED" || len(s.Tools) != wantTools[s.Name] {
					t.Errorf("server %s: status %s with %d tools, want CONNECTED with %d", s.Name, s.Status, len(s.Tools), wantTools[s.Name])
				}
			}
			var appendDesc []string
			for _, tool := range doc.Servers[1].Tools {
				if tool.Name == "notes_append" {
					appendDesc = append(appendDesc, tool.Description)
				}
			}
			if want := []string{"Append text to a note, by id or by title."}; !slices.Equal(appendDesc, want) {
				t.Errorf("notes_append descriptions = %q, want %q", appendDesc, want)
			}
			if len(doc.Tools) != 1 || len(doc.Tools[0].FunctionDeclarations) != 7 {
				t.Fatalf("tools = %d Tool(s); want one Tool with 7 declarations", len(doc.Tools))
			}
			sizes := map[string]int{}
			for _, d := range doc.Tools[0].FunctionDeclarations {
				if v := schema.CheckDeclaration(d, target); len(v) > 0 {
					t.Errorf("declaration %s breaks the %s rules: %v", d.Name, target, v)
				}
				b, _ := json.Marshal(d)
				sizes[d.Name] = len(b)
			}
			for _, s := range doc.Servers {
				for _, tool := range s.Tools {
					if tool.DeclarationBytes != sizes[tool.Name] || tool.EstimatedTokens != (tool.DeclarationBytes+3)/4 || tool.BudgetCuts != 0 {
						t.Errorf("%s: declarationBytes %d, estimatedTokens %d, budgetCuts %d; want %d, %d, 0",
							tool.Name, tool.DeclarationBytes, tool.EstimatedTokens, tool.BudgetCuts, sizes[tool.Name], (sizes[tool.Name]+3)/4)
					}
				}
			}
		})
	}
}

func TestConfigFileWithFailingServer(t *testing.T) {
	isolate(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	settings := filepath.Join(t.TempDir(), "settings.json")
	body := `{"theme": "ignored", "mcpServers": {
  "notes": {"command": ` + quote(exe) + `, "args": ["-demo-server", "notes"], "trust": true},
  "broken": {"command": "/nonexistent/mcp-server", "timeout": 5000}
}}`
	if err := os.WriteFile(settings, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runInspect(t, "-json", "-config", settings)
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	var doc jsonDocument
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Servers) != 2 || doc.Servers[0].Name != "notes" || doc.Servers[1].Name != "broken" {
		t.Fatalf("servers = %+v, want notes then broken", doc.Servers)
	}
	if s := doc.Servers[0]; s.Status != "CONNECTED" || len(s.Tools) != 2 || s.Tools[0].Name != "get_status" {
		t.Errorf("notes = %+v, want CONNECTED with get_status unprefixed", s)
	}
	if s := doc.Servers[1]; s.Status != "DISCONNECTED" || !strings.Contains(s.Error, "/nonexistent/mcp-server") {
		t.Errorf("broken = %+v, want DISCONNECTED with an error naming the command", s)
	}
}

func TestBadInvocations(t *testing.T) {
	isolate(t)
	badJSON := filepath.Join(t.TempDir(), "settings.json")
	if err := os.WriteFile(badJSON, []byte("{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\",}\n  }\n}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown flag", []string{"-nope"}, "flag provided but not defined"},
		{"bad target", []string{"-target", "openai"}, `unknown target "openai"`},
		{"stray argument", []string{"extra"}, `unexpected argument "extra"`},
		{"missing settings file", []string{"-config", "/nonexistent/settings.json"}, "no such file"},
		{"bad JSON", []string{"-config", badJSON}, "settings.json:3:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runInspect(t, tc.args...)
			if code != 2 || out != "" || !strings.Contains(errOut, tc.want) {
				t.Errorf("inspect %v = exit %d, stdout %q, stderr %q; want exit 2, no stdout, stderr containing %q", tc.args, code, out, errOut, tc.want)
			}
		})
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
