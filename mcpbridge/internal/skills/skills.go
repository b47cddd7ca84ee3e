// Package skills reads the Skills extension of MCP (SEP-2640) as a host
// must: a server's skills/list entries, each a skill's SKILL.md URI, its
// front matter and the complete list of its files with their SHA-256
// digests (and sizes); and the checks a file must pass before it is used:
// listed in its skill's entry, of the listed size, of the listed digest,
// and, for a SKILL.md, with YAML front matter equal, field by field, to
// the entry's. A file that fails is not to be used at all. The package
// knows no transport and does no I/O.
package skills

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"reflect"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// ErrMismatch is wrapped by every verification failure: a file not
// listed in its skill's entry, or whose size, digest or front matter
// differs from the entry's.
var ErrMismatch = errors.New("skill verification failed")

// Limits on what a server's listing and files may hold.
const (
	// MaxFiles bounds the files of one skill's entry.
	MaxFiles = 1000
	// MaxFile bounds one file of a skill, in bytes.
	MaxFile = 8 << 20
	// MaxFrontMatter bounds the front matter of a SKILL.md, in bytes.
	MaxFrontMatter = 64 << 10
)

// Entry is one skill as a server lists it.
type Entry struct {
	// URI is the skill's SKILL.md.
	URI string
	// Name and Description are the front matter's, as strings ("" when
	// missing or not a string).
	Name, Description string
	// FrontMatter is the entry's front matter, as JSON decoded it.
	FrontMatter map[string]any
	// Files are the skill's files, SKILL.md included; nil when the entry
	// lists none (a skill generated on demand, which cannot be verified).
	Files []File
}

// File is one file of a skill's entry.
type File struct {
	URI string
	// Digest is the SHA-256 of its bytes, 64 lowercase hex digits (the
	// "sha256:" prefix removed).
	Digest string
	// Size is its length in bytes; -1 when the entry gives none.
	Size int64
}

// ParseEntry reads one entry of a skills/list (or skills/get) result. An
// entry without a uri or front matter, with a file outside the skill's
// directory, a malformed digest, a file listed twice, or more than
// MaxFiles files is an error.
func ParseEntry(raw json.RawMessage) (Entry, error) {
	var w struct {
		URI         string          `json:"uri"`
		FrontMatter map[string]any  `json:"frontmatter"`
		Resources   json.RawMessage `json:"resources"`
	}
	if err := json.Unmarshal(raw, &w); err != nil {
		return Entry{}, fmt.Errorf("skill entry: %w", err)
	}
	if w.URI == "" || w.FrontMatter == nil {
		return Entry{}, errors.New("skill entry: uri and frontmatter are required")
	}
	root, ok := skillRoot(w.URI)
	if !ok {
		return Entry{}, fmt.Errorf("skill entry %q: the uri is not a SKILL.md", w.URI)
	}
	e := Entry{URI: w.URI, FrontMatter: w.FrontMatter}
	e.Name, _ = w.FrontMatter["name"].(string)
	e.Description, _ = w.FrontMatter["description"].(string)
	if len(w.Resources) == 0 || string(w.Resources) == "null" {
		return e, nil
	}
	var files []struct {
		URI    string          `json:"uri"`
		Digest string          `json:"digest"`
		Size   json.RawMessage `json:"size"`
	}
	if err := json.Unmarshal(w.Resources, &files); err != nil {
		return Entry{}, fmt.Errorf("skill entry %q: resources: %w", w.URI, err)
	}
	if len(files) > MaxFiles {
		return Entry{}, fmt.Errorf("skill entry %q: %d files, over %d", w.URI, len(files), MaxFiles)
	}
	seen := map[string]bool{}
	e.Files = make([]File, 0, len(files))
	for _, f := range files {
		if f.URI != w.URI && !strings.HasPrefix(f.URI, root) {
			return Entry{}, fmt.Errorf("skill entry %q: file %q is outside the skill", w.URI, f.URI)
		}
		if seen[f.URI] {
			return Entry{}, fmt.Errorf("skill entry %q: file %q listed twice", w.URI, f.URI)
		}
		seen[f.URI] = true
		hexDigest, ok := strings.CutPrefix(f.Digest, "sha256:")
		if !ok || len(hexDigest) != 64 || strings.ToLower(hexDigest) != hexDigest {
			return Entry{}, fmt.Errorf("skill entry %q: file %q: digest %q is not sha256:<64 lowercase hex digits>", w.URI, f.URI, clip(f.Digest))
		}
		if _, err := hex.DecodeString(hexDigest); err != nil {
			return Entry{}, fmt.Errorf("skill entry %q: file %q: digest: %w", w.URI, f.URI, err)
		}
		size := int64(-1)
		if len(f.Size) > 0 && string(f.Size) != "null" {
			if err := json.Unmarshal(f.Size, &size); err != nil || size < 0 {
				return Entry{}, fmt.Errorf("skill entry %q: file %q: size %s is not a byte count", w.URI, f.URI, clip(string(f.Size)))
			}
		}
		e.Files = append(e.Files, File{URI: f.URI, Digest: hexDigest, Size: size})
	}
	if _, ok := e.File(w.URI); !ok {
		return Entry{}, fmt.Errorf("skill entry %q: its files do not list its SKILL.md", w.URI)
	}
	return e, nil
}

// skillRoot returns the directory prefix of a SKILL.md URI, with its
// trailing slash ("skill://a/b/" for "skill://a/b/SKILL.md").
func skillRoot(uri string) (string, bool) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme == "" || u.RawQuery != "" || u.Fragment != "" {
		return "", false
	}
	dir, ok := strings.CutSuffix(uri, "/SKILL.md")
	if !ok || strings.HasSuffix(dir, ":/") || strings.HasSuffix(dir, ":") {
		return "", false
	}
	return dir + "/", true
}

