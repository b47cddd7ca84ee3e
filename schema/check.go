package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"

	"google.golang.org/genai"
)

// Checker limits. The API's own nesting limit is undocumented (its error is
// "A FunctionDeclaration in the request exceeds the maximum allowed nesting
// depth."); the checker allows checkMaxDepth schema levels below the root,
// which is at least what the converter's default depth cap keeps, and flags
// anything deeper as a risk. checkMaxNodes bounds the work on shared
// (DAG-shaped) *genai.Schema graphs, whose serialized form is a tree.
const (
	checkMaxDepth = 32
	checkMaxNodes = 250_000
	chkMaxNameLen = 64
)

// Violation is one way a schema or function declaration breaks a target's
// rules.
type Violation struct {
	// Path is the dotted path of the offending node in the checked value:
	// "" for the root, "properties.x.items", "anyOf.1". [CheckDeclaration]
	// prefixes it with the declaration field: "parameters.properties.x".
	Path string
	// Message says what is wrong, in the API's own wording where it is
	// known: "enum: only allowed for STRING type", "items: missing field."
	// (docs/gemini-schema.md says which wordings are confirmed).
	Message string
}

// String returns "path: message", with the root shown as "(root)".
func (v Violation) String() string {
	p := v.Path
	if p == "" {
		p = "(root)"
	}
	return p + ": " + v.Message
}

// Check reports every way s breaks target's rules for a `parameters` schema
// (a *genai.Schema), sorted by path and then message; nil means none found.
//
// For [Gemini] every node needs one of the seven types; for [Vertex] the type
// may be omitted, NULL is not a type, and anyOf must be the only field of its
// node. [JSONSchema] applies the Gemini rules, since a *genai.Schema is always
// sent as `parameters`. Check does not require the root to be an OBJECT
// (so it also suits response schemas); [CheckDeclaration] does. The rules
// and their sources are listed in the repository's docs/gemini-schema.md.
//
// A nil s has nothing to check. Nil schemas inside Properties or AnyOf,
// pointer cycles and graphs too large to serialize are reported, never
// followed. s is not modified. Check is safe for concurrent use.
func Check(s *genai.Schema, target Target) []Violation {
	if s == nil {
		return nil
	}
	if target != Vertex {
		target = Gemini
	}
	c := &genaiChecker{target: target, onPath: map[*genai.Schema]string{}}
	c.node(s, "", 0)
	return chkSort(c.out)
}

type genaiChecker struct {
	target  Target
	out     []Violation
	onPath  map[*genai.Schema]string
	nodes   int
	stopped bool
}

func (c *genaiChecker) add(path, format string, args ...any) {
	c.out = append(c.out, Violation{Path: path, Message: fmt.Sprintf(format, args...)})
}

var (
	chkTypes = map[genai.Type]bool{
		genai.TypeString: true, genai.TypeNumber: true, genai.TypeInteger: true,
		genai.TypeBoolean: true, genai.TypeArray: true, genai.TypeObject: true,
		genai.TypeNULL: true,
	}
	chkFormats = map[genai.Type][]string{
		genai.TypeString:  {"enum", "date-time"},
		genai.TypeInteger: {"int32", "int64"},
		genai.TypeNumber:  {"float", "double"},
	}
)

