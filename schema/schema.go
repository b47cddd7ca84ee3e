// Package schema converts the JSON Schema of an MCP tool's inputSchema into a
// form the Gemini API accepts, and maps the model's arguments back to what the
// original schema expects.
//
// Three targets are supported: the Gemini Developer API's `parameters`
// ([Gemini], the default), Vertex AI's `parameters` ([Vertex]) and
// `parametersJsonSchema` ([JSONSchema]). Every conversion is pure: the input
// is never modified, the same input always gives byte-identical output, and
// converting an output again changes nothing.
//
// What each target accepts, keyword by keyword, with the API's error
// messages, the sources of each rule and the rewrite this package applies
// to it, is written down in docs/gemini-schema.md at the root of this
// module's repository. The sections below summarise it.
//
//	res, err := schema.Convert(rawInputSchema, nil) // Gemini Developer API
//	if err != nil {
//		return err // only for bytes that are not JSON
//	}
//	decl := res.Declaration("get_weather", "Current weather for a city.")
//	for _, c := range res.Changes {
//		log.Print(c) // what was rewritten, and why
//	}
//	// later, when the model calls the function:
//	args := res.Restorer.Restore(call.Args) // e.g. enum "5" back to 5
//
// # Conversion
//
// For [Gemini] and [Vertex] every node goes through these steps, in this
// order: local $ref (any JSON pointer, "#anchor", "<$id>#...") are inlined,
// with keywords beside $ref merged in; recursion is cut after
// [Options.RefDepth] expansions of one reference on a path; allOf branches
// are merged; oneOf is read as anyOf; type arrays and {"type": "null"}
// branches become nullable (several non-null types become anyOf); keywords
// beside anyOf are moved into every branch, branches identical once
// converted are kept once, a single branch is flattened, and branches
// that are all plain string enums are merged into one enum (their
// descriptions noted in its description); const becomes a one-member enum; enums become strings with
// type STRING ("" dropped, null -> nullable); exclusive bounds become
// inclusive (integers move by one); keywords the API rejects are dropped,
// those that matter to the model (format, multipleOf, uniqueItems,
// additionalProperties, patterns, ...) as a short note in the description;
// arrays always get items; typeless nodes get a type inferred from their
// keywords; required is pruned to existing properties; keywords of other
// types are stripped; for Vertex, anyOf is left alone on its node; a root
// union whose branches are all objects is merged into one object (the
// alternatives noted in its description); and any other root that is not
// an OBJECT is wrapped as {"value": <schema>}, which the [Restorer] unwraps.
//
// A node that allows any value (a typeless {} or true, a $ref that cannot be
// resolved, a cut recursion) becomes a STRING described as "any value;
// objects and arrays as JSON text"; the [Restorer] decodes an object or
// array written there and leaves other text a string. Arrays without items
// get such items. An object without properties that allows others (a map:
// additionalProperties other than false, or patternProperties) becomes a
// STRING holding the object as JSON text, decoded the same way, because the
// model cannot fill an OBJECT without properties reliably; when its values
// have a schema, the description names them briefly ("values: 1, -1,
// "asc" or "desc"") and the [Restorer] restores them by it. A tuple
// (prefixItems, or items as a list) gets one item schema for all its
// positions, the anyOf of theirs, with the order in the description
// ("items in this order: string; integer; boolean"); the [Restorer]
// restores its elements by position. The [Restorer] restores a value of an
// anyOf by the branch it fits best, so the branches of a discriminated
// union, which share property names, each keep their own rules.
// additionalProperties is dropped for Vertex too, since *genai.Schema cannot
// express it.
//
// For [JSONSchema] the output stays JSON Schema, read as draft 2020-12:
// local references stay references, each "#/$defs/<name>" into the
// output's own $defs (a target elsewhere in the document, such as
// "#/properties/a/items", is moved there), with only description and
// default beside a $ref (other keywords go beside an allOf holding it);
// the definitions on a loop of references through required fields only,
// which the API rejects, are inlined and the recursion cut as for the other
// targets (the keywords beside a $ref, its description especially, are
// kept, also when the reference becomes a placeholder); $schema, $id,
// $comment and $anchor are dropped, type arrays
// with null are written as anyOf with {"type": "null"}, the draft-4 boolean
// exclusiveMinimum becomes the numeric form, draft-4 tuples (array items)
// become prefixItems and draft-4/7 dependencies become dependentRequired
// and dependentSchemas. Vendor extensions (keys starting with "x-") are
// dropped: validators ignore them and they would only cost the model
// tokens. A required name that is not a property stays, since JSON Schema
// then requires an additional property of that name, unless
// additionalProperties is false, where no such property can exist and
// the name is removed. Everything else (enums of any type, const, allOf,
// additionalProperties, formats) is kept as is.
//
// Outputs are bounded: [Options.MaxDepth] caps the nesting, and very large
// expansions are cut with a described placeholder, so a schema whose
// definitions refer to each other cannot grow without limit. Within that,
// [Options.Budget] bounds the size of each output ([Result.Size], 16 KiB by
// default): the deepest expanded references are cut first, each a reported
// [Change], and the [Restorer] decodes what the model writes in their place
// as JSON text. A long description repeated in one output is written again
// as "same as for <its first place>" when that is shorter.
//
// When the model sends a string outside an enum it was shown as strings in
// place of numbers or booleans, Restore leaves it a string;
// [Restorer.Mismatches] names such values with the members the model saw
// (`priority: "7" is not one of "1", "2", "3"`), for error messages that
// make sense to it.
//
// [Check], [CheckDeclaration] and [CheckTools] report every way a schema, a
// declaration or a whole request's tools break a target's rules, so tools
// can be unit-tested before they reach the API.
package schema

import (
	"fmt"
	"strings"
)

// Target selects the rules a converted schema must obey.
// The zero value is [Gemini].
type Target int

const (
	// Gemini is the Gemini Developer API: `parameters` as a *genai.Schema,
	// every node typed, no additionalProperties, no $ref.
	Gemini Target = iota
	// Vertex is Vertex AI: `parameters` as a *genai.Schema; anyOf must be the
	// only field of its node, NULL is not a type.
	Vertex
	// JSONSchema is `parametersJsonSchema`: a cleaned JSON Schema value with
	// an object root.
	JSONSchema
)

// String returns "gemini", "vertex" or "jsonschema".
func (t Target) String() string {
	switch t {
	case Gemini:
		return "gemini"
	case Vertex:
		return "vertex"
	case JSONSchema:
		return "jsonschema"
	}
	return fmt.Sprintf("Target(%d)", int(t))
}

// ParseTarget returns the Target named by s ("gemini", "vertex" or
// "jsonschema", case-insensitive).
func ParseTarget(s string) (Target, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "gemini", "":
		return Gemini, nil
	case "vertex":
		return Vertex, nil
	case "jsonschema":
		return JSONSchema, nil
	}
	return 0, fmt.Errorf("schema: unknown target %q (want gemini, vertex or jsonschema)", s)
}
