package schema

import (
	"fmt"
	"math"
	"regexp/syntax"
	"strings"

	"google.golang.org/genai"
)

func containsStr(l []string, s string) bool {
	for _, e := range l {
		if e == s {
			return true
		}
	}
	return false
}

// schema converts n, found at output nesting depth depth, into a
// *genai.Schema and the plan to restore values of it. The plan is never
// nil (it records the node's kind for anyOf branch choice); callers prune it
// with orNil.
func (c *converter) schema(n *node, depth int) (*genai.Schema, *plan) {
	c.deepest = max(c.deepest, depth)
	if n.placeholder != "" {
		return c.anyValue(n, n.placeholder)
	}
	if n.boolean != nil {
		if *n.boolean {
			c.log.add(n.origin, "type", "boolean schema true: any value")
			return c.anyValue(n, "")
		}
		c.log.add(n.origin, "type", "boolean schema false (no valid value): any value")
		return c.anyValue(n, "no value is valid here")
	}
	if n.has("allOf") {
		return c.schema(c.mergeAllOf(n), depth)
	}
	if n.has("oneOf") {
		n = c.oneOfAsAnyOf(n)
	}
	if depth >= c.opts.MaxDepth && hasChildren(n) {
		c.capHit = true
		c.log.add(n.origin, subschemaKeyword(n), fmt.Sprintf("nested deeper than %d levels: any value", c.opts.MaxDepth))
		return c.anyValue(n, "nested too deep to describe")
	}
	if c.emit() && hasChildren(n) {
		c.log.add(n.origin, subschemaKeyword(n), "schema too large: any value")
		return c.anyValue(n, "too large to describe")
	}
	if n.has("anyOf") {
		return c.anyOf(n, depth)
	}
	types, nullable := c.typeList(n)
	if v, ok := n.kw["const"]; ok {
		c.log.add(n.origin, "const", "written as a one-member enum")
		n = n.without("const").with("enum", []any{v})
	}
	if n.has("enum") {
		if vals, ok := n.kw["enum"].([]any); ok {
			return c.enumSchema(n, vals, types, nullable, depth)
		}
		c.log.add(n.origin, "enum", "not an array: dropped")
		n = n.without("enum")
	}
	switch len(types) {
	case 0:
		if nullable && n.has("type") {
			return c.nullSchema(n)
		}
		t := inferType(n)
		if t == "" {
			if len(n.kw) > 0 || n.origin != "" {
				c.log.add(n.origin, "type", "missing and not inferable: any value (a STRING)")
			}
			return c.anyValue(n, "")
		}
		c.log.add(n.origin, "type", "missing: inferred as "+t)
		types = []string{t}
	case 1:
	default:
		return c.schema(c.splitTypes(n, types, nullable), depth)
	}
	if types[0] == "object" && depth > 0 && isFreeForm(n) {
		return c.freeObject(n, nullable, depth)
	}
	return c.typed(n, types[0], nullable, depth)
}

// emit counts one more output node and reports whether the output budget
// (maxOutputNodes) is exhausted. Only nodes with children are then cut, so
// converting the output again, which visits the same nodes in the same
// order, never cuts more.
func (c *converter) emit() bool {
	c.emitted++
	c.shown++
	if c.abortAt > 0 && c.shown > c.abortAt {
		// Surely over the size budget: this attempt's output is thrown
		// away, so cut everything from here on to finish quickly.
		c.aborted = true
		return true
	}
	if c.emitted > maxOutputNodes {
		c.capHit = true
		return true
	}
	return false
}

// hasChildren reports whether the output for n nests other schemas: it
// has subschemas, or it is an array (which always gets items), or several
// types (split into anyOf branches).
func hasChildren(n *node) bool {
	if len(n.props("properties")) > 0 {
		return true
	}
	if _, isEnum := n.kw["enum"]; !isEnum && !n.has("const") {
		types := typeNames(n.kw["type"])
		var nonNull []string
		for _, t := range types {
			if t != "null" {
				nonNull = append(nonNull, t)
			}
		}
		if len(nonNull) > 1 || containsStr(nonNull, "array") || len(types) == 0 && inferType(n) == "array" {
			return true
		}
	}
	for _, k := range []string{"items", "prefixItems", "anyOf", "oneOf", "allOf"} {
		if n.has(k) {
			return true
		}
	}
	return false
}

