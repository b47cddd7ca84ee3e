package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/tools/txtar"
	"google.golang.org/genai"
)

// argsPerGolden is how many argument sets TestRestoreProperty generates
// per golden file and target.
const argsPerGolden = 40

// TestRestoreProperty is the restorer's property over every golden file:
// arguments generated from the converted schema, as a model that follows
// it and its descriptions would write them, once restored, validate
// against the original schema, except where a Change records the rule
// that was dropped. It logs the figures (go test -v -run
// TestRestoreProperty).
func TestRestoreProperty(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "golden", "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	var total, valid, excused, skipped int
	reasons := map[string]int{} // what explained the invalid ones
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".txtar")
		ar, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		input, _ := section(ar, "input.json")
		sch, err := compileOriginal(input)
		if err != nil {
			continue // not a schema the validator takes (boolean false root, ...)
		}
		var doc any
		if err := json.Unmarshal(input, &doc); err != nil {
			t.Fatal(err)
		}
		for _, target := range []Target{Gemini, Vertex} {
			res, err := Convert(input, &Options{Target: target})
			if err != nil {
				t.Fatalf("%s: Convert(%v): %v", name, target, err)
			}
			for i := range argsPerGolden {
				g := &argGen{r: rand.New(rand.NewPCG(uint64(i), uint64(len(name))))}
				args, ok := g.value(res.Parameters, 0).(map[string]any)
				if !ok || g.gaveUp {
					skipped++
					continue
				}
				total++
				restored := roundTrip(t, res.Restorer.Restore(args))
				verr := sch.Validate(restored)
				if verr == nil {
					valid++
					continue
				}
				var ve *jsonschema.ValidationError
				if !errors.As(verr, &ve) {
					t.Fatalf("%s: validation error %T: %v", name, verr, verr)
				}
				ex := &excuses{changes: res.Changes, doc: doc, cuts: g.cuts, reasons: reasons}
				if unexcused := ex.unexcused(ve); len(unexcused) > 0 {
					t.Errorf("%s/%v: Restore(%s) = %s does not validate against the original, and no Change explains:\n%s",
						name, target, mustJSON(t, args), mustJSON(t, restored), strings.Join(unexcused, "\n"))
					continue
				}
				excused++
			}
		}
	}
	t.Logf("restore property: %d argument sets over %d golden files (Gemini and Vertex): %d valid, %d invalid only where a Change records the dropped rule, %d not generated",
		total, len(files), valid, excused, skipped)
	for _, r := range sortedKeys(reasons) {
		t.Logf("  failures explained by %s: %d", r, reasons[r])
	}
	if total == 0 || valid == 0 {
		t.Errorf("no argument set validated (%d generated)", total)
	}
}

// compileOriginal compiles a golden input as the validator reads it.
func compileOriginal(input []byte) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(input))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("input.json", doc); err != nil {
		return nil, err
	}
	return c.Compile("input.json")
}

// roundTrip encodes v and decodes it as the validator does.
func roundTrip(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("json.Marshal(restored): %v", err)
	}
	out, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// unexcusedCauses returns the leaf causes of e that no change explains.
// A change explains a failed keyword when it was reported at the failing
// schema node, or at its parent when the node is a branch or position
// (anyOf.1, prefixItems.0), and names that keyword or rewrites the node as
// a whole (a union merged, tuple positions merged, a reference cut).
//
// A failed anyOf or oneOf is explained when one of its branches fails
// only in explained ways; otherwise the branch with the fewest
// unexplained failures is reported.
//
// Two more explanations: a value the model wrote into a placeholder for a
// schema that was cut (a recursion, too deep, too large) when a Change
// records the cut, and null where the original says "nullable": true, an
// OpenAPI keyword that JSON Schema validators ignore.
func (x *excuses) unexcused(e *jsonschema.ValidationError) []string {
	node := schemaPath(e.SchemaURL)
	kw := e.ErrorKind.KeywordPath()
	keyword := ""
	if len(kw) > 0 {
		keyword = kw[0]
	}
	if len(e.Causes) > 0 && (keyword == "anyOf" || keyword == "oneOf") {
		var best []string
		for i, c := range e.Causes {
			u := x.unexcused(c)
			if len(u) == 0 {
				return nil
			}
			if i == 0 || len(u) < len(best) {
				best = u
			}
		}
		return best
	}
	if len(e.Causes) > 0 {
		var out []string
		for _, c := range e.Causes {
			out = append(out, x.unexcused(c)...)
		}
		return out
	}
	switch {
	case excusedBy(x.changes, node, keyword):
		x.reasons["a Change on the rule ("+cmpKeyword(keyword)+")"]++
		return nil
	case x.inCut(e.InstanceLocation):
		x.reasons["written into a placeholder for a cut schema"]++
		return nil
	case keyword == "type" && x.enumOutsideType(node):
		x.reasons["the original accepts no value (an enum outside its type)"]++
		return nil
	case keyword == "type" && x.nullableNull(node, e):
		x.reasons["null where the original says nullable (OpenAPI)"]++
		return nil
	}
	return []string{fmt.Sprintf("  at %q, schema %q keyword %q: %v", "/"+strings.Join(e.InstanceLocation, "/"), node, keyword, e.ErrorKind)}
}

