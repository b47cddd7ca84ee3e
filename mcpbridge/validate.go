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
	schema *jsonschema.Schema // nil: no validation (no schema, or it did not compile)
}

// compiled returns the compiled schema of d, compiling it on the first
// call. A schema that does not compile disables validation for the tool
// with one warning; a tool without a schema is not validated.
func (v *validator) compiled(d *toolDef, server string, log *slog.Logger) *jsonschema.Schema {
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
		v.schema = s
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
func validationDetail(err error) string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err.Error()
	}
	sortCauses(ve)
	lines := strings.Split(ve.Error(), "\n")
	var parts []string
	for _, l := range lines[1:] { // the first line names the schema's URL
		l = strings.TrimPrefix(strings.TrimSpace(l), "- ")
		if l != "" {
			parts = append(parts, l)
		}
	}
	if len(parts) == 0 {
		parts = lines
	}
	return cutDetail(strings.Join(parts, "; "), maxDetail)
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