// node checks s, found at path, depth levels below the root.
func (c *genaiChecker) node(s *genai.Schema, path string, depth int) {
	if c.stopped {
		return
	}
	if s == nil {
		c.add(path, "schema is nil")
		return
	}
	if prev, ok := c.onPath[s]; ok {
		if prev == "" {
			prev = "(root)"
		}
		c.add(path, "schema cycle: refers back to its ancestor at %s", prev)
		return
	}
	if depth > checkMaxDepth {
		c.add(path, "exceeds the maximum allowed nesting depth (%d levels)", checkMaxDepth)
		return
	}
	if c.nodes++; c.nodes > checkMaxNodes {
		c.stopped = true
		c.add("", "schema too large: more than %d nodes when serialized", checkMaxNodes)
		return
	}
	c.onPath[s] = path
	defer delete(c.onPath, s)

	c.checkType(s, path)
	c.checkAnyOf(s, path)
	c.checkEnum(s, path)
	c.checkFormat(s, path)
	c.checkObject(s, path)
	c.checkBounds(s, path)
	c.checkValues(s, path)

	// Children, in a deterministic order.
	for i, b := range s.AnyOf {
		c.node(b, chkJoin(path, "anyOf."+strconv.Itoa(i)), depth+1)
	}
	if s.Items != nil {
		if s.Type == genai.TypeArray && len(chkSetFields(s.Items, "")) == 0 { // {} reads as missing
			c.add(path, "items: missing field.")
		} else {
			c.node(s.Items, chkJoin(path, "items"), depth+1)
		}
	}
	for _, name := range sortedKeys(s.Properties) {
		c.node(s.Properties[name], chkJoin(path, "properties."+name), depth+1)
	}
}

func (c *genaiChecker) checkType(s *genai.Schema, path string) {
	switch {
	case s.Type == "":
		// The API's own wording: "type: must be specified when not using
		// one_of, any_of or all_of fields". Only anyOf can be expressed in
		// a genai.Schema, so a node with anyOf may leave its type unset.
		if c.target == Gemini && len(s.AnyOf) == 0 {
			c.add(path, "type: must be specified when not using one_of, any_of or all_of fields")
		}
	case !chkTypes[s.Type]:
		want := "STRING, NUMBER, INTEGER, BOOLEAN, ARRAY, OBJECT or NULL"
		if c.target == Vertex {
			want = "STRING, NUMBER, INTEGER, BOOLEAN, ARRAY or OBJECT"
		}
		c.add(path, "type: invalid value %q (want %s)", string(s.Type), want)
	case s.Type == genai.TypeNULL && c.target == Vertex:
		c.add(path, "type: NULL is not supported (use nullable)")
	}
}

func (c *genaiChecker) checkAnyOf(s *genai.Schema, path string) {
	if s.AnyOf == nil {
		return
	}
	if len(s.AnyOf) == 0 {
		c.add(path, "anyOf: must not be empty")
		return
	}
	if c.target == Vertex {
		if others := chkSetFields(s, "AnyOf"); len(others) > 0 {
			c.add(path, "When using any_of, it must be the only field set. (also set: %s)", strings.Join(others, ", "))
		}
		return
	}
	if s.Default != nil {
		c.add(path, "default: not allowed beside anyOf")
	}
}

func (c *genaiChecker) checkEnum(s *genai.Schema, path string) {
	if len(s.Enum) == 0 {
		return
	}
	if s.Type != genai.TypeString {
		c.add(path, "enum: only allowed for STRING type")
	}
	for i, e := range s.Enum {
		if e == "" {
			c.add(path, "enum[%d]: cannot be empty", i)
		}
	}
}

func (c *genaiChecker) checkFormat(s *genai.Schema, path string) {
	if s.Format == "" {
		return
	}
	allowed, ok := chkFormats[s.Type]
	switch {
	case !ok && s.Type == "":
		c.add(path, "format: not allowed without a type")
	case !ok:
		c.add(path, "format: not supported for %s type", s.Type)
	case !slices.Contains(allowed, s.Format):
		c.add(path, "format: only '%s' and '%s' are supported for %s type", allowed[0], allowed[1], s.Type)
	}
}