// cmpKeyword names a failed keyword for the figures; "" is the schema
// false.
func cmpKeyword(k string) string {
	if k == "" {
		return "false"
	}
	return k
}

// excuses knows what explains a validation failure of restored arguments.
type excuses struct {
	changes []Change
	doc     any            // the original schema
	cuts    [][]string     // instance locations written into cut placeholders
	reasons map[string]int // counts of what explained a failure, by kind
}

// inCut reports whether loc is at or below a value written into a
// placeholder for a cut schema, and a Change records a cut.
func (x *excuses) inCut(loc []string) bool {
	cut := false
	for _, c := range x.changes {
		for _, r := range []string{"cut", "too deep", "too large", "unresolvable", "not found", "any value"} {
			cut = cut || strings.Contains(c.Detail, r)
		}
	}
	if !cut {
		return false
	}
	for _, p := range x.cuts {
		if len(loc) >= len(p) && slices.Equal(loc[:len(p)], p) {
			return true
		}
	}
	return false
}

// enumOutsideType reports whether the original node at path has a type
// and an enum none of whose members is of that type: no value is valid.
func (x *excuses) enumOutsideType(path string) bool {
	m, _ := x.original(path).(map[string]any)
	vals, ok := m["enum"].([]any)
	if !ok {
		return false
	}
	types := typeNames(m["type"])
	if len(types) == 0 {
		return false
	}
	for _, v := range vals {
		k := jsonKind(v)
		if containsStr(types, k) || k == "number" && containsStr(types, "integer") {
			return false
		}
	}
	return true
}

// original returns the value at the dotted path in the original schema.
func (x *excuses) original(path string) any {
	if path == "" {
		return x.doc
	}
	return valueAt(x.doc, strings.Split(path, "."))
}

// nullableNull reports whether e is a null rejected by a node of the
// original that says "nullable": true.
func (x *excuses) nullableNull(node string, e *jsonschema.ValidationError) bool {
	m, _ := x.original(node).(map[string]any)
	return m["nullable"] == true && strings.Contains(fmt.Sprint(e.ErrorKind), "null")
}

// excusedBy reports whether a change explains the failed keyword at
// the schema node: a change to that keyword at the node, or a dropped
// keyword that held the node.
func excusedBy(changes []Change, node, keyword string) bool {
	for _, c := range changes {
		// A dropped keyword explains everything inside the subschema it
		// held (then, contains, dependentSchemas, not, ...).
		if held := join(c.Path, c.Keyword); (node == held || strings.HasPrefix(node, held+".")) &&
			(strings.Contains(c.Detail, "dropped") || strings.Contains(c.Detail, "moved to the description")) {
			return true
		}
		if c.Path != node || lossless(c) {
			continue
		}
		if keyword != "" && c.Keyword == keyword {
			return true
		}
		if keyword == "" && strings.Contains(c.Detail, "boolean schema false") {
			return true // no value is valid
		}
	}
	return false
}

// lossless reports whether c is a rewrite the Restorer undoes, which
// explains no failure.
func lossless(c Change) bool {
	for _, d := range []string{"in the arguments", "written as a one-member enum", "set for the enum"} {
		if strings.Contains(c.Detail, d) {
			return true
		}
	}
	return false
}

