package args

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpgenai/bridge/schema"
)

// schemaURL is the location a tool's schema is compiled under. It
// names no real resource: relative references resolve against it (or the
// schema's own $id) and are found inside the schema or nowhere.
const schemaURL = "mcpbridge:///inputSchema.json"

// maxDetail bounds [Detail]'s message, in bytes, so that wildly wrong
// arguments give a readable answer.
const maxDetail = 2000

// Schema is a tool's original input schema, checked quickly when it is
// plain and compiled for the full validator on first need. The zero value
// and a Schema without a schema accept anything. A Schema is safe for
// concurrent use.
type Schema struct {
	raw      json.RawMessage
	restorer *schema.Restorer
	disabled func(error) // nil: say nothing

	quickOnce sync.Once
	quick     *quickSchema // nil: the schema is not in the quick subset

	fullOnce sync.Once
	full     *argsSchema // nil: no validation (no schema, or it did not compile)

	requiredOnce sync.Once
	required     map[string]bool // the root's "required" names
}

// NewSchema returns the Schema of raw, a tool's inputSchema as the server
// sent it (empty or null: no schema), whose declaration was converted with
// restorer (nil when nothing was converted); errors then name enum members
// as the model saw them. When raw does not compile, validation is off and
// disabled (when not nil) is called once, on the first validation, with the
// compiler's error, so that the caller can say that the tool's arguments
// are not validated. raw must not be modified afterwards.
func NewSchema(raw json.RawMessage, restorer *schema.Restorer, disabled func(error)) *Schema {
	return &Schema{raw: raw, restorer: restorer, disabled: disabled}
}

// Validate reports whether v, arguments as [Encode] decoded them, is valid
// against the schema: nil when it is, when there is no schema, or when the
// schema does not compile. [Detail] words the error.
func (s *Schema) Validate(v any) error {
	if s == nil {
		return nil
	}
	full := s.compiled()
	if full == nil || s.quickValid(v) {
		return nil
	}
	return full.Validate(v)
}

// quickValid reports whether the quick check of the schema accepts v;
// false when it rejects v, is unsure, or the schema is outside its subset.
func (s *Schema) quickValid(v any) bool {
	s.quickOnce.Do(func() { s.quick = quickOf(s.raw) })
	return s.quick != nil && s.quick.valid(v)
}

// argsSchema is a tool's compiled input schema with the restorer of its
// converted declaration, which lets errors name enum members as the model
// saw them.
type argsSchema struct {
	schema   *jsonschema.Schema
	restorer *schema.Restorer // nil: nothing was restored
}

// Validate validates v, arguments as the Restorer returned them and
// Encode decoded them. A failure where the model sent a string outside
// an enum it was shown as strings (1, 2, 3 shown as "1", "2", "3") is an
// *argsError naming the allowed strings; [Detail] formats it.
func (s *argsSchema) Validate(v any) error {
	err := s.schema.Validate(v)
	if err == nil {
		return nil
	}
	if ms := s.restorer.Mismatches(v); len(ms) > 0 {
		return &argsError{err: err, mismatches: ms}
	}
	return err
}

// argsError is a validation error with the enum mismatches found in the
// same arguments.
type argsError struct {
	err        error
	mismatches []schema.Mismatch
}

func (e *argsError) Error() string { return Detail(e) }
func (e *argsError) Unwrap() error { return e.err }

// compiled returns the compiled schema, compiling it on the first call,
// which calls s.disabled with the error when it does not compile.
func (s *Schema) compiled() *argsSchema {
	s.fullOnce.Do(func() {
		raw := bytes.TrimSpace(s.raw)
		if len(raw) == 0 || string(raw) == "null" {
			return
		}
		c, err := Compile(raw)
		if err != nil {
			if s.disabled != nil {
				s.disabled(err)
			}
			return
		}
		s.full = &argsSchema{schema: c, restorer: s.restorer}
	})
	return s.full
}