// oneOfAsAnyOf rewrites oneOf as anyOf (the API has no "exactly one").
func (c *converter) oneOfAsAnyOf(n *node) *node {
	if n.has("anyOf") {
		c.log.add(n.origin, "oneOf", "dropped: anyOf beside it is kept")
		return n.without("oneOf")
	}
	c.log.add(n.origin, "oneOf", "treated as anyOf")
	return n.without("oneOf").with("anyOf", n.list("oneOf"))
}

// genaiTypes maps JSON Schema type names to the API's.
var genaiTypes = map[string]genai.Type{
	"string": genai.TypeString, "number": genai.TypeNumber, "integer": genai.TypeInteger,
	"boolean": genai.TypeBoolean, "array": genai.TypeArray, "object": genai.TypeObject,
	"null": genai.TypeNULL,
}

// inferType guesses the type of a typeless node from its keywords, then
// from its default or example; "" when nothing hints at one.
func inferType(n *node) string {
	has := func(keys ...string) bool {
		for _, k := range keys {
			if n.has(k) {
				return true
			}
		}
		return false
	}
	switch {
	case has(typeKeys["object"]...):
		return "object"
	case has(typeKeys["array"]...):
		return "array"
	case has("minLength", "maxLength", "pattern", "contentEncoding", "contentMediaType"):
		return "string"
	case has("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"):
		if f := lower(n.str("format")); f == "int32" || f == "int64" {
			return "integer"
		}
		return "number"
	case has("format"):
		switch lower(n.str("format")) {
		case "int32", "int64":
			return "integer"
		case "float", "double":
			return "number"
		}
		return "string"
	}
	for _, k := range []string{"default", "example"} {
		if v, ok := n.kw[k]; ok && v != nil {
			return kindType(v)
		}
	}
	if ex, ok := n.kw["examples"].([]any); ok && len(ex) > 0 && ex[0] != nil {
		return kindType(ex[0])
	}
	return ""
}

// kindType is the JSON Schema type of a JSON value.
func kindType(v any) string {
	switch k := jsonKind(v); k {
	case "null":
		return ""
	default:
		return k
	}
}

// typed converts n as a node of the single type t.
func (c *converter) typed(n *node, t string, nullable bool, depth int) (*genai.Schema, *plan) {
	s := &genai.Schema{Type: genaiTypes[t]}
	p := &plan{kind: s.Type}
	used := map[string]bool{"type": true, "nullable": true}
	var notes []string
	c.annotate(n, s, used)
	if nullable {
		s.Nullable = ptr(true)
	}
	switch t {
	case "string":
		c.stringKeys(n, s, used, &notes)
	case "number", "integer":
		c.numberKeys(n, s, t, used, &notes)
	case "array":
		c.arrayKeys(n, s, p, used, &notes, depth)
	case "object":
		c.objectKeys(n, s, p, used, &notes, depth)
	}
	c.dropRest(n, t, used, &notes)
	c.checkRanges(n, s)
	s.Description = withNotes(s.Description, notes)
	return s, p
}

// checkRanges drops bound pairs that no value can satisfy (a lower bound
// above the upper one): the API rejects them.
func (c *converter) checkRanges(n *node, s *genai.Schema) {
	if s.Minimum != nil && s.Maximum != nil && *s.Minimum > *s.Maximum {
		c.log.add(n.origin, "minimum", "greater than maximum: both dropped")
		s.Minimum, s.Maximum = nil, nil
	}
	for _, r := range []struct {
		lo, hi **int64
		name   string
	}{
		{&s.MinLength, &s.MaxLength, "minLength"},
		{&s.MinItems, &s.MaxItems, "minItems"},
		{&s.MinProperties, &s.MaxProperties, "minProperties"},
	} {
		if *r.lo != nil && *r.hi != nil && **r.lo > **r.hi {
			c.log.add(n.origin, r.name, "greater than its maximum: both dropped")
			*r.lo, *r.hi = nil, nil
		}
	}
}

