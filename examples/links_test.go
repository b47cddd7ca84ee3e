package examples_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// mdLink finds the target of a Markdown link or image: the part in
// parentheses after "]".
var mdLink = regexp.MustCompile(`\]\(([^()\s]+)\)`)

// mdName finds the names of Markdown documents mentioned in a text.
var mdName = regexp.MustCompile(`[A-Za-z0-9_.-]+\.md\b`)

// repoMarkdown returns the repository's Markdown documents (not test
// data), as paths relative to the repository root, and the base names of
// all its Markdown files, test data included.
func repoMarkdown(t *testing.T) (docs []string, names map[string]bool) {
	t.Helper()
	names = map[string]bool{}
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "node_modules":
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(path, ".md") {
			names[d.Name()] = true
		}
		if strings.HasSuffix(path, ".md") && !strings.Contains(filepath.ToSlash(path), "/testdata/") {
			rel, err := filepath.Rel("..", path)
			if err != nil {
				return err
			}
			docs = append(docs, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return docs, names
}

// TestMarkdownLinksStayInside checks every relative link of the
// repository's Markdown documents: it names a file or directory that
// exists, inside the repository. It also checks that every Markdown
// document a text mentions by name is one of the repository's own.
func TestMarkdownLinksStayInside(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	docs, names := repoMarkdown(t)
	for _, want := range []string{"README.md", filepath.Join("docs", "design.md"), filepath.Join("docs", "gemini-schema.md")} {
		found := false
		for _, d := range docs {
			found = found || d == want
		}
		if !found {
			t.Errorf("%s is missing; found Markdown documents %v", want, docs)
		}
	}
	for _, doc := range docs {
		b, err := os.ReadFile(filepath.Join(root, doc))
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		for _, m := range mdName.FindAllString(text, -1) {
			if !names[m] {
				t.Errorf("%s mentions %s, which is not a document of the repository", doc, m)
			}
		}
		for _, m := range mdLink.FindAllStringSubmatch(text, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") || strings.HasPrefix(target, "#") {
				continue
			}
			target, _, _ = strings.Cut(target, "#")
			path := filepath.Join(root, filepath.Dir(doc), filepath.FromSlash(target))
			if rel, err := filepath.Rel(root, path); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				t.Errorf("%s links to %q, outside the repository", doc, m[1])
				continue
			}
			if _, err := os.Stat(path); err != nil {
				t.Errorf("%s links to %q, which does not exist", doc, m[1])
			}
		}
	}
}
