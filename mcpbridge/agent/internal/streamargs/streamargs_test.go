package streamargs

import (
	"encoding/json"
	"errors"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"
)

func str(path, s string, more bool) *genai.PartialArg {
	p := &genai.PartialArg{JsonPath: path, StringValue: s}
	if more {
		p.WillContinue = genai.Ptr(true)
	}
	return p
}

func num(path string, n float64) *genai.PartialArg {
	return &genai.PartialArg{JsonPath: path, NumberValue: &n}
}

func TestAssemble(t *testing.T) {
	tests := []struct {
		name   string
		chunks [][]*genai.PartialArg
		want   map[string]any
	}{
		{"none", nil, map[string]any{}},
		{"string in pieces", [][]*genai.PartialArg{
			{str("$.location", "Bos", true)}, {str("$.location", "ton", true)}, {str("$.location", ", MA", false)},
		}, map[string]any{"location": "Boston, MA"}},
		{"typed values", [][]*genai.PartialArg{{
			num("$.n", 50), {JsonPath: "$.b", BoolValue: genai.Ptr(false)}, {JsonPath: "$.z", NULLValue: "NULL_VALUE"},
			{JsonPath: "$.empty"},
		}}, map[string]any{"n": 50.0, "b": false, "z": nil, "empty": ""}},
		{"nested objects and arrays", [][]*genai.PartialArg{
			{str("$.foo.bar[0].data", "he", true)},
			{str("$.foo.bar[0].data", "llo", false), num("$.foo.bar[0].n", 1)},
			{str("$.foo.bar[1].data", "x", false)},
			{str("$.tags[0]", "a", false), str("$.tags[1]", "b", true), str("$.tags[1]", "c", false)},
			{num("$.m[0][0]", 1), num("$.m[0][1]", 2), num("$.m[1][0]", 3)},
		}, map[string]any{
			"foo":  map[string]any{"bar": []any{map[string]any{"data": "hello", "n": 1.0}, map[string]any{"data": "x"}}},
			"tags": []any{"a", "bc"},
			"m":    []any{[]any{1.0, 2.0}, []any{3.0}},
		}},
		{"bracketed names", [][]*genai.PartialArg{{
			str(`$['first-name']`, "Ada", false), str(`$["a.b"][ 0 ]`, "x", false),
			str(`$['it\'s']`, "y", false), str(`$["\u00e9\ud83d\ude00"]`, "z", false), str("$.café", "w", false),
		}}, map[string]any{"first-name": "Ada", "a.b": []any{"x"}, "it's": "y", "é😀": "z", "café": "w"}},
		{"a string still continuing ends with the call", [][]*genai.PartialArg{{str("$.a", "x", true)}}, map[string]any{"a": "x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := New(nil)
			for _, c := range tt.chunks {
				if err := a.Add(c); err != nil {
					t.Fatalf("Add() = %v", err)
				}
			}
			got, err := a.Args()
			if err != nil {
				t.Fatalf("Args() = %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Args() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAssembleMalformed(t *testing.T) {
	tests := []struct {
		name   string
		pieces []*genai.PartialArg
		want   error
		says   string
	}{
		{"no dollar", []*genai.PartialArg{str("a.b", "x", false)}, ErrMalformed, `does not start with "$"`},
		{"root", []*genai.PartialArg{str("$", "x", false)}, ErrMalformed, "arguments object itself"},
		{"empty name", []*genai.PartialArg{str("$.a.", "x", false)}, ErrMalformed, "empty name"},
		{"descendant", []*genai.PartialArg{str("$..a", "x", false)}, ErrMalformed, "descendant"},
		{"wildcard", []*genai.PartialArg{str("$.*", "x", false)}, ErrMalformed, "wildcard"},
		{"bracket wildcard", []*genai.PartialArg{str("$[*]", "x", false)}, ErrMalformed, "not a name or an index"},
		{"slice", []*genai.PartialArg{str("$.a[0:2]", "x", false)}, ErrMalformed, `expected "]"`},
		{"negative", []*genai.PartialArg{str("$.a[-1]", "x", false)}, ErrMalformed, "negative"},
		{"leading zero", []*genai.PartialArg{str("$.a[01]", "x", false)}, ErrMalformed, "leading zero"},
		{"huge index", []*genai.PartialArg{str("$.a[99999999999999999999]", "x", false)}, ErrMalformed, "too large"},
		{"unclosed bracket", []*genai.PartialArg{str("$.a[", "x", false)}, ErrMalformed, "unclosed"},
		{"unclosed quote", []*genai.PartialArg{str("$['a", "x", false)}, ErrMalformed, "unclosed quoted"},
		{"bad escape", []*genai.PartialArg{str(`$['\q']`, "x", false)}, ErrMalformed, "unknown escape"},
		{"lone surrogate", []*genai.PartialArg{str(`$['\ud800']`, "x", false)}, ErrMalformed, "lone surrogate"},
		{"not utf-8", []*genai.PartialArg{str("$.\xff", "x", false)}, ErrMalformed, "UTF-8"},
		{"two values", []*genai.PartialArg{{JsonPath: "$.a", StringValue: "x", NumberValue: genai.Ptr(1.0)}}, ErrMalformed, "more than one value"},
		{"bad null", []*genai.PartialArg{{JsonPath: "$.a", NULLValue: "nil"}}, ErrMalformed, "NULL_VALUE"},
		{"set twice", []*genai.PartialArg{num("$.a", 1), num("$.a", 2)}, ErrMalformed, "already is"},
		{"string after its end", []*genai.PartialArg{str("$.a", "x", true), str("$.a", "y", false), str("$.a", "z", false)}, ErrMalformed, "after the string's last piece"},
		{"string joined to number", []*genai.PartialArg{num("$.a", 1), str("$.a", "x", false)}, ErrMalformed, "joined to a number"},
		{"gap", []*genai.PartialArg{str("$.a[1]", "x", false)}, ErrMalformed, "skips elements"},
		{"object as array", []*genai.PartialArg{str("$.a.b", "x", false), str("$.a[0]", "y", false)}, ErrMalformed, "object is used as an array"},
		{"array as object", []*genai.PartialArg{str("$.a[0]", "x", false), str("$.a.b", "y", false)}, ErrMalformed, "array is used as an object"},
		{"value as container", []*genai.PartialArg{str("$.a", "x", false), str("$.a.b", "y", false)}, ErrMalformed, "a string is used as a container"},
		{"container replaced", []*genai.PartialArg{str("$.a.b", "x", false), num("$.a", 1)}, ErrMalformed, "an object already is"},
		{"root indexed", []*genai.PartialArg{str("$[0]", "x", false)}, ErrMalformed, "object is indexed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := New(nil)
			err := a.Add(tt.pieces)
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.says) {
				t.Fatalf("Add() = %v, want %v saying %q", err, tt.want, tt.says)
			}
			if _, err2 := a.Args(); err2 != err {
				t.Errorf("Args() = %v, want the error of Add", err2)
			}
			if err3 := a.Add([]*genai.PartialArg{str("$.ok", "x", false)}); err3 != err {
				t.Errorf("Add() after a failure = %v, want the first error", err3)
			}
		})
	}
}

func TestAssembleLimits(t *testing.T) {
	deep := "$" + strings.Repeat(".a", 5)
	tests := []struct {
		name   string
		lim    Limits
		pieces []*genai.PartialArg
	}{
		{"depth", Limits{MaxDepth: 4}, []*genai.PartialArg{str(deep, "x", false)}},
		{"bytes of strings", Limits{MaxBytes: 10}, []*genai.PartialArg{str("$.a", "12345", true), str("$.a", "67890", true), str("$.a", "1", false)}},
		{"bytes of names", Limits{MaxBytes: 10}, []*genai.PartialArg{str("$.abcdefghijk", "", false)}},
		{"pieces", Limits{MaxPieces: 2}, []*genai.PartialArg{str("$.a", "1", true), str("$.a", "2", true), str("$.a", "3", false)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := New(&tt.lim)
			if err := a.Add(tt.pieces); !errors.Is(err, ErrTooLarge) {
				t.Errorf("Add() = %v, want ErrTooLarge", err)
			}
		})
	}
	a := New(&Limits{MaxDepth: 5})
	if err := a.Add([]*genai.PartialArg{str(deep, "x", false)}); err != nil {
		t.Errorf("Add() at the depth limit = %v", err)
	}
}

// explode returns the pieces that stream v (an arguments object), with
// strings cut where cuts says, in a deterministic order.
func explode(v map[string]any, cuts []byte) []*genai.PartialArg {
	var out []*genai.PartialArg
	ci := 0
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch x := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				walk(path+"["+quote(k)+"]", x[k])
			}
		case []any:
			for i, e := range x {
				walk(path+"["+strconv.Itoa(i)+"]", e)
			}
		case string:
			for {
				n := len(x)
				if ci < len(cuts) && n > 0 {
					n = int(cuts[ci]) % (n + 1)
					ci++
				}
				out = append(out, str(path, x[:n], n < len(x)))
				if x = x[n:]; x == "" {
					return
				}
			}
		case float64:
			out = append(out, num(path, x))
		case bool:
			out = append(out, &genai.PartialArg{JsonPath: path, BoolValue: genai.Ptr(x)})
		case nil:
			out = append(out, &genai.PartialArg{JsonPath: path, NULLValue: "NULL_VALUE"})
		}
	}
	walk("$", v)
	return out
}

