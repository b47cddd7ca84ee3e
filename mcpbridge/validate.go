package mcpbridge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"

	"github.com/mcpgenai/bridge/schema"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// schemaURL is the location a tool's input schema is compiled under. It
// names no real resource: relative references resolve against it (or the
// schema's own $id) and are found inside the schema or nowhere.
const schemaURL = "mcpbridge:///inputSchema.json"

// maxDetail bounds the validator's message in an [InvalidArgumentsError],
// in bytes, so that wildly wrong arguments give a readable answer.
const maxDetail = 2000

// validator checks arguments against one tool's original input schema. The
// schema is compiled on first use, once per listing of the tool.
type validator struct {
	once   sync.Once
	schema *argsSchema // nil: no validation (no schema, or it did not compile)
}

// argsSchema is a tool's compiled input schema with the restorer of its
// converted declaration, which lets errors name enum members as the model
// saw them.
type argsSchema struct {
	schema   *jsonschema.Schema
	restorer *schema.Restorer // nil: nothing was restored
}

// Validate validates v, arguments as the Restorer returned them and
// encodeArgs decoded them. A failure where the model sent a string outside
// an enum it was shown as strings (1, 2, 3 shown as "1", "2", "3") is an
// *argsError naming the allowed strings; [validationDetail] formats it.
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

func (e *argsError) Error() string { return validationDetail(e) }
func (e *argsError) Unwrap() error { return e.err }

// compiled returns the compiled schema of d, compiling it on the first
// call. A schema that does not compile disables validation for the tool
// with one warning; a tool without a schema is not validated.
func (v *validator) compiled(d *toolDef, server string, log *slog.Logger) *argsSchema {
	v.once.Do(func() {
		raw := d.raw.InputSchema
		if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
			return
		}
		s, err := compileSchema(raw)
		if err != nil {
			log.Warn("mcp tool arguments will not be validated: its input schema does not compile",
				"server", server, "tool", d.raw.Name, "err", err)
			return
		}
		v.schema = &argsSchema{schema: s}
		if d.conv != nil {
			v.schema.restorer = d.conv.Restorer
		}
	})
	return v.schema
}

// compileSchema compiles raw (JSON Schema, any draft the validator knows;
// 2020-12 when $schema is absent) without reading anything outside it:
// references to other documents, local files included, are errors.
func compileSchema(raw []byte) (*jsonschema.Schema, error) {
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

// encodeArgs returns the JSON that is sent to the server for args, and the
// same JSON decoded as the validator reads it (numbers as json.Number).
func encodeArgs(args any) (json.RawMessage, any, error) {
	b, err := json.Marshal(args)
	if err != nil {
		return nil, nil, err
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return nil, nil, err
	}
	return b, v, nil
}

// validationDetail returns the validator's error as one line: each failed
// keyword as "at '/path': message", joined by "; ", at most maxDetail bytes.
// For an *argsError, each enum mismatch comes first, in the model's terms
// (`at '/priority': "7" is not one of "1", "2", "3"`), and the validator's
// complaints at or below its location are left out. An ambiguous union
// choice comes first too, but hides nothing: it says which branch restored
// the value, not what is wrong with it.
func validationDetail(err error) string {
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
	for cut > 0 && !isRuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + " ..."
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
