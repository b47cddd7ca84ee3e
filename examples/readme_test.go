// Package examples holds the runnable programs under its subdirectories;
// this file tests that the README's Go code compiles and that its set-up
// commands are the ones CI runs.
package examples_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpgenai/bridge/mcpbridge"
)

// fences finds the fenced code blocks of a Markdown text, with their language.
var fences = regexp.MustCompile("(?ms)^```([a-z]*)\n(.*?)^```\n")

func readme(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestReadmeGoBlocksCompile builds and vets every ```go block of the README
// as a program of this module.
func TestReadmeGoBlocksCompile(t *testing.T) {
	if testing.Short() {
		t.Skip("builds programs")
	}
	var blocks []string
	for _, m := range fences.FindAllStringSubmatch(readme(t), -1) {
		if m[1] == "go" {
			blocks = append(blocks, m[2])
		}
	}
	if len(blocks) < 3 {
		t.Fatalf("README has %d Go blocks, want the library, schema and confirmation examples", len(blocks))
	}
	// A directory whose name starts with "_" is inside the module but not
	// matched by ./..., so the programs are built here and nowhere else.
	root, err := os.MkdirTemp(".", "_readme")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	for i, src := range blocks {
		dir := filepath.Join(root, "block"+string(rune('a'+i)))
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{{"build", "-o", os.DevNull}, {"vet"}} {
			cmd := exec.Command("go", append(args, "./"+filepath.ToSlash(dir))...)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("go %s of README Go block %d: %v\n%s\n--- block:\n%s", args[0], i+1, err, out, src)
			}
		}
	}
}

// TestReadmeSetupCommands checks the set-up block: two commands, the main
// job and the tests, the same that .ci/run runs.
func TestReadmeSetupCommands(t *testing.T) {
	text := readme(t)
	_, after, ok := strings.Cut(text, "## Set-up")
	if !ok {
		t.Fatal(`README has no "## Set-up" section`)
	}
	m := fences.FindStringSubmatch(after)
	if m == nil || m[1] != "sh" {
		t.Fatal("the Set-up section has no sh block")
	}
	lines := strings.Split(strings.TrimSpace(m[2]), "\n")
	want := []string{"go run ./examples/inspect", "go test -race -shuffle=on ./..."}
	if len(lines) != 2 || lines[0] != want[0] || lines[1] != want[1] {
		t.Fatalf("Set-up commands = %q, want %q", lines, want)
	}
	ci, err := os.ReadFile("../.ci/run")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(ci, []byte("readme_setup")) {
		t.Error(".ci/run does not run the README's set-up commands")
	}
}

// readmeBlocks returns the README's fenced blocks of language lang.
func readmeBlocks(t *testing.T, lang string) []string {
	t.Helper()
	var out []string
	for _, m := range fences.FindAllStringSubmatch(readme(t), -1) {
		if m[1] == lang {
			out = append(out, m[2])
		}
	}
	return out
}

// TestReadmeSettingsBlock parses the README's settings.json example as a
// settings file: it must be valid and mean what the README says.
func TestReadmeSettingsBlock(t *testing.T) {
	blocks := readmeBlocks(t, "json")
	if len(blocks) != 1 {
		t.Fatalf("README has %d json blocks, want the settings example", len(blocks))
	}
	env := map[string]string{"HOME": "/home/ada", "TRACKER_TOKEN": "s3cr3t"}
	cfg, err := mcpbridge.ParseSettings([]byte(blocks[0]), "README.md", &mcpbridge.SettingsOptions{
		LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
	})
	if err != nil {
		t.Fatalf("ParseSettings(README's example) = %v", err)
	}
	if len(cfg.Warnings) > 0 {
		t.Errorf("README's example gives warnings: %q", cfg.Warnings)
	}
	b, err := mcpbridge.New(cfg, nil)
	if err != nil {
		t.Fatalf("New(README's example) = %v", err)
	}
	defer b.Close()
	var got []string
	for _, s := range b.Status().Servers {
		got = append(got, s.Name+" "+string(s.Transport))
	}
	want := []string{"files stdio", "tracker http", "docs http", "internal http", "legacy sse"}
	if strings.Join(got, ", ") != strings.Join(want, ", ") {
		t.Errorf("servers = %q, want %q in the written order", got, want)
	}
	files := cfg.Servers[0]
	if files.Args[2] != "/home/ada/notes" || !files.Trust || !slices.Equal(files.ExcludeTools, []string{"write_file"}) || files.Timeout.Milliseconds() != 30000 {
		t.Errorf("files = %+v, want ${HOME} expanded, trusted, write_file excluded, 30 s timeout", files)
	}
	if h := cfg.Servers[1].Headers["Authorization"]; h != "Bearer s3cr3t" {
		t.Errorf("tracker's Authorization header = %q, want $TRACKER_TOKEN expanded", h)
	}
	if o := cfg.Servers[2].OAuth; o == nil || !o.Enabled || len(o.Scopes) != 1 || o.Scopes[0] != "docs.read" {
		t.Errorf("docs' oauth = %+v, want enabled with scope docs.read", o)
	}
	if in := cfg.Servers[3]; in.AuthProviderType != mcpbridge.AuthServiceAccountImpersonation || in.TargetAudience == "" || in.TargetServiceAccount == "" {
		t.Errorf("internal = %+v, want service-account impersonation with its targets", in)
	}
}

// TestReadmeStatusBlock renders the README's status example from real
// values: it is the library's output, secrets redacted.
func TestReadmeStatusBlock(t *testing.T) {
	var shown string
	for _, b := range readmeBlocks(t, "") {
		if strings.HasPrefix(b, "MCP Servers Status:") {
			shown = b
		}
	}
	if shown == "" {
		t.Fatal("README has no status example")
	}
	// A Bridge's status before discovery has every static field (command
	// lines redacted); the states, tools and error are what a discovery
	// would add.
	b, err := mcpbridge.New(&mcpbridge.Config{Servers: []mcpbridge.ServerConfig{
		{Name: "tracker", Command: "/usr/local/bin/tracker-mcp", Args: []string{"--token", "s3cr3t"}, Timeout: 15 * time.Second},
		{Name: "notes", Command: "node", Args: []string{"dist/server.js"}},
	}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	st := b.Status()
	st.Discovered = true
	tracker, notes := &st.Servers[0], &st.Servers[1]
	tracker.State, tracker.Tools = mcpbridge.Connected, []string{"search_issues", "set_priority"}
	notes.Error = `mcp server "notes" (stdio): connect: exec: "node": executable file not found in $PATH`
	if got := st.String(); got != shown {
		t.Errorf("README's status example differs from the library's output:\n--- README\n%s--- library\n%s", shown, got)
	}
}
