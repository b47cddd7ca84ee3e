package examples_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// mapSection is the heading of docs/design.md's map of the files of the
// public packages.
const mapSection = "## Map of the files"

// publicPackages returns the directories, relative to the repository's
// root and with forward slashes, of the module's public packages: every
// directory holding a non-test Go file, except internal packages, test
// data, the example programs and the conformance driver. Each maps to its
// non-test Go files, sorted.
func publicPackages(t *testing.T) map[string][]string {
	t.Helper()
	pkgs := map[string][]string{}
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel("..", path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			name := d.Name()
			switch {
			case rel == ".":
				return nil
			case strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "node_modules" ||
				name == "testdata" || name == "internal" || rel == "examples" || rel == "conformance":
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(rel, ".go") && !strings.HasSuffix(rel, "_test.go") {
			dir := filepath.ToSlash(filepath.Dir(rel))
			if dir != "." { // no Go file at the root, but say so if one comes
				pkgs[dir] = append(pkgs[dir], filepath.Base(rel))
			} else {
				t.Errorf("a Go file at the repository's root: %s", rel)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, files := range pkgs {
		slices.Sort(files)
	}
	return pkgs
}

var (
	// mapPackage is a package's heading in the map: ### `dir`.
	mapPackage = regexp.MustCompile("^### `([a-z0-9/]+)`")
	// mapFile is a file's row in the map: | `name.go` | what it holds |.
	mapFile = regexp.MustCompile("^\\| `([A-Za-z0-9_]+\\.go)` \\| (.*) \\|$")
)

// designMap reads the map of docs/design.md: each package's files, in
// the order listed, and each file's line.
func designMap(t *testing.T) map[string][]string {
	t.Helper()
	text := readDoc(t, "docs/design.md")
	_, section, ok := strings.Cut(text, "\n"+mapSection+"\n")
	if !ok {
		t.Fatalf("docs/design.md has no %q section", mapSection)
	}
	if i := strings.Index(section, "\n## "); i >= 0 {
		section = section[:i]
	}
	listed := map[string][]string{}
	pkg := ""
	for _, line := range strings.Split(section, "\n") {
		if m := mapPackage.FindStringSubmatch(line); m != nil {
			pkg = m[1]
			if _, dup := listed[pkg]; dup {
				t.Errorf("the map lists package %s twice", pkg)
			}
			listed[pkg] = nil
			continue
		}
		if m := mapFile.FindStringSubmatch(line); m != nil {
			if pkg == "" {
				t.Errorf("the map lists %s before any package", m[1])
				continue
			}
			if strings.TrimSpace(m[2]) == "" {
				t.Errorf("the map's line for %s/%s says nothing", pkg, m[1])
			}
			listed[pkg] = append(listed[pkg], m[1])
		}
	}
	return listed
}

// TestDesignMapCurrent: docs/design.md's map names every non-test Go file
// of every public package, once, under its package, and nothing that is
// not there; so a file added or removed without its line fails here.
func TestDesignMapCurrent(t *testing.T) {
	pkgs := publicPackages(t)
	listed := designMap(t)
	for _, must := range []string{"mcpbridge", "mcpbridge/agent", "schema", "registry", "confirm", "geminitest"} {
		if _, ok := pkgs[must]; !ok {
			t.Errorf("public package %s not found: the walk is wrong", must)
		}
	}
	for dir, files := range pkgs {
		got, ok := listed[dir]
		if !ok {
			t.Errorf("docs/design.md's map has no section for package %s (### `%s`)", dir, dir)
			continue
		}
		for _, f := range files {
			if n := countOf(got, f); n != 1 {
				t.Errorf("docs/design.md's map lists %s/%s %d times, want once", dir, f, n)
			}
		}
	}
	for dir, got := range listed {
		files, ok := pkgs[dir]
		if !ok {
			t.Errorf("docs/design.md's map has package %s, which is not a public package of the module", dir)
			continue
		}
		for _, f := range got {
			if !slices.Contains(files, f) {
				if _, err := os.Stat(filepath.Join("..", filepath.FromSlash(dir), f)); err != nil {
					t.Errorf("docs/design.md's map lists %s/%s, which does not exist", dir, f)
				} else {
					t.Errorf("docs/design.md's map lists %s/%s, which is not a non-test Go file of the package", dir, f)
				}
			}
		}
	}
}

// countOf returns how many times s appears in list.
func countOf(list []string, s string) int {
	n := 0
	for _, x := range list {
		if x == s {
			n++
		}
	}
	return n
}