// schemaPath turns the location of a schema node,
// "file:///…/input.json#/properties/a~1b", into its dotted path,
// "properties.a/b".
func schemaPath(u string) string {
	_, frag, _ := strings.Cut(u, "#")
	frag, _ = url.PathUnescape(frag)
	if frag == "" {
		return ""
	}
	parts := strings.Split(strings.TrimPrefix(frag, "/"), "/")
	for i, p := range parts {
		parts[i] = strings.ReplaceAll(strings.ReplaceAll(p, "~1", "/"), "~0", "~")
	}
	return strings.Join(parts, ".")
}

// argGen writes arguments for a converted schema as a model that follows
// it would: within its types, enums, bounds and required names, objects
// written as JSON text where the description says so, map values as the
// description names them, tuple items in the order it gives. Now and then
// it writes a number as text inside JSON text, as models do.
type argGen struct {
	r      *rand.Rand
	gaveUp bool       // a pattern it could not satisfy
	path   []string   // where the value being written goes
	cuts   [][]string // where it wrote into a placeholder for a cut schema
}

// cutReasons are the reasons a placeholder gives for a schema it could
// not describe (a recursion cut, too deep, too large, unresolved).
var cutReasons = []string{"nested too deep", "recursive ", "too large to describe", "unresolved reference", "no value is valid"}

const genMaxDepth = 12

func (g *argGen) value(s *genai.Schema, depth int) any {
	if s == nil || depth > genMaxDepth {
		return "x"
	}
	if len(s.AnyOf) > 0 {
		return g.value(s.AnyOf[g.r.IntN(len(s.AnyOf))], depth+1)
	}
	if s.Nullable != nil && *s.Nullable && g.r.IntN(6) == 0 {
		return nil
	}
	if len(s.Enum) > 0 {
		return s.Enum[g.r.IntN(len(s.Enum))]
	}
	switch s.Type {
	case genai.TypeString:
		return g.str(s)
	case genai.TypeInteger:
		return json.Number(strconv.FormatInt(g.integer(s), 10))
	case genai.TypeNumber:
		lo, hi := bounds(s, 0, 10)
		return json.Number(strconv.FormatFloat(lo+(hi-lo)/2, 'g', -1, 64))
	case genai.TypeBoolean:
		return g.r.IntN(2) == 0
	case genai.TypeNULL:
		return nil
	case genai.TypeArray:
		return g.array(s, depth)
	case genai.TypeObject:
		return g.object(s, depth)
	}
	return "x"
}

func bounds(s *genai.Schema, lo, hi float64) (float64, float64) {
	if s.Minimum != nil {
		lo = *s.Minimum
		if s.Maximum == nil || *s.Maximum > lo+10 {
			hi = lo + 10
		}
	}
	if s.Maximum != nil {
		hi = *s.Maximum
		if s.Minimum == nil && lo > hi {
			lo = hi - 10
		}
	}
	return lo, hi
}

func (g *argGen) integer(s *genai.Schema) int64 {
	lo, hi := bounds(s, 0, 10)
	l, h := int64(lo), int64(hi)
	if float64(l) < lo {
		l++
	}
	if h < l {
		return l
	}
	return l + g.r.Int64N(h-l+1)
}

func (g *argGen) str(s *genai.Schema) any {
	d := s.Description
	switch {
	case strings.Contains(d, "a JSON object, written as JSON text"):
		return g.mapText(d)
	case strings.Contains(d, anyValueNote):
		for _, r := range cutReasons {
			if strings.Contains(d, r) {
				g.cuts = append(g.cuts, slices.Clone(g.path))
				break
			}
		}
		switch g.r.IntN(3) {
		case 0:
			return `{"k": [1, "two"]}`
		case 1:
			return `[true, null]`
		}
		return "text"
	case s.Format == "date-time":
		return "2026-01-02T03:04:05Z"
	}
	candidates := []string{"abc", "a", "x-1", "A1", "0", "test@example.com", "a_b", "hello world", "2026-01-02"}
	if s.Pattern != "" {
		re, err := regexp.Compile(s.Pattern)
		if err != nil {
			g.gaveUp = true
			return "a"
		}
		var fits []string
		for _, c := range candidates {
			if re.MatchString(c) {
				fits = append(fits, c)
			}
		}
		if len(fits) == 0 {
			g.gaveUp = true
			return "a"
		}
		candidates = fits
	}
	out := candidates[g.r.IntN(len(candidates))]
	if s.MinLength != nil && int64(len(out)) < *s.MinLength {
		out += strings.Repeat("a", int(*s.MinLength)-len(out))
	}
	if s.MaxLength != nil && int64(len(out)) > *s.MaxLength {
		out = out[:*s.MaxLength]
	}
	return out
}