// quote writes name as a single-quoted RFC 9535 name.
func quote(name string) string {
	b, _ := json.Marshal(name)
	s := string(b[1 : len(b)-1])
	s = strings.ReplaceAll(s, `\"`, `"`)
	s = strings.ReplaceAll(s, `'`, `\'`)
	return "'" + s + "'"
}

// hasEmpty reports whether v holds an empty object or array below its
// top level (which no piece can express).
func hasEmpty(v any, top bool) bool {
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 0 && !top {
			return true
		}
		for _, e := range x {
			if hasEmpty(e, false) {
				return true
			}
		}
	case []any:
		if len(x) == 0 {
			return true
		}
		for _, e := range x {
			if hasEmpty(e, false) {
				return true
			}
		}
	}
	return false
}

// depth returns how deep v nests.
func depth(v any) int {
	d := 0
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			d = max(d, depth(e))
		}
	case []any:
		for _, e := range x {
			d = max(d, depth(e))
		}
	default:
		return 0
	}
	return d + 1
}

// FuzzAssemble: arbitrary pieces never panic and, when they assemble,
// give JSON arguments; the pieces that stream a JSON object, with strings
// cut anywhere, assemble back to that object exactly.
func FuzzAssemble(f *testing.F) {
	f.Add(`{"a":"hello","b":[1,{"c":"x y"}],"d":null,"e":true}`, []byte{1, 2, 3}, "$.a[0]", "x")
	f.Add(`{"it's":{"\"q\"":["é😀"]}}`, []byte{0, 5}, `$['a'][0].b`, "")
	f.Add(`{}`, []byte{}, `$..a`, "z")
	f.Fuzz(func(t *testing.T, doc string, cuts []byte, path, s string) {
		// Arbitrary pieces.
		a := New(&Limits{MaxDepth: 8, MaxBytes: 1 << 12})
		_ = a.Add([]*genai.PartialArg{str(path, s, true), num(path+".n", 1), str(path+"[0]", s, false), str(path, s, false)})
		if args, err := a.Args(); err == nil {
			if _, err := json.Marshal(args); err != nil {
				t.Fatalf("assembled arguments do not marshal: %v", err)
			}
		}
		// Round trip.
		var v map[string]any
		if json.Unmarshal([]byte(doc), &v) != nil || v == nil || hasEmpty(v, true) || depth(v) > DefaultMaxDepth {
			return
		}
		b := New(nil)
		for _, p := range explode(v, cuts) {
			if err := b.Add([]*genai.PartialArg{p}); err != nil {
				t.Fatalf("Add(%+v) = %v", p, err)
			}
		}
		got, err := b.Args()
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(v, got); diff != "" {
			t.Fatalf("round trip mismatch (-want +got):\n%s", diff)
		}
	})
}