func (c *genaiChecker) checkObject(s *genai.Schema, path string) {
	isObject := s.Type == genai.TypeObject
	if s.Items != nil && s.Type != genai.TypeArray {
		c.add(path, "items: field predicate failed: $type == Type.ARRAY")
	}
	if s.Type == genai.TypeArray && s.Items == nil {
		c.add(path, "items: missing field.")
	}
	if len(s.Properties) > 0 && !isObject {
		c.add(path, "properties: only allowed for OBJECT type")
	}
	if len(s.Required) > 0 && !isObject {
		c.add(path, "required: only allowed for OBJECT type")
	}
	if len(s.PropertyOrdering) > 0 && !isObject {
		c.add(path, "propertyOrdering: only allowed for OBJECT type")
	}
	if !isObject {
		return
	}
	for i, name := range s.Required {
		if _, ok := s.Properties[name]; !ok {
			c.add(path, "required[%d]: property is not defined", i)
		}
	}
	seen := map[string]bool{}
	for i, name := range s.PropertyOrdering {
		if _, ok := s.Properties[name]; !ok {
			c.add(path, "propertyOrdering[%d]: property is not defined", i)
		}
		if seen[name] {
			c.add(path, "propertyOrdering[%d]: duplicate property %q", i, name)
		}
		seen[name] = true
	}
}

func (c *genaiChecker) checkBounds(s *genai.Schema, path string) {
	for _, f := range []struct {
		name string
		v    *float64
	}{{"minimum", s.Minimum}, {"maximum", s.Maximum}} {
		if f.v != nil && (math.IsNaN(*f.v) || math.IsInf(*f.v, 0)) {
			c.add(path, "%s: must be a finite number", f.name)
		}
	}
	if s.Minimum != nil && s.Maximum != nil && *s.Minimum > *s.Maximum {
		c.add(path, "minimum: greater than maximum (%v > %v)", *s.Minimum, *s.Maximum)
	}
	for _, p := range []struct {
		lo, hi         string
		minimum, maxim *int64
	}{
		{"minLength", "maxLength", s.MinLength, s.MaxLength},
		{"minItems", "maxItems", s.MinItems, s.MaxItems},
		{"minProperties", "maxProperties", s.MinProperties, s.MaxProperties},
	} {
		if p.minimum != nil && *p.minimum < 0 {
			c.add(path, "%s: must not be negative", p.lo)
		}
		if p.maxim != nil && *p.maxim < 0 {
			c.add(path, "%s: must not be negative", p.hi)
		}
		if p.minimum != nil && p.maxim != nil && *p.minimum > *p.maxim {
			c.add(path, "%s: greater than %s (%d > %d)", p.lo, p.hi, *p.minimum, *p.maxim)
		}
	}
	if s.Pattern != "" {
		if _, err := syntax.Parse(s.Pattern, syntax.Perl); err != nil { // regexp.Compile's only error
			c.add(path, "pattern: not a valid RE2 regular expression: %v", err)
		}
	}
}

// checkValues reports free-form values that cannot be sent as JSON.
func (c *genaiChecker) checkValues(s *genai.Schema, path string) {
	for _, f := range []struct {
		name string
		v    any
	}{{"default", s.Default}, {"example", s.Example}} {
		if f.v == nil {
			continue
		}
		if _, err := chkJSONValue(f.v); err != nil {
			c.add(path, "%s: not encodable as JSON: %v", f.name, err)
		}
	}
}

// chkSetFields lists the JSON names of the fields of s that are set, except the
// Go field named skip.
func chkSetFields(s *genai.Schema, skip string) []string {
	var out []string
	v := reflect.ValueOf(s).Elem()
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Name == skip || v.Field(i).IsZero() {
			continue
		}
		out = append(out, strings.Split(f.Tag.Get("json"), ",")[0])
	}
	return out
}

