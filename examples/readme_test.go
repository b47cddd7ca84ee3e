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
	"strings"
	"testing"
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
