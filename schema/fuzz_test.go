package schema

import (
	"cmp"
	"encoding/json"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
	"google.golang.org/genai"
)

// maxFuzzSeed is the largest golden input used as a fuzz seed.
const maxFuzzSeed = 20_000

// fuzzSeeds adds every golden input (and its args.json, if any) to f.
func fuzzSeeds(f *testing.F, withArgs bool) {
	files, err := filepath.Glob(filepath.Join("testdata", "golden", "*.txtar"))
	if err != nil || len(files) == 0 {
		f.Fatalf("no golden files: %v", err)
	}
	for _, file := range files {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			f.Fatal(err)
		}
		in, _ := section(ar, "input.json")
		if len(in) > maxFuzzSeed {
			continue // the Notion fixture: slow to mutate, covered by TestGolden
		}
		if !withArgs {
			f.Add(in)
			continue
		}
		args, ok := section(ar, "args.json")
		if !ok {
			args = []byte(`{"value":"1","x":null,"y":["2",{"z":true}]}`)
		}
		f.Add(in, args)
	}
}

// FuzzConvert checks, for arbitrary bytes and every target, that Convert
// never panics, rejects only non-JSON, and that its output passes the
// checker, is deterministic, is a fixed point and leaves the input intact.
func FuzzConvert(f *testing.F) {
	fuzzSeeds(f, false)
	f.Add([]byte(`{"$ref":"#"}`))
	f.Add([]byte(`{"type":"object","properties":{"a":{"$ref":"#/properties/a"}}}`))
	f.Add([]byte(`{"allOf":[{"$ref":"#"}],"anyOf":[{"oneOf":[{"const":null}]}]}`))
	f.Add([]byte(`[1,"x",{"type":["null"]}]`))
	f.Add([]byte(`{"type":"object","required":["a"],"properties":{"a":{"$ref":"#/$defs/A"}},"$defs":{"A":{"type":"object",` +
		`"required":["n"],"properties":{"n":{"anyOf":[{"type":"string"},{"$ref":"#/$defs/A"}]},"m":{"$ref":"#/properties/a"}}}}}`))
	f.Add([]byte(`{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"string","description":` +
		`"a description long enough to be written once and pointed to afterwards"}}},"c":{"$ref":"#/properties/a","title":"t"}}}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		for _, target := range allTargets {
			// The default budget, and one small enough that the seeds'
			// references are cut to fit it.
			for _, budget := range []Size{0, 300} {
				opts := &Options{Target: target, Budget: budget}
				res, err := Convert(raw, opts)
				if err != nil {
					if json.Valid(raw) {
						t.Fatalf("Convert(%q, %v) error on valid JSON: %v", raw, target, err)
					}
					continue
				}
				assertConvertedWith(t, raw, opts, res)
				if res.Size != Size(len(mustJSON(t, outputValue(res)))) {
					t.Errorf("Convert(%q, %v).Size = %d, want the output's %d bytes", raw, target, res.Size, len(mustJSON(t, outputValue(res))))
				}
			}
		}
	})
}

// FuzzRestore checks that restoring arbitrary arguments with the Restorer
// of an arbitrary schema never panics and never modifies the arguments.
func FuzzRestore(f *testing.F) {
	fuzzSeeds(f, true)
	// Two branches that take {"n": "1"} equally and restore it differently.
	f.Add([]byte(`{"type":"object","properties":{"v":{"anyOf":[{"type":"object","properties":{"n":{"enum":[1,2]}}},`+
		`{"type":"object","properties":{"n":{"enum":["1",5]}}}]}}}`), []byte(`{"v":{"n":"1"}}`))
	f.Fuzz(func(t *testing.T, raw, rawArgs []byte) {
		var args map[string]any
		if json.Unmarshal(rawArgs, &args) != nil {
			return
		}
		for _, opts := range []*Options{{Target: Gemini}, {Target: Vertex}, {Target: JSONSchema}, {Target: Gemini, Budget: 300}} {
			res, err := Convert(raw, opts)
			if err != nil {
				return
			}
			got := restoreChecked(t, res.Restorer, args)
			if _, err := json.Marshal(got); err != nil {
				t.Fatalf("Restore(%s) returned a value JSON cannot encode: %v", rawArgs, err)
			}
			for _, m := range res.Restorer.Mismatches(got) {
				if len(m.Branches) > 0 {
					// An ambiguous choice: two or more branches, in order.
					if len(m.Branches) < 2 || !slices.IsSorted(m.Branches) || len(m.Allowed) > 0 || valueAt(got, m.Path) == nil {
						t.Errorf("Mismatches(Restore(%s)) = %+v, want an ambiguity naming 2+ branches in order at a value", rawArgs, m)
					}
					continue
				}
				if len(m.Allowed) == 0 || slices.Contains(m.Allowed, m.Value) || valueAt(got, m.Path) != any(m.Value) {
					t.Errorf("Mismatches(Restore(%s)) = %+v, want the string found at its path and not allowed", rawArgs, m)
				}
			}
			if res.Restorer.Identity() {
				if diff := mustJSON(t, got); string(diff) != string(mustJSON(t, args)) {
					t.Errorf("identity Restore(%s) = %s, want the arguments unchanged", rawArgs, diff)
				}
			}
		}
	})
}

// valueAt returns the value at path (property names, array indexes) in v.
func valueAt(v any, path []string) any {
	for _, p := range path {
		switch cur := v.(type) {
		case map[string]any:
			v = cur[p]
		case []any:
			i, err := strconv.Atoi(p)
			if err != nil || i < 0 || i >= len(cur) {
				return nil
			}
			v = cur[i]
		default:
			return nil
		}
	}
	return v
}

// FuzzCheck feeds arbitrary JSON to the checkers, as a *genai.Schema and as
// a raw value: they never panic, and report deterministically, sorted.
func FuzzCheck(f *testing.F) {
	fuzzSeeds(f, false)
	f.Add([]byte(`{"type":"ARRAY","items":{},"anyOf":[null],"properties":{"a":null},"minimum":5,"maximum":1}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		var v any
		if json.Unmarshal(raw, &v) != nil {
			return
		}
		sorted := func(vs []Violation) {
			t.Helper()
			if !slices.IsSortedFunc(vs, func(a, b Violation) int {
				return cmp.Or(strings.Compare(a.Path, b.Path), strings.Compare(a.Message, b.Message))
			}) {
				t.Errorf("violations not sorted: %v", vs)
			}
		}
		first := CheckJSONSchema(v)
		sorted(first)
		if again := CheckJSONSchema(v); !slices.Equal(first, again) {
			t.Errorf("CheckJSONSchema(%s) not deterministic: %v then %v", raw, first, again)
		}
		var s genai.Schema
		if json.Unmarshal(raw, &s) != nil {
			return
		}
		for _, target := range allTargets {
			vs := CheckDeclaration(&genai.FunctionDeclaration{Name: "f", Parameters: &s}, target)
			sorted(vs)
		}
	})
}
