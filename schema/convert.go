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
	// otherwise. Its root describes an object; its references, if any,
	// are "#/$defs/<name>" into its own $defs; it holds no $schema, $id,
	// $comment or $anchor; and numbers decoded from bytes stay
	// json.Number.
	JSONSchema map[string]any
	// Changes lists every rewrite once, sorted by path as documented on
	// [Change], so the order is the same for every target.
	Changes []Change
	// Restorer maps the model's arguments back to what the original schema
	// expects. It is never nil; it may be the identity.
	Restorer *Restorer
	// Size is the size of Parameters or JSONSchema as the request carries
	// it (compact JSON).
	Size Size
	// BudgetCuts counts the references left out (each replaced by a
	// described any-value placeholder, and reported in Changes) to keep
	// Size within [Options.Budget]; 0 when the schema fit.
	BudgetCuts int
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
	budget := o.budget()
	if budget == 0 {
		_, res := convertAttempt(v, o, 0, 0, 0)
		res.Size = outputSize(res)
		return res
	}
	// Attempts whose output is surely over the limit stop early (see
	// minNodeBytes), so that a schema whose expansion is huge costs
	// about what its budget allows, not what it expands to. A schema
	// already larger than the budget may stay as large: its own size is
	// the limit. (Taking it before the first attempt gives the same
	// result as taking it after a first attempt over the budget: an
	// attempt that is not aborted does not depend on where it would have
	// been.)
	limit := max(budget, rawSize(v))
	c, res := convertAttempt(v, o, 0, nodesWithin(limit, o.Target), limit)
	if !c.aborted && !c.over {
		res.Size = outputSize(res)
	}
	whole := func(level int) *Result {
		cut, r := convertAttempt(v, o, level, 0, 0)
		r.Size = outputSize(r)
		r.BudgetCuts = cut.budgetCuts
		return r
	}
	switch {
	case !c.aborted && !c.over && res.Size <= limit:
		return res
	case c.maxRefLevel == 0:
		return whole(0) // nothing to cut
	}
	// Over the budget: leave out the deepest expanded references, those
	// nested at least level deep, for the deepest level that fits (found
	// by bisection: a smaller level never gives a larger output), or
	// every reference when even that does not fit.
	attempt := func(level int) (*Result, bool) {
		cut, r := convertAttempt(v, o, level, nodesWithin(limit, o.Target), limit)
		if cut.aborted || cut.over {
			return nil, false
		}
		r.Size = outputSize(r)
		r.BudgetCuts = cut.budgetCuts
		return r, r.Size <= limit
	}
	best, fits := attempt(1)
	if !fits {
		return whole(1)
	}
	// A deeper level expands more and costs more to build, and one over
	// the limit is built about whole before it is known to be over: so
	// the levels just above lo are tried first, and the costly deep ones
	// only once the shallower fit; what remains is bisected. Any order
	// finds the same level, since the size only grows with the level.
	lo, hi := 1, c.maxRefLevel // level lo fits, level hi does not
	for step := 0; hi-lo > 1; step++ {
		mid := lo + 1
		if step >= upwardSteps {
			mid = lo + (hi-lo)/2
		}
		if r, ok := attempt(mid); ok {
			lo, best = mid, r
		} else {
			hi = mid
		}
	}
	return best
}

// upwardSteps is how many levels the budget search tries one by one
// upwards from the first that fits before it bisects.
const upwardSteps = 3

// convertAttempt converts v with the references nested cutLevel deep left
// out (0: none). For [JSONSchema] it keeps references where the API takes
// them, and inlines the targets on loops it rejects. With a limit (0:
// none), an output for [Gemini] or [Vertex] that is over it once its
// repeated descriptions are shortened is left unfinished and c.over set:
// the caller throws it away.
func convertAttempt(v any, o Options, cutLevel, abortAt int, limit Size) (*converter, *Result) {
	keep := o.Target == JSONSchema
	excluded := map[string]bool{}
	for try := 0; ; try++ {
		c := &converter{opts: o, keepRefs: keep, excluded: excluded, cutLevel: cutLevel, abortAt: abortAt}
		root := c.loadRoot(v)
		res := &Result{Target: o.Target}
		switch o.Target {
		case JSONSchema:
			res.JSONSchema, res.Restorer = c.jsonSchemaRoot(root)
		default:
			res.Parameters, res.Restorer = c.genaiRoot(root)
		}
		if c.aborted {
			return c, res // thrown away by the caller
		}
		if keep {
			if loops := requiredRefLoops(res.JSONSchema); len(loops) > 0 {
				grown := false
				for ptr := range loops {
					if key, ok := c.nameKeys[defsName(ptr, "$defs")]; ok && !excluded[key] {
						excluded[key] = true
						grown = true
					}
				}
				if !grown || try >= 3 {
					keep = false // inline everything, as for the other targets
				}
				continue
			}
		}
		if res.JSONSchema != nil {
			c.shortenRepeatsJSON(res.JSONSchema)
		} else if limit > 0 && c.overAfterShortening(res.Parameters, limit) {
			c.over = true
			return c, res
		} else {
			res.Parameters = c.shortenRepeatsGenai(res.Parameters)
		}
		res.Changes = c.log.sorted()
		return c, res
	}
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

	// Kept references (JSONSchema): see keeprefs.go.
	keepRefs bool               // keep references to $defs where the API takes them
	excluded map[string]bool    // targets on loops the API rejects: inlined
	keyNames map[string]string  // kept target (JSON pointer) -> name in $defs
	nameKeys map[string]string  // name in $defs -> kept target
	sites    map[uintptr]string // kept target's object -> name
	defTop   uintptr            // the target being expanded, not replaced by a reference
	usedDefs map[string]bool    // names the output refers to

	// The size budget: see budget.go.
	cutLevel    int  // references expanded inside this many others become placeholders (0: none)
	maxRefLevel int  // the deepest nesting of expanded references
	budgetCuts  int  // references replaced to fit the budget
	abortAt     int  // output nodes beyond which the output is surely over the budget (0: none)
	shown       int  // output nodes so far that the output shows (emitted, less those of quietly)
	aborted     bool // abortAt was passed: the output is incomplete and is thrown away
	over        bool // the output is over the limit: it is unfinished and thrown away
}
