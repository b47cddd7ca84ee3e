// Package examples holds the runnable programs under its subdirectories;
// this file tests that the Go code of the README and of the guides under
// docs/ compiles, that the README's set-up commands are the ones CI runs,
// and that the guides' settings and status examples are the library's.
package examples_test

import (
	"bytes"
	"fmt"
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

// readDoc returns the text of the repository's Markdown file path
// (relative to the repository's root).
func readDoc(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", filepath.FromSlash(path)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func readme(t *testing.T) string {
	t.Helper()
	return readDoc(t, "README.md")
}

// guides returns the paths of the guides under docs/, relative to the
// repository's root, sorted.
func guides(t *testing.T) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("..", "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range paths {
		rel, err := filepath.Rel("..", p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, filepath.ToSlash(rel))
	}
	slices.Sort(out)
	return out
}

// docBlocks returns the fenced blocks of language lang of the Markdown
// file path.
func docBlocks(t *testing.T, path, lang string) []string {
	t.Helper()
	var out []string
	for _, m := range fences.FindAllStringSubmatch(readDoc(t, path), -1) {
		if m[1] == lang {
			out = append(out, m[2])
		}
	}
	return out
}

// TestDocsGoBlocksCompile builds and vets every ```go block of the README
// and of the guides as a program of this module.
func TestDocsGoBlocksCompile(t *testing.T) {
	if testing.Short() {
		t.Skip("builds programs")
	}
	type block struct{ file, src string }
	var blocks []block
	for _, file := range append([]string{"README.md"}, guides(t)...) {
		for _, src := range docBlocks(t, file, "go") {
			blocks = append(blocks, block{file, src})
		}
	}
	if n := len(docBlocks(t, "README.md", "go")); n < 2 {
		t.Fatalf("README has %d Go blocks, want your own loop's and the agent loop's", n)
	}
	// A directory whose name starts with "_" is inside the module but not
	// matched by ./..., so the programs are built here and nowhere else.
	root, err := os.MkdirTemp(".", "_readme")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	for i, b := range blocks {
		dir := filepath.Join(root, fmt.Sprintf("block%02d", i))
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(b.src), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{{"build", "-o", os.DevNull}, {"vet"}} {
			cmd := exec.Command("go", append(args, "./"+filepath.ToSlash(dir))...)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("go %s of a Go block of %s: %v\n%s\n--- block:\n%s", args[0], b.file, err, out, b.src)
			}
		}
	}
}

// maxReadmeLines is how long the README may grow: it is the front door,
// and what does not fit goes to a guide under docs/.
const maxReadmeLines = 350

// TestReadmeIsFrontDoor: the README stays short and links every guide
// under docs/, so that a new topic gets a guide of its own and readers
// find it.
func TestReadmeIsFrontDoor(t *testing.T) {
	text := readme(t)
	if n := strings.Count(text, "\n"); n > maxReadmeLines {
		t.Errorf("README has %d lines, want at most %d: move the details to a guide under docs/", n, maxReadmeLines)
	}
	for _, g := range guides(t) {
		if !strings.Contains(text, "]("+g+")") && !strings.Contains(text, "]("+g+"#") {
			t.Errorf("README does not link %s: add it to the table of guides", g)
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

// settingsGuide is the guide that shows a settings file.
const settingsGuide = "docs/settings.md"

// TestSettingsGuideBlock parses the settings guide's settings.json example
// as a settings file: it must be valid and mean what the guide says.
func TestSettingsGuideBlock(t *testing.T) {
	blocks := docBlocks(t, settingsGuide, "json")
	if len(blocks) != 1 {
		t.Fatalf("%s has %d json blocks, want the settings example", settingsGuide, len(blocks))
	}
	env := map[string]string{"HOME": "/home/ada", "TRACKER_TOKEN": "s3cr3t"}
	cfg, err := mcpbridge.ParseSettings([]byte(blocks[0]), settingsGuide, &mcpbridge.SettingsOptions{
		LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
	})
	if err != nil {
		t.Fatalf("ParseSettings(%s's example) = %v", settingsGuide, err)
	}
	if len(cfg.Warnings) > 0 {
		t.Errorf("%s's example gives warnings: %q", settingsGuide, cfg.Warnings)
	}
	b, err := mcpbridge.New(cfg, nil)
	if err != nil {
		t.Fatalf("New(%s's example) = %v", settingsGuide, err)
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

// statusGuide is the guide that shows the status text.
const statusGuide = "docs/status.md"

// TestStatusGuideBlock renders the status guide's example from real
// values: it is the library's output, secrets redacted.
func TestStatusGuideBlock(t *testing.T) {
	var shown string
	for _, b := range docBlocks(t, statusGuide, "") {
		if strings.HasPrefix(b, "MCP Servers Status:") {
			shown = b
		}
	}
	if shown == "" {
		t.Fatalf("%s has no status example", statusGuide)
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
		t.Errorf("%s's status example differs from the library's output:\n--- guide\n%s--- library\n%s", statusGuide, shown, got)
	}
}