// Root returns the skill's directory: its URI without "/SKILL.md".
func (e *Entry) Root() string {
	return strings.TrimSuffix(e.URI, "/SKILL.md")
}

// File returns the entry's file uri, and whether it lists it.
func (e *Entry) File(uri string) (File, bool) {
	for _, f := range e.Files {
		if f.URI == uri {
			return f, true
		}
	}
	return File{}, false
}

// Resolve returns the URI of the file at the relative path rel within the
// skill ("references/FORMS.md"), or an error when rel leaves the skill's
// directory or is not a plain relative path.
func (e *Entry) Resolve(rel string) (string, error) {
	if rel == "" || strings.HasPrefix(rel, "/") || strings.Contains(rel, "\\") || strings.ContainsAny(rel, "?#") {
		return "", fmt.Errorf("file %q: want a path relative to the skill's directory", rel)
	}
	for _, seg := range strings.Split(rel, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return "", fmt.Errorf("file %q: want a path within the skill's directory", rel)
		}
	}
	return e.Root() + "/" + rel, nil
}

// Verify checks data, the bytes read of the file at uri, against the
// entry: the file must be listed, of the listed size and digest. A
// SKILL.md (uri is the entry's URI) must also have front matter equal to
// the entry's. Every failure wraps ErrMismatch.
func (e *Entry) Verify(uri string, data []byte) error {
	if e.Files == nil {
		return fmt.Errorf("%w: skill %q lists no files, so none can be verified", ErrMismatch, e.URI)
	}
	f, ok := e.File(uri)
	if !ok {
		return fmt.Errorf("%w: %q is not a file of skill %q", ErrMismatch, uri, e.URI)
	}
	if f.Size >= 0 && int64(len(data)) != f.Size {
		return fmt.Errorf("%w: %q is %d bytes, the listing says %d", ErrMismatch, uri, len(data), f.Size)
	}
	sum := sha256.Sum256(data)
	if hex.EncodeToString(sum[:]) != f.Digest {
		return fmt.Errorf("%w: the digest of %q is not the listed one", ErrMismatch, uri)
	}
	if uri != e.URI {
		return nil
	}
	fm, err := FrontMatter(data)
	if err != nil {
		return fmt.Errorf("%w: %q: %w", ErrMismatch, uri, err)
	}
	if field, ok := sameFrontMatter(e.FrontMatter, fm); !ok {
		return fmt.Errorf("%w: the front matter of %q differs from the listing in %q", ErrMismatch, uri, clip(field))
	}
	return nil
}

// FrontMatter parses the YAML front matter at the start of a SKILL.md:
// the mapping between a first line "---" and the next line "---",
// rendered as JSON would render it. No front matter, one that is not a
// mapping, or one over MaxFrontMatter bytes is an error.
func FrontMatter(data []byte) (map[string]any, error) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	rest, ok := cutLine(data, "---")
	if !ok {
		return nil, errors.New("no front matter: the file does not begin with ---")
	}
	end := -1
	for off := 0; off <= MaxFrontMatter && off <= len(rest); {
		line := rest[off:]
		i := bytes.IndexByte(line, '\n')
		if i >= 0 {
			line = line[:i]
		}
		if string(bytes.TrimRight(line, " \t\r")) == "---" {
			end = off
			break
		}
		if i < 0 {
			break
		}
		off += i + 1
	}
	if end < 0 {
		return nil, fmt.Errorf("no end of the front matter within %d bytes", MaxFrontMatter)
	}
	var v any
	if err := yaml.Unmarshal(rest[:end], &v); err != nil {
		return nil, fmt.Errorf("front matter: %w", err)
	}
	// Through JSON, so that it compares with the listing's JSON.
	b, err := json.Marshal(jsonable(v, 0))
	if err != nil {
		return nil, fmt.Errorf("front matter: %w", err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil || m == nil {
		return nil, errors.New("front matter: not a mapping")
	}
	return m, nil
}

// cutLine returns what follows data's first line when that line is want.
func cutLine(data []byte, want string) ([]byte, bool) {
	line, rest, found := bytes.Cut(data, []byte("\n"))
	if !found || string(bytes.TrimRight(line, " \t\r")) != want {
		return nil, false
	}
	return rest, true
}

// maxDepth bounds the nesting of front matter values.
const maxDepth = 64

// jsonable returns v with YAML's maps of any keys made maps of strings,
// so that encoding/json takes it; too deep a value becomes nil.
func jsonable(v any, depth int) any {
	if depth > maxDepth {
		return nil
	}
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, val := range x {
			out[k] = jsonable(val, depth+1)
		}
		return out
	case map[any]any:
		out := make(map[string]any, len(x))
		for k, val := range x {
			out[fmt.Sprint(k)] = jsonable(val, depth+1)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, val := range x {
			out[i] = jsonable(val, depth+1)
		}
		return out
	}
	return v
}

// sameFrontMatter reports whether the listing's front matter and the
// file's agree field by field, and else the first field (in the
// listing's or the file's keys) that differs.
func sameFrontMatter(listed, file map[string]any) (string, bool) {
	for _, k := range slices.Sorted(maps.Keys(listed)) {
		if w, ok := file[k]; !ok || !reflect.DeepEqual(listed[k], w) {
			return k, false
		}
	}
	for _, k := range slices.Sorted(maps.Keys(file)) {
		if _, ok := listed[k]; !ok {
			return k, false
		}
	}
	return "", true
}

// clip shortens a server's text for an error.
func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