// Compile compiles raw (JSON Schema, any draft the validator knows;
// 2020-12 when $schema is absent) without reading anything outside it:
// references to other documents, local files included, are errors. raw is
// not retained.
func Compile(raw []byte) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(refuseLoader{})
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, err
	}
	return c.Compile(schemaURL)
}

// refuseLoader loads nothing: a tool's schema must not make the bridge
// fetch URLs or read files.
type refuseLoader struct{}

func (refuseLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("not loading %s: only references inside the tool's schema are followed", url)
}

// Detail returns a validation error as one line: each failed
// keyword as "at '/path': message", joined by "; ", at most maxDetail bytes.
// For an *argsError, each enum mismatch comes first, in the model's terms
// (`at '/priority': "7" is not one of "1", "2", "3"`), and the validator's
// complaints at or below its location are left out. An ambiguous union
// choice comes first too, but hides nothing: it says which branch restored
// the value, not what is wrong with it.
func Detail(err error) string {
	var parts []string
	var ae *argsError
	if errors.As(err, &ae) {
		for _, m := range ae.mismatches {
			parts = append(parts, "at '"+jsonPointer(m.Path)+"': "+m.Detail())
		}
		err = ae.err
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return cutDetail(strings.Join(append(parts, err.Error()), "; "), maxDetail)
	}
	if ae != nil {
		ve = withoutMismatches(ve, enumMismatches(ae.mismatches))
	}
	sortCauses(ve)
	lines := strings.Split(ve.Error(), "\n")
	var own []string
	for _, l := range lines[1:] { // the first line names the schema's URL
		l = strings.TrimPrefix(strings.TrimSpace(l), "- ")
		if l != "" {
			own = append(own, l)
		}
	}
	if len(own) == 0 && len(parts) == 0 {
		own = lines
	}
	return cutDetail(strings.Join(append(parts, own...), "; "), maxDetail)
}

// withoutMismatches returns a copy of e without the causes, at any depth,
// located at or below the path of one of ms: the mismatch says it better.
func withoutMismatches(e *jsonschema.ValidationError, ms []schema.Mismatch) *jsonschema.ValidationError {
	out := *e
	out.Causes = nil
	for _, c := range e.Causes {
		covered := false
		for _, m := range ms {
			if len(c.InstanceLocation) >= len(m.Path) && slices.Equal(c.InstanceLocation[:len(m.Path)], m.Path) {
				covered = true
				break
			}
		}
		if !covered {
			out.Causes = append(out.Causes, withoutMismatches(c, ms))
		}
	}
	return &out
}

// enumMismatches returns the mismatches of ms that are enum misses, not
// ambiguous union choices.
func enumMismatches(ms []schema.Mismatch) []schema.Mismatch {
	var out []schema.Mismatch
	for _, m := range ms {
		if len(m.Branches) == 0 {
			out = append(out, m)
		}
	}
	return out
}

// jsonPointer writes a path as a JSON pointer (RFC 6901), as the validator
// prints instance locations.
func jsonPointer(path []string) string {
	var b strings.Builder
	for _, p := range path {
		b.WriteByte('/')
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(p, "~", "~0"), "/", "~1"))
	}
	return b.String()
}

// sortCauses orders the causes of e, at every depth, by instance location,
// then keyword path, then schema location: the validator finds them in map
// order, and the same arguments must give the same message. e is the
// validator's fresh error and is sorted in place.
func sortCauses(e *jsonschema.ValidationError) {
	key := func(c *jsonschema.ValidationError) []string {
		var kw []string
		if c.ErrorKind != nil {
			kw = c.ErrorKind.KeywordPath()
		}
		return []string{strings.Join(c.InstanceLocation, "\x00"), strings.Join(kw, "\x00"), c.SchemaURL}
	}
	slices.SortStableFunc(e.Causes, func(a, b *jsonschema.ValidationError) int {
		return slices.Compare(key(a), key(b))
	})
	for _, c := range e.Causes {
		sortCauses(c)
	}
}

// cutDetail cuts s to at most limit bytes on a rune boundary, ending in
// " ...".
func cutDetail(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	cut := limit - len(" ...")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + " ..."
}
