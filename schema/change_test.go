package schema

import (
	"bytes"
	"cmp"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestChangeString(t *testing.T) {
	cases := []struct {
		c    Change
		want string
	}{
		{Change{Path: "properties.x", Keyword: "oneOf", Detail: "treated as anyOf"}, "properties.x: oneOf: treated as anyOf"},
		{Change{Keyword: "$schema", Detail: "dropped"}, "(root): $schema: dropped"},
	}
	for _, tc := range cases {
		if got := tc.c.String(); got != tc.want {
			t.Errorf("Change%+v.String() = %q, want %q", tc.c, got, tc.want)
		}
	}
}

func TestChangesUseOriginalPathsOnce(t *testing.T) {
	// A definition used three times reports its own rewrites once, at its
	// place in the original document.
	in := `{"type":"object","properties":{"a":{"$ref":"#/$defs/N"},"b":{"$ref":"#/$defs/N"},"c":{"type":"array","items":{"$ref":"#/$defs/N"}}},
		"$defs":{"N":{"type":"integer","enum":[1,2]}}}`
	res := cvConvert(t, in, Gemini)
	count := 0
	for _, c := range res.Changes {
		if c.Path == "$defs.N" && c.Keyword == "enum" {
			count++
		}
	}
	if count != 1 {
		t.Errorf("Convert(shared definition).Changes = %v, want one enum change at $defs.N", res.Changes)
	}
	for _, want := range []Change{
		{Path: "properties.a", Keyword: "$ref", Detail: `inlined "#/$defs/N"`},
		{Path: "properties.c.items", Keyword: "$ref", Detail: `inlined "#/$defs/N"`},
	} {
		if !slices.Contains(res.Changes, want) {
			t.Errorf("Convert(shared definition).Changes = %v, want %v", res.Changes, want)
		}
	}
}

func TestNoChangesForCleanSchemas(t *testing.T) {
	for _, in := range []string{
		``,
		`{"type":"object","properties":{"a":{"type":"string","description":"x"},"b":{"type":"array","items":{"type":"integer","format":"int32"}}},"required":["a"]}`,
		`{"type":"OBJECT","properties":{"e":{"type":"STRING","enum":["a","b"],"nullable":true}}}`,
	} {
		for _, target := range []Target{Gemini, Vertex} {
			if res := cvConvert(t, in, target); len(res.Changes) > 0 {
				t.Errorf("Convert(%s, %v).Changes = %v, want none", in, target, res.Changes)
			}
		}
	}
}

func TestComparePaths(t *testing.T) {
	// Each path sorts before the next one.
	order := []string{"", "$defs", "$defs.A", "$defs.A.properties.x", "$defs.B", "anyOf.0", "anyOf.2", "anyOf.10", "properties", "properties.a", "properties.a.items", "properties.b"}
	for i := range order {
		for j := range order {
			want := cmpInts(i, j)
			if got := comparePaths(order[i], order[j]); got != want {
				t.Errorf("comparePaths(%q, %q) = %d, want %d", order[i], order[j], got, want)
			}
		}
	}
}

func cmpInts(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func TestChangesSameOrderForEveryTarget(t *testing.T) {
	// The root's changes come first whatever the target, and the anchor's
	// target is reported at its definition, once.
	in := `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",
		"$defs":{"time":{"$anchor":"time","type":"string","format":"time"}},
		"properties":{"a":{"$ref":"#time"},"b":{"$ref":"#/$defs/time"}}}`
	for _, target := range cvTargets {
		res := cvConvert(t, in, target)
		var paths []string
		for _, c := range res.Changes {
			paths = append(paths, c.Path)
			if c.Path == "time" {
				t.Errorf("Convert(%v).Changes has %v, want the anchor's definition $defs.time", target, c)
			}
		}
		if len(paths) == 0 || paths[0] != "" {
			t.Errorf("Convert(%v).Changes paths = %q, want the root first", target, paths)
		}
		anchors := 0
		for _, c := range res.Changes {
			if c.Keyword == "$anchor" {
				anchors++
			}
		}
		if anchors != 1 {
			t.Errorf("Convert(%v).Changes = %v, want the $anchor dropped once", target, res.Changes)
		}
	}
}

// assertChanges checks what every Changes list must be: each change has a
// keyword and a detail, a path that exists in the original document raw,
// appears once, and the list is sorted by path.
func assertChanges(t testing.TB, raw []byte, res *Result) {
	t.Helper()
	var doc any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	hasDoc := dec.Decode(&doc) == nil
	seen := map[Change]bool{}
	for i, c := range res.Changes {
		if c.Keyword == "" || c.Detail == "" {
			t.Errorf("Convert(%v).Changes[%d] = %q, want a keyword and a detail", res.Target, i, c)
		}
		if seen[c] {
			t.Errorf("Convert(%v).Changes lists %q twice", res.Target, c)
		}
		seen[c] = true
		if hasDoc && !pathExists(doc, c.Path) {
			t.Errorf("Convert(%v).Changes[%d] = %q, want a path of the original schema", res.Target, i, c)
		}
		if i > 0 && comparePaths(res.Changes[i-1].Path, c.Path) > 0 {
			t.Errorf("Convert(%v).Changes not sorted by path: %q before %q", res.Target, res.Changes[i-1], c)
		}
	}
}

// pathExists reports whether the dotted path names a value in v. Names
// may hold dots themselves, so every split is tried.
func pathExists(v any, path string) bool {
	if path == "" {
		return true
	}
	switch cur := v.(type) {
	case map[string]any:
		for i := 0; i <= len(path); i++ {
			if i < len(path) && path[i] != '.' {
				continue
			}
			if next, ok := cur[path[:i]]; ok {
				rest := ""
				if i < len(path) {
					rest = path[i+1:]
				}
				if pathExists(next, rest) {
					return true
				}
			}
		}
	case []any:
		head, rest, _ := strings.Cut(path, ".")
		if i, err := strconv.Atoi(head); err == nil && i >= 0 && i < len(cur) {
			return pathExists(cur[i], rest)
		}
	}
	return false
}

// comparePathsSplit is the reference comparePaths: split both paths, then
// compare element by element with strconv.Atoi for indexes.
func comparePathsSplit(a, b string) int {
	if a == b {
		return 0
	}
	if a == "" {
		return -1
	}
	if b == "" {
		return 1
	}
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(as) && i < len(bs); i++ {
		x, xerr := strconv.Atoi(as[i])
		y, yerr := strconv.Atoi(bs[i])
		if xerr == nil && yerr == nil && x >= 0 && y >= 0 && x != y {
			return cmp.Compare(x, y)
		}
		if c := strings.Compare(as[i], bs[i]); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(as), len(bs))
}

func TestComparePathsMatchesSplit(t *testing.T) {
	elems := []string{"", "a", "b", "0", "1", "2", "10", "007", "+1", "-1", "-0", "1a", "99999999999999999999", "$defs", "properties"}
	var paths []string
	for _, x := range elems {
		paths = append(paths, x)
		for _, y := range elems {
			paths = append(paths, x+"."+y)
			for _, z := range []string{"", "1", "b"} {
				paths = append(paths, x+"."+y+"."+z)
			}
		}
	}
	for _, a := range paths {
		for _, b := range paths {
			if got, want := comparePaths(a, b), comparePathsSplit(a, b); got != want {
				t.Errorf("comparePaths(%q, %q) = %d, want %d", a, b, got, want)
			}
		}
	}
}