// anyValue is the placeholder for "any value": a STRING; the model writes
// objects and arrays in it as JSON text, which the Restorer decodes again.
// It keeps n's title and description and adds reason.
func (c *converter) anyValue(n *node, reason string) (*genai.Schema, *plan) {
	s := &genai.Schema{Type: genai.TypeString}
	used := map[string]bool{"type": true, "nullable": true}
	if n.kw != nil {
		c.annotate(n, s, used)
		s.Default, s.Example = nil, nil
		if reason == "" {
			c.dropRest(n, "any", used, nil)
		}
	}
	var notes []string
	if reason != "" {
		notes = append(notes, reason)
	}
	notes = append(notes, anyValueNote)
	s.Description = withNotes(s.Description, notes)
	return s, &plan{kind: genai.TypeString, anyJSON: true}
}

// anyValueNote tells the model how to write an any-value node.
const anyValueNote = "any value; objects and arrays as JSON text"

// nullSchema converts a node that only accepts null: type NULL for
// Gemini; Vertex has no NULL type, so a nullable STRING described as null.
func (c *converter) nullSchema(n *node) (*genai.Schema, *plan) {
	s := &genai.Schema{Type: genai.TypeNULL}
	used := map[string]bool{"type": true, "nullable": true, "const": true, "enum": true}
	c.annotate(n, s, used)
	s.Default, s.Example = nil, nil
	c.dropRest(n, "null", used, nil)
	if c.opts.Target == Vertex {
		c.log.add(n.origin, "type", "null: Vertex has no NULL type, nullable STRING instead")
		s.Type = genai.TypeString
		s.Nullable = ptr(true)
		s.Description = withNotes(s.Description, []string{"always null"})
	}
	return s, &plan{kind: s.Type}
}

// withNotes appends notes about dropped constraints to a description.
func withNotes(desc string, notes []string) string {
	if len(notes) == 0 {
		return desc
	}
	n := strings.Join(notes, "; ")
	if desc == "" {
		return n
	}
	return desc + " (" + n + ")"
}

// annotate copies title, description, default and example (or the first
// of examples) from n to s.
func (c *converter) annotate(n *node, s *genai.Schema, used map[string]bool) {
	for _, k := range []string{"title", "description"} {
		v, ok := n.kw[k]
		if !ok {
			continue
		}
		used[k] = true
		str, ok := v.(string)
		if !ok {
			c.log.add(n.origin, k, "not a string: dropped")
			continue
		}
		if k == "title" {
			s.Title = str
		} else {
			s.Description = str
		}
	}
	if v, ok := n.kw["default"]; ok {
		used["default"] = true
		s.Default = v
		if v == nil {
			c.log.add(n.origin, "default", "null dropped (it cannot be sent)")
		}
	}
	if v, ok := n.kw["example"]; ok {
		used["example"] = true
		s.Example = v
	}
	if v, ok := n.kw["examples"]; ok {
		used["examples"] = true
		ex, _ := v.([]any)
		switch {
		case s.Example == nil && len(ex) > 0 && ex[0] != nil:
			s.Example = ex[0]
			c.log.add(n.origin, "examples", "first one kept as example")
		default:
			c.log.add(n.origin, "examples", "dropped")
		}
	}
}

// validRE2 reports whether p is an RE2 expression, exactly when
// regexp.Compile(p) succeeds: Compile fails only when parsing does (the
// size and nesting limits are checked while parsing), so the program and
// matcher that Compile would build, and throw away here, are skipped.
func validRE2(p string) bool {
	_, err := syntax.Parse(p, syntax.Perl)
	return err == nil
}

// stringKeys keeps a STRING node's length, pattern and safe format.
func (c *converter) stringKeys(n *node, s *genai.Schema, used map[string]bool, notes *[]string) {
	s.MinLength = c.count(n, "minLength", used)
	s.MaxLength = c.count(n, "maxLength", used)
	if v, ok := n.kw["pattern"]; ok {
		used["pattern"] = true
		if p, ok := v.(string); !ok {
			c.log.add(n.origin, "pattern", "not a string: dropped")
		} else if !validRE2(p) {
			c.log.add(n.origin, "pattern", "not an RE2 expression: moved to the description")
			*notes = append(*notes, "pattern: "+p)
		} else {
			s.Pattern = p
		}
	}
	s.Format = c.format(n, "string", used, notes)
	for _, k := range []string{"contentEncoding", "contentMediaType"} {
		if v, ok := n.kw[k].(string); ok {
			used[k] = true
			c.log.add(n.origin, k, "moved to the description")
			*notes = append(*notes, k+": "+v)
		}
	}
}