// CheckDeclaration reports every way d breaks the API's rules for a function
// declaration under target, sorted by path and then message; nil means none
// found. It checks the name (a letter or '_' first, then letters, digits,
// '_', '.' or '-', at most 64 characters), that Parameters and
// ParametersJsonSchema are not both set and that ParametersJsonSchema is not
// a typed nil, that a Parameters root is an OBJECT, and then the schema
// itself with [Check] (paths prefixed "parameters.") or [CheckJSONSchema]
// ("parametersJsonSchema."). Whichever schema field is set is checked by
// its own rules, whatever target is; target selects the `parameters` rules.
// A Response schema is checked with [Check] under the same prefix scheme.
// d is not modified; a nil d is itself a violation.
func CheckDeclaration(d *genai.FunctionDeclaration, target Target) []Violation {
	if d == nil {
		return []Violation{{Message: "function declaration is nil"}}
	}
	var out []Violation
	add := func(path, format string, args ...any) {
		out = append(out, Violation{Path: path, Message: fmt.Sprintf(format, args...)})
	}
	if msg := chkName(d.Name); msg != "" {
		add("name", "%s", msg)
	}
	jsonSet := d.ParametersJsonSchema != nil
	if jsonSet && chkTypedNil(d.ParametersJsonSchema) {
		add("parametersJsonSchema", "must not be a typed nil (%T); leave the field nil instead", d.ParametersJsonSchema)
		jsonSet = false
	}
	if d.Parameters != nil && d.ParametersJsonSchema != nil {
		add("", "parameters and parametersJsonSchema are mutually exclusive: set only one")
	}
	if d.Parameters != nil {
		if d.Parameters.Type != genai.TypeObject {
			add("parameters", "parameters schema should be of type OBJECT")
		}
		out = append(out, chkPrefixed("parameters", Check(d.Parameters, target))...)
	}
	if jsonSet {
		out = append(out, chkPrefixed("parametersJsonSchema", CheckJSONSchema(d.ParametersJsonSchema))...)
	}
	if d.Response != nil && d.ResponseJsonSchema != nil {
		add("", "response and responseJsonSchema are mutually exclusive: set only one")
	}
	if d.ResponseJsonSchema != nil && chkTypedNil(d.ResponseJsonSchema) {
		add("responseJsonSchema", "must not be a typed nil (%T); leave the field nil instead", d.ResponseJsonSchema)
	}
	out = append(out, chkPrefixed("response", Check(d.Response, target))...)
	return chkSort(out)
}

// chkName says what is wrong with a function name, or "" if nothing.
func chkName(name string) string {
	if name == "" {
		return "must not be empty"
	}
	if len(name) > chkMaxNameLen {
		return fmt.Sprintf("longer than %d characters (%d)", chkMaxNameLen, len(name))
	}
	for i := 0; i < len(name); i++ {
		b := name[i]
		letter := b == '_' || ('a' <= b && b <= 'z') || ('A' <= b && b <= 'Z')
		if i == 0 && !letter {
			return fmt.Sprintf("must start with a letter or underscore, not %q", rune(b))
		}
		if !letter && (b < '0' || b > '9') && b != '.' && b != '-' {
			r := []rune(name[i:])[0]
			return fmt.Sprintf("invalid character %q at byte %d (want letters, digits, '_', '.', '-')", r, i)
		}
	}
	return ""
}

func chkTypedNil(v any) bool {
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Map, reflect.Slice, reflect.Pointer, reflect.Interface, reflect.Func, reflect.Chan:
		return rv.IsNil()
	}
	return false
}

func chkPrefixed(prefix string, vs []Violation) []Violation {
	for i := range vs {
		vs[i].Path = chkJoin(prefix, vs[i].Path)
	}
	return vs
}

// chkJoin is join, except that an empty elem (a violation at the root of
// what was checked) adds nothing.
func chkJoin(path, elem string) string {
	if elem == "" {
		return path
	}
	return join(path, elem)
}

func chkSort(vs []Violation) []Violation {
	slices.SortFunc(vs, func(a, b Violation) int {
		if c := strings.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		return strings.Compare(a.Message, b.Message)
	})
	return slices.Compact(vs)
}

// chkJSONValue returns v as the API receives it: marshaled and decoded back
// with numbers kept exact, so any Go value (structs, typed maps,
// json.RawMessage) is checked by its JSON form.
func chkJSONValue(v any) (out any, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("marshal panicked: %v", r)
		}
	}()
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&out); err != nil {
		return nil, err
	}
	return out, nil
}
