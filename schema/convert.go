package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"google.golang.org/genai"
)

// Result is the outcome of [Convert] for one schema.
type Result struct {
	// Target is the target the result was converted for.
	Target Target
	// Parameters is the converted schema for [Gemini] and [Vertex]; nil for
	// [JSONSchema]. Its root is always of type OBJECT.
	Parameters *genai.Schema
	// JSONSchema is the cleaned JSON Schema for [JSONSchema]; nil
	// otherwise. Its root describes an object, it holds no $ref, $defs,
	// $schema, $id, $comment or $anchor, and numbers decoded from bytes
	// stay json.Number.
	JSONSchema map[string]any
	// Changes lists every rewrite once, sorted by path as documented on
	// [Change], so the order is the same for every target.
	Changes []Change
	// Restorer maps the model's arguments back to what the original schema
	// expects. It is never nil; it may be the identity.
	Restorer *Restorer
}

// Convert converts raw, an MCP tool's inputSchema of any JSON Schema draft,
// for opts.Target. If opts is nil, the default options are used.
//
// Absent input (nil, empty or only white space), the JSON literal null and
// {} all give an empty object schema. The only error is for raw that is not
// a single JSON value. Convert never panics, never retains raw, and is safe
// for concurrent use. Numbers are decoded as json.Number, so values such as
// 1e3 or 1.50 are restored exactly as written. The package documentation
// lists what is rewritten and why; Result.Changes says what was.
func Convert(raw []byte, opts *Options) (*Result, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return ConvertValue(nil, opts)
	}
	v, ok := decodeFast(raw)
	if !ok {
		// Slow path, for its errors (and whatever decodeFast declines).
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("schema: decoding input schema: %w", err)
		}
		if _, err := dec.Token(); !errors.Is(err, io.EOF) {
			return nil, errors.New("schema: decoding input schema: data after the top-level value")
		}
	}
	// v was just decoded and nothing else holds it: no copy needed.
	return convertOwned(v, opts), nil
}

// ConvertValue is [Convert] for an already decoded JSON value: map[string]any,
// []any, bool, float64, json.Number, string or nil (other Go values are
// normalised through encoding/json first). v is not modified and the result
// shares no memory with it. The error is always nil today; it is kept for
// inputs that may become unconvertible.
func ConvertValue(v any, opts *Options) (*Result, error) {
	return convertOwned(clone(v), opts), nil
}

// convertOwned is [ConvertValue] for a value in the generic JSON form that
// the conversion may keep and share: a fresh decode or a private copy.
func convertOwned(v any, opts *Options) *Result {
	o := opts.normalized()
	c := &converter{opts: o}
	root := c.loadRoot(v)
	res := &Result{Target: o.Target}
	switch o.Target {
	case JSONSchema:
		res.JSONSchema, res.Restorer = c.jsonSchemaRoot(root)
	default:
		res.Parameters, res.Restorer = c.genaiRoot(root)
	}
	res.Changes = c.log.sorted()
	return res
}

// Declaration returns a function declaration named name with the converted
// schema: Parameters for [Gemini] and [Vertex], ParametersJsonSchema for
// [JSONSchema], never both. A nil r gives a declaration without parameters.
// The declaration shares the schema with r.
func (r *Result) Declaration(name, description string) *genai.FunctionDeclaration {
	d := &genai.FunctionDeclaration{Name: name, Description: description}
	if r == nil {
		return d
	}
	if r.Parameters != nil {
		d.Parameters = r.Parameters
	} else if r.JSONSchema != nil {
		d.ParametersJsonSchema = r.JSONSchema
	}
	return d
}

// converter holds the state of one conversion.
type converter struct {
	opts Options
	log  changeLog

	doc      any                 // the original document, for $ref resolution
	ptrCache map[string]resolved // resolved references, by fragment
	refStack map[string]int      // expansions of each $ref on the current path
	nodes    int                 // nodes loaded so far, bounded by maxNodes
	capHit   bool                // MaxDepth cut something
	deepest  int                 // deepest output level converted
	refLevel int                 // $ref expansions on the current path
	emitted  int                 // output nodes so far, bounded by maxOutputNodes
	cuts     int                 // references or nodes replaced by placeholders so far
	memo     map[string]memoEntry
}