// mapText writes a JSON object as text, its values as the description's
// "values: …" note names them.
func (g *argGen) mapText(desc string) string {
	var choices []string
	if _, rest, ok := strings.Cut(desc, "values: "); ok {
		rest, _, _ = strings.Cut(rest, ";")
		rest = strings.TrimSuffix(rest, ")")
		for _, part := range strings.Split(rest, ", ") {
			choices = append(choices, strings.Split(part, " or ")...)
		}
	}
	n := g.r.IntN(3)
	if strings.Contains(desc, "minProperties: ") {
		n = max(n, 2)
	}
	m := map[string]any{}
	for i := range n {
		key := "k" + strconv.Itoa(i)
		if len(choices) == 0 {
			m[key] = "v"
			continue
		}
		m[key] = g.mapValue(strings.TrimSpace(choices[g.r.IntN(len(choices))]))
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// mapValue writes one value named by a brief description.
func (g *argGen) mapValue(c string) any {
	var lit any
	if json.Unmarshal([]byte(c), &lit) == nil {
		if f, ok := lit.(float64); ok && g.r.IntN(3) == 0 {
			return strconv.FormatFloat(f, 'g', -1, 64) // a number as text
		}
		return lit
	}
	switch c {
	case "integer", "number":
		if g.r.IntN(3) == 0 {
			return "3"
		}
		return 3
	case "boolean":
		return true
	case "string", "any value":
		return "text"
	case "null":
		return nil
	case "object":
		return map[string]any{}
	}
	if strings.HasPrefix(c, "array of") {
		return []any{}
	}
	g.gaveUp = true // {a, b} and the like: the model would need more
	return nil
}

func (g *argGen) array(s *genai.Schema, depth int) any {
	lo := 0
	if s.MinItems != nil {
		lo = int(*s.MinItems)
	}
	hi := lo + 2
	if s.MaxItems != nil && int(*s.MaxItems) < hi {
		hi = int(*s.MaxItems)
	}
	n := lo
	if hi > lo {
		n += g.r.IntN(hi - lo + 1)
	}
	order := tupleOrder(s)
	if order != nil {
		n = max(len(order), lo)
	}
	out := make([]any, n)
	for i := range out {
		item := s.Items
		if i < len(order) && order[i] != nil {
			item = order[i]
		}
		g.path = append(g.path, strconv.Itoa(i))
		out[i] = g.value(item, depth+1)
		g.path = g.path[:len(g.path)-1]
	}
	return out
}

// tupleOrder reads the note "items in this order: a; b; c" of an array
// whose items are an anyOf, and returns for each position the branch the
// note names (nil when none matches).
func tupleOrder(s *genai.Schema) []*genai.Schema {
	_, rest, ok := strings.Cut(s.Description, "items in this order: ")
	if !ok || s.Items == nil {
		return nil
	}
	rest = strings.TrimSuffix(rest, ")")
	var out []*genai.Schema
	for _, text := range strings.Split(rest, "; ") {
		if strings.HasPrefix(text, "then any number of") {
			break
		}
		var pick *genai.Schema
		branches := s.Items.AnyOf
		if len(branches) == 0 {
			branches = []*genai.Schema{s.Items}
		}
		for _, b := range branches {
			if brief(b, nil, false) == text {
				pick = b
				break
			}
		}
		out = append(out, pick)
	}
	return out
}

func (g *argGen) object(s *genai.Schema, depth int) any {
	out := map[string]any{}
	for _, name := range sortedKeys(s.Properties) {
		if slices.Contains(s.Required, name) || g.r.IntN(2) == 0 {
			g.path = append(g.path, name)
			out[name] = g.value(s.Properties[name], depth+1)
			g.path = g.path[:len(g.path)-1]
		}
	}
	return out
}