// count reads a non-negative integer keyword such as minLength.
func (c *converter) count(n *node, k string, used map[string]bool) *int64 {
	v, ok := n.kw[k]
	if !ok {
		return nil
	}
	used[k] = true
	i, ok := toCount(v)
	if !ok {
		c.log.add(n.origin, k, "not a non-negative integer: dropped")
		return nil
	}
	return &i
}

// safeFormats lists, per type, the formats every API version accepts.
var safeFormats = map[string][]string{
	"string":  {"enum", "date-time"},
	"integer": {"int32", "int64"},
	"number":  {"float", "double"},
}

// format keeps a safe format for type t and moves any other into notes.
func (c *converter) format(n *node, t string, used map[string]bool, notes *[]string) string {
	v, ok := n.kw["format"]
	if !ok {
		return ""
	}
	used["format"] = true
	f, ok := v.(string)
	if !ok {
		c.log.add(n.origin, "format", "not a string: dropped")
		return ""
	}
	if containsStr(safeFormats[t], f) {
		return f
	}
	c.log.add(n.origin, "format", "format "+f+" not accepted for "+strings.ToUpper(t)+": moved to the description")
	*notes = append(*notes, "format: "+f)
	return ""
}

// numberKeys keeps bounds (exclusive ones made inclusive) and a safe format.
func (c *converter) numberKeys(n *node, s *genai.Schema, t string, used map[string]bool, notes *[]string) {
	s.Minimum = c.bound(n, t, "minimum", "exclusiveMinimum", used, notes)
	s.Maximum = c.bound(n, t, "maximum", "exclusiveMaximum", used, notes)
	s.Format = c.format(n, t, used, notes)
	if v, ok := n.kw["multipleOf"]; ok {
		used["multipleOf"] = true
		if _, ok := toFloat(v); ok {
			c.log.add(n.origin, "multipleOf", "moved to the description")
			*notes = append(*notes, "multiple of "+numText(v))
		} else {
			c.log.add(n.origin, "multipleOf", "not a number: dropped")
		}
	}
}

// bound computes the inclusive bound from key (minimum/maximum) and its
// exclusive form, in either the draft-4 (boolean) or the newer (number)
// spelling. For integers an exclusive bound moves by one; for numbers it
// becomes inclusive and the strictness is noted in the description.
func (c *converter) bound(n *node, t, key, exKey string, used map[string]bool, notes *[]string) *float64 {
	lower := key == "minimum"
	var b *float64
	if v, ok := n.kw[key]; ok {
		used[key] = true
		if f, ok := toFloat(v); ok {
			b = &f
		} else {
			c.log.add(n.origin, key, "not a number: dropped")
		}
	}
	ev, ok := n.kw[exKey]
	if !ok {
		return b
	}
	used[exKey] = true
	var e float64
	switch v := ev.(type) {
	case bool:
		if !v || b == nil {
			c.log.add(n.origin, exKey, "dropped")
			return b
		}
		e = *b
	default:
		f, ok := toFloat(v)
		if !ok {
			c.log.add(n.origin, exKey, "not a number: dropped")
			return b
		}
		e = f
	}
	var inc float64
	if t == "integer" {
		if lower {
			inc = math.Floor(e) + 1
		} else {
			inc = math.Ceil(e) - 1
		}
	} else {
		inc = e
	}
	if b != nil && (lower && *b > inc || !lower && *b < inc) {
		c.log.add(n.origin, exKey, "dropped: "+key+" is tighter")
		return b
	}
	text := numText(e)
	if t == "integer" {
		c.log.add(n.origin, exKey, fmt.Sprintf("%s %s written as %s %s", exKey, text, key, numText(inc)))
	} else {
		c.log.add(n.origin, exKey, fmt.Sprintf("%s %s written as %s %s (strictness in the description)", exKey, text, key, text))
		if lower {
			*notes = append(*notes, "greater than "+text)
		} else {
			*notes = append(*notes, "less than "+text)
		}
	}
	return &inc
}
