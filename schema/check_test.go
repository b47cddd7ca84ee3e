package schema

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"
)

func ckPtr[T any](v T) *T { return &v }

func ckObj(props map[string]*genai.Schema, required ...string) *genai.Schema {
	return &genai.Schema{Type: genai.TypeObject, Properties: props, Required: required}
}

func ckStr() *genai.Schema { return &genai.Schema{Type: genai.TypeString} }

func TestCheck(t *testing.T) {
	tests := []struct {
		name   string
		s      *genai.Schema
		target Target
		want   []Violation
	}{
		{name: "nil root", s: nil},
		{name: "clean object", s: ckObj(map[string]*genai.Schema{
			"city":  {Type: genai.TypeString, Description: "City.", Format: "date-time", Pattern: `^\w+$`, MinLength: ckPtr[int64](1), MaxLength: ckPtr[int64](9)},
			"unit":  {Type: genai.TypeString, Format: "enum", Enum: []string{"C", "F"}},
			"days":  {Type: genai.TypeInteger, Format: "int32", Minimum: ckPtr(1.0), Maximum: ckPtr(7.0)},
			"ratio": {Type: genai.TypeNumber, Format: "double"},
			"tags":  {Type: genai.TypeArray, Items: ckStr(), MinItems: ckPtr[int64](0), MaxItems: ckPtr[int64](3)},
			"maybe": {AnyOf: []*genai.Schema{ckStr(), {Type: genai.TypeNULL}}, Type: genai.TypeString},
			"flag":  {Type: genai.TypeBoolean, Nullable: ckPtr(true), Default: false},
		}, "city"), want: nil},
		{name: "clean vertex", target: Vertex, s: ckObj(map[string]*genai.Schema{
			"any":   {},
			"maybe": {AnyOf: []*genai.Schema{ckStr(), {Type: genai.TypeInteger}}},
			"list":  {Type: genai.TypeArray, Items: &genai.Schema{Type: genai.TypeString, Nullable: ckPtr(true)}},
		})},
		{name: "gemini type missing", s: &genai.Schema{Description: "x"},
			want: []Violation{{"", "type: must be specified when not using one_of, any_of or all_of fields"}}},
		{name: "gemini typeless anyOf node accepted", s: ckObj(map[string]*genai.Schema{
			"x": {AnyOf: []*genai.Schema{ckStr(), {Type: genai.TypeInteger}}, Description: "either"}})},
		{name: "gemini nested type missing", s: ckObj(map[string]*genai.Schema{"x": {}}),
			want: []Violation{{"properties.x", "type: must be specified when not using one_of, any_of or all_of fields"}}},
		{name: "jsonschema target uses gemini rules", target: JSONSchema, s: &genai.Schema{},
			want: []Violation{{"", "type: must be specified when not using one_of, any_of or all_of fields"}}},
		{name: "invalid type", s: &genai.Schema{Type: "string"},
			want: []Violation{{"", `type: invalid value "string" (want STRING, NUMBER, INTEGER, BOOLEAN, ARRAY, OBJECT or NULL)`}}},
		{name: "unspecified type", s: &genai.Schema{Type: genai.TypeUnspecified},
			want: []Violation{{"", `type: invalid value "TYPE_UNSPECIFIED" (want STRING, NUMBER, INTEGER, BOOLEAN, ARRAY, OBJECT or NULL)`}}},
		{name: "gemini null allowed", s: &genai.Schema{Type: genai.TypeNULL}},
		{name: "vertex null", target: Vertex, s: ckObj(map[string]*genai.Schema{"n": {Type: genai.TypeNULL}}),
			want: []Violation{{"properties.n", "type: NULL is not supported (use nullable)"}}},
		{name: "vertex anyOf not alone", target: Vertex, s: &genai.Schema{Type: genai.TypeString, Description: "d",
			AnyOf: []*genai.Schema{ckStr()}},
			want: []Violation{{"", "When using any_of, it must be the only field set. (also set: description, type)"}}},
		{name: "gemini default beside anyOf", s: &genai.Schema{Type: genai.TypeString, Default: "a",
			AnyOf: []*genai.Schema{ckStr()}},
			want: []Violation{{"", "default: not allowed beside anyOf"}}},
		{name: "anyOf empty", s: &genai.Schema{Type: genai.TypeString, AnyOf: []*genai.Schema{}},
			want: []Violation{{"", "anyOf: must not be empty"}}},
		{name: "anyOf branch checked alone", s: &genai.Schema{Type: genai.TypeString,
			AnyOf: []*genai.Schema{ckStr(), {Type: genai.TypeInteger, Enum: []string{"1"}}}},
			want: []Violation{{"anyOf.1", "enum: only allowed for STRING type"}}},
		{name: "anyOf nil branch", s: &genai.Schema{Type: genai.TypeString, AnyOf: []*genai.Schema{ckStr(), nil}},
			want: []Violation{{"anyOf.1", "schema is nil"}}},
		{name: "enum on integer", s: &genai.Schema{Type: genai.TypeInteger, Enum: []string{"1", "2"}},
			want: []Violation{{"", "enum: only allowed for STRING type"}}},
		{name: "enum without type vertex", target: Vertex, s: &genai.Schema{Enum: []string{"a"}},
			want: []Violation{{"", "enum: only allowed for STRING type"}}},
		{name: "enum empty member", s: &genai.Schema{Type: genai.TypeString, Enum: []string{"a", "b", "c", ""}},
			want: []Violation{{"", "enum[3]: cannot be empty"}}},
		{name: "array without items", s: &genai.Schema{Type: genai.TypeArray},
			want: []Violation{{"", "items: missing field."}}},
		{name: "array with empty items", target: Vertex, s: &genai.Schema{Type: genai.TypeArray, Items: &genai.Schema{}},
			want: []Violation{{"", "items: missing field."}}},
		{name: "items on non-array", s: &genai.Schema{Type: genai.TypeString, Items: ckStr()},
			want: []Violation{{"", "items: field predicate failed: $type == Type.ARRAY"}}},
		{name: "items without type vertex", target: Vertex, s: &genai.Schema{Items: ckStr()},
			want: []Violation{{"", "items: field predicate failed: $type == Type.ARRAY"}}},
		{name: "properties on non-object", s: &genai.Schema{Type: genai.TypeString, Properties: map[string]*genai.Schema{"a": ckStr()}},
			want: []Violation{{"", "properties: only allowed for OBJECT type"}}},
		{name: "required on non-object", s: &genai.Schema{Type: genai.TypeArray, Items: ckStr(), Required: []string{"a"}},
			want: []Violation{{"", "required: only allowed for OBJECT type"}}},
		{name: "required undefined", s: ckObj(map[string]*genai.Schema{"a": ckStr()}, "a", "b"),
			want: []Violation{{"", "required[1]: property is not defined"}}},
		{name: "propertyOrdering on non-object", s: &genai.Schema{Type: genai.TypeString, PropertyOrdering: []string{"a"}},
			want: []Violation{{"", "propertyOrdering: only allowed for OBJECT type"}}},
		{name: "propertyOrdering undefined and duplicate", s: &genai.Schema{Type: genai.TypeObject,
			Properties: map[string]*genai.Schema{"a": ckStr()}, PropertyOrdering: []string{"a", "z", "a"}},
			want: []Violation{{"", `propertyOrdering[1]: property is not defined`}, {"", `propertyOrdering[2]: duplicate property "a"`}}},
		{name: "nil property", s: ckObj(map[string]*genai.Schema{"a": nil}),
			want: []Violation{{"properties.a", "schema is nil"}}},
		{name: "string format", s: &genai.Schema{Type: genai.TypeString, Format: "uri"},
			want: []Violation{{"", "format: only 'enum' and 'date-time' are supported for STRING type"}}},
		{name: "integer format", s: &genai.Schema{Type: genai.TypeInteger, Format: "uint8"},
			want: []Violation{{"", "format: only 'int32' and 'int64' are supported for INTEGER type"}}},
		{name: "number format", s: &genai.Schema{Type: genai.TypeNumber, Format: "int32"},
			want: []Violation{{"", "format: only 'float' and 'double' are supported for NUMBER type"}}},
		{name: "boolean format", s: &genai.Schema{Type: genai.TypeBoolean, Format: "int32"},
			want: []Violation{{"", "format: not supported for BOOLEAN type"}}},
		{name: "format without type", target: Vertex, s: &genai.Schema{Format: "date-time"},
			want: []Violation{{"", "format: not allowed without a type"}}},
		{name: "minimum above maximum", s: &genai.Schema{Type: genai.TypeNumber, Minimum: ckPtr(5.0), Maximum: ckPtr(1.5)},
			want: []Violation{{"", "minimum: greater than maximum (5 > 1.5)"}}},
		{name: "non-finite bound", s: &genai.Schema{Type: genai.TypeNumber, Minimum: ckPtr(math.Inf(-1)), Maximum: ckPtr(math.NaN())},
			want: []Violation{{"", "maximum: must be a finite number"}, {"", "minimum: must be a finite number"}}},
		{name: "length bounds", s: &genai.Schema{Type: genai.TypeString, MinLength: ckPtr[int64](3), MaxLength: ckPtr[int64](2)},
			want: []Violation{{"", "minLength: greater than maxLength (3 > 2)"}}},
		{name: "negative counts", s: &genai.Schema{Type: genai.TypeArray, Items: ckStr(), MinItems: ckPtr[int64](-2), MaxItems: ckPtr[int64](-1)},
			want: []Violation{{"", "maxItems: must not be negative"}, {"", "minItems: must not be negative"}}},
		{name: "properties bounds", s: &genai.Schema{Type: genai.TypeObject, MinProperties: ckPtr[int64](4), MaxProperties: ckPtr[int64](1)},
			want: []Violation{{"", "minProperties: greater than maxProperties (4 > 1)"}}},
		{name: "pattern not RE2", s: &genai.Schema{Type: genai.TypeString, Pattern: `^(?!x)`},
			want: []Violation{{"", "pattern: not a valid RE2 regular expression: error parsing regexp: invalid or unsupported Perl syntax: `(?!`"}}},
		{name: "default not encodable", s: &genai.Schema{Type: genai.TypeNumber, Default: math.NaN()},
			want: []Violation{{"", "default: not encodable as JSON: json: unsupported value: NaN"}}},
		{name: "example not encodable", s: &genai.Schema{Type: genai.TypeString, Example: func() {}},
			want: []Violation{{"", "example: not encodable as JSON: json: unsupported type: func()"}}},
		{name: "sorted by path then message", s: ckObj(map[string]*genai.Schema{
			"b": {Type: genai.TypeArray},
			"a": {Type: genai.TypeInteger, Enum: []string{""}},
		}, "c"), want: []Violation{
			{"", "required[0]: property is not defined"},
			{"properties.a", "enum: only allowed for STRING type"},
			{"properties.a", "enum[0]: cannot be empty"},
			{"properties.b", "items: missing field."},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Check(tt.s, tt.target)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Check(%s, %v) mismatch (-want +got):\n%s", tt.name, tt.target, diff)
			}
		})
	}
}

func TestCheckDepthAndCycles(t *testing.T) {
	nest := func(levels int) *genai.Schema {
		root := ckObj(nil)
		cur := root
		for range levels {
			next := ckObj(nil)
			cur.Properties = map[string]*genai.Schema{"n": next}
			cur = next
		}
		return root
	}
	if got := Check(nest(checkMaxDepth), Gemini); got != nil {
		t.Errorf("Check(%d levels) = %v, want none", checkMaxDepth, got)
	}
	deep := Check(nest(checkMaxDepth+1), Gemini)
	wantPath := strings.TrimSuffix(strings.Repeat("properties.n.", checkMaxDepth+1), ".")
	want := []Violation{{wantPath, "exceeds the maximum allowed nesting depth (32 levels)"}}
	if diff := cmp.Diff(want, deep); diff != "" {
		t.Errorf("Check(%d levels) mismatch (-want +got):\n%s", checkMaxDepth+1, diff)
	}

	cyc := ckObj(nil)
	cyc.Properties = map[string]*genai.Schema{"self": cyc, "list": {Type: genai.TypeArray, Items: cyc}}
	want = []Violation{
		{"properties.list.items", "schema cycle: refers back to its ancestor at (root)"},
		{"properties.self", "schema cycle: refers back to its ancestor at (root)"},
	}
	if diff := cmp.Diff(want, Check(cyc, Vertex)); diff != "" {
		t.Errorf("Check(cycle) mismatch (-want +got):\n%s", diff)
	}

	// A shared (DAG) subtree is fine, checked at every place it appears.
	shared := &genai.Schema{Type: genai.TypeArray}
	dag := ckObj(map[string]*genai.Schema{"a": shared, "b": shared})
	want = []Violation{{"properties.a", "items: missing field."}, {"properties.b", "items: missing field."}}
	if diff := cmp.Diff(want, Check(dag, Gemini)); diff != "" {
		t.Errorf("Check(dag) mismatch (-want +got):\n%s", diff)
	}

	// A DAG whose serialized tree is astronomically large stops early.
	wide := ckStr()
	for range 40 {
		wide = ckObj(map[string]*genai.Schema{"l": wide, "r": wide})
	}
	got := Check(wide, Gemini)
	if len(got) == 0 || !strings.Contains(got[0].Message, "schema too large") {
		t.Errorf("Check(2^40 tree) = %v, want a 'schema too large' violation", got)
	}
}

func TestCheckDoesNotMutate(t *testing.T) {
	s := ckObj(map[string]*genai.Schema{"a": {Type: genai.TypeArray}, "b": {Enum: []string{""}}}, "zz")
	before, _ := json.Marshal(s)
	_ = Check(s, Vertex)
	_ = Check(s, Gemini)
	after, _ := json.Marshal(s)
	if string(before) != string(after) {
		t.Errorf("Check mutated its input: before %s, after %s", before, after)
	}
}

func TestViolationString(t *testing.T) {
	tests := []struct {
		v    Violation
		want string
	}{
		{Violation{"", "type: must be specified when not using one_of, any_of or all_of fields"}, "(root): type: must be specified when not using one_of, any_of or all_of fields"},
		{Violation{"properties.x", "items: missing field."}, "properties.x: items: missing field."},
	}
	for _, tt := range tests {
		if got := tt.v.String(); got != tt.want {
			t.Errorf("%#v.String() = %q, want %q", tt.v, got, tt.want)
		}
	}
}

func ckDecode(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("bad test JSON %s: %v", s, err)
	}
	return v
}

func TestCheckJSONSchema(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []Violation
	}{
		{name: "clean", in: `{"type":"object","properties":{
			"a":{"$ref":"#/$defs/A","description":"d","default":1},
			"b":{"$ref":"#"},
			"c":{"type":["boolean","string"]},
			"d":{"anyOf":[{"type":"string"},{"type":"null"}]},
			"e":{"$ref":"#/properties/c"},
			"f":{"items":[{"type":"string"}],"additionalProperties":false,"not":true},
			"g":{"$ref":"#/$defs/a~1b"},
			"h":{"$ref":"#/$defs/sp%20ace"},
			"i":{"$ref":"#/$defs/list/prefixItems/1"}},
			"$defs":{"A":{"type":"integer"},"a/b":{"type":"string"},"sp ace":true,"list":{"prefixItems":[true,{}]}},
			"enum":[{"$ref":"not a schema"}],"default":{"$schema":1}}`},
		{name: "properties only root", in: `{"properties":{}}`},
		{name: "root not an object", in: `[1]`,
			want: []Violation{{"", "schema must be a JSON object describing an object, not an array"}}},
		{name: "root null", in: `null`,
			want: []Violation{{"", "schema must be a JSON object describing an object, not null"}}},
		{name: "root boolean schema", in: `true`,
			want: []Violation{{"", "schema must be a JSON object describing an object, not a boolean"}}},
		{name: "root of another type", in: `{"type":"string"}`,
			want: []Violation{{"", `type: root schema must be of type "object"`}}},
		{name: "root empty", in: `{}`,
			want: []Violation{{"", `type: root schema must be of type "object" (or have properties)`}}},
		{name: "$schema", in: `{"type":"object","$schema":"https://json-schema.org/draft/2020-12/schema"}`,
			want: []Violation{{"", "$schema: not allowed"}}},
		{name: "$ref with siblings", in: `{"type":"object","properties":{"x":{"$ref":"#","type":"object","title":"t"}}}`,
			want: []Violation{{"properties.x", "If a schema node has $ref set, then only description and default can be set alongside it (also set: title, type)"}}},
		{name: "ref loop of required fields", in: `{"type":"object","properties":{"f":{"$ref":"#/$defs/And"}},"$defs":{"And":{"type":"object","required":["left"],` +
			`"properties":{"left":{"anyOf":[{"type":"string"},{"$ref":"#/$defs/And"}]}}}}}`,
			want: []Violation{{"$defs.And.properties.left.anyOf.1", refLoopMessage + " at $defs.And.properties.left.anyOf.1"}}},
		{name: "ref loop through an optional property", in: `{"type":"object","properties":{"f":{"$ref":"#/$defs/And"}},"$defs":{"And":{"type":"object",` +
			`"properties":{"left":{"anyOf":[{"type":"string"},{"$ref":"#/$defs/And"}]}}}}}`},
		{name: "ref loop through a nullable required property", in: `{"type":"object","properties":{"f":{"$ref":"#/$defs/N"}},"$defs":{"N":{"type":"object","required":["next"],` +
			`"properties":{"next":{"anyOf":[{"type":"null"},{"$ref":"#/$defs/N"}]}}}}}`},
		{name: "ref loop through items that may be empty", in: `{"type":"object","properties":{"f":{"$ref":"#/$defs/T"}},"$defs":{"T":{"type":"object","required":["kids"],` +
			`"properties":{"kids":{"type":"array","items":{"$ref":"#/$defs/T"}}}}}}`},
		{name: "ref loop through items that may not be empty", in: `{"type":"object","properties":{"f":{"$ref":"#/$defs/T"}},"$defs":{"T":{"type":"object","required":["kids"],` +
			`"properties":{"kids":{"type":"array","minItems":1,"items":{"$ref":"#/$defs/T"}}}}}}`,
			want: []Violation{{"$defs.T.properties.kids.items", refLoopMessage + " at $defs.T.properties.kids.items"}}},
		{name: "two definitions in a required loop", in: `{"type":"object","properties":{"f":{"$ref":"#/$defs/A"}},"$defs":{` +
			`"A":{"type":"object","required":["b"],"properties":{"b":{"$ref":"#/$defs/B"}}},"B":{"type":"object","required":["a"],"properties":{"a":{"$ref":"#/$defs/A"}}}}}`,
			want: []Violation{{"$defs.A.properties.b", refLoopMessage + " at $defs.A.properties.b"}, {"$defs.B.properties.a", refLoopMessage + " at $defs.B.properties.a"}}},
		{name: "undefined ref", in: `{"type":"object","properties":{"x":{"anyOf":[{"type":"null"},{"$ref":"#/$defs/Missing"}]}}}`,
			want: []Violation{{"properties.x.anyOf.1", `$ref: reference to undefined schema "#/$defs/Missing"`}}},
		{name: "anchor ref", in: `{"type":"object","properties":{"x":{"$ref":"#node"}}}`,
			want: []Violation{{"properties.x", `$ref: reference to undefined schema "#node"`}}},
		{name: "array index ref out of range", in: `{"type":"object","allOf":[{}],"properties":{"x":{"$ref":"#/allOf/01"}}}`,
			want: []Violation{{"properties.x", `$ref: reference to undefined schema "#/allOf/01"`}}},
		{name: "remote ref", in: `{"type":"object","properties":{"x":{"$ref":"https://example.com/s.json"}}}`,
			want: []Violation{{"properties.x", `$ref: only local references ("#...") are supported, not "https://example.com/s.json"`}}},
		{name: "ref to non-schema", in: `{"type":"object","properties":{"x":{"$ref":"#/type"}}}`,
			want: []Violation{{"properties.x", `$ref: "#/type" does not point to a schema (found "object")`}}},
		{name: "ref not a string", in: `{"type":"object","properties":{"x":{"$ref":5}}}`,
			want: []Violation{{"properties.x", "$ref: must be a string"}}},
		{name: "type array with null", in: `{"type":"object","properties":{"x":{"type":["string","null"]}}}`,
			want: []Violation{{"properties.x", `type: type arrays containing "null" are rejected by some backends (use anyOf or a single type)`}}},
		{name: "bad types", in: `{"type":"object","properties":{"a":{"type":"text"},"b":{"type":[]},"c":{"type":[1]},"d":{"type":{}}}}`,
			want: []Violation{
				{"properties.a", `type: unknown type "text"`},
				{"properties.b", "type: must not be an empty array"},
				{"properties.c", "type[0]: unknown type a number"},
				{"properties.d", "type: must be a string or an array of strings, not an object"},
			}},
		{name: "not schemas", in: `{"type":"object","properties":{"a":5,"b":{"items":"x"}},"anyOf":[],"patternProperties":[]}`,
			want: []Violation{
				{"", "anyOf: must be a non-empty array of schemas"},
				{"", "patternProperties: must be an object of schemas"},
				{"properties.a", "not a schema: want an object or a boolean, not a number"},
				{"properties.b.items", `not a schema: want an object or a boolean, not "x"`},
			}},
		{name: "property named like keywords", in: `{"type":"object","properties":{"$ref":{"type":"string"},"$schema":{"type":"string"}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CheckJSONSchema(ckDecode(t, tt.in))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("CheckJSONSchema(%s) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestCheckJSONSchemaGoValues(t *testing.T) {
	type schemaStruct struct {
		Type       string         `json:"type"`
		Properties map[string]any `json:"properties,omitempty"`
	}
	cyclic := map[string]any{"type": "object"}
	cyclic["properties"] = map[string]any{"self": cyclic}
	deep := map[string]any{"type": "object"}
	cur := deep
	for range checkMaxDepth + 1 {
		next := map[string]any{"type": "object"}
		cur["properties"] = map[string]any{"n": next}
		cur = next
	}
	tests := []struct {
		name string
		v    any
		want []Violation
	}{
		{name: "struct", v: schemaStruct{Type: "object"}},
		{name: "raw message", v: json.RawMessage(`{"type":"object","properties":{"x":{"$ref":"#/nope"}}}`),
			want: []Violation{{"properties.x", `$ref: reference to undefined schema "#/nope"`}}},
		{name: "typed map", v: map[string]string{"type": "object"}},
		{name: "nan", v: map[string]any{"type": "object", "maximum": math.NaN()},
			want: []Violation{{"", "not encodable as JSON: json: unsupported value: NaN"}}},
		{name: "nil", v: nil, want: []Violation{{"", "schema must be a JSON object describing an object, not null"}}},
		{name: "too deep", v: deep, want: []Violation{{
			strings.TrimSuffix(strings.Repeat("properties.n.", checkMaxDepth+1), "."),
			"exceeds the maximum allowed nesting depth (32 levels)"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CheckJSONSchema(tt.v)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("CheckJSONSchema(%s) mismatch (-want +got):\n%s", tt.name, diff)
			}
		})
	}
	got := CheckJSONSchema(cyclic)
	if len(got) != 1 || !strings.Contains(got[0].Message, "not encodable as JSON") {
		t.Errorf("CheckJSONSchema(cyclic map) = %v, want one 'not encodable' violation", got)
	}
}

func TestCheckDeclaration(t *testing.T) {
	params := ckObj(map[string]*genai.Schema{"q": ckStr()}, "q")
	tests := []struct {
		name   string
		d      *genai.FunctionDeclaration
		target Target
		want   []Violation
	}{
		{name: "nil", d: nil, want: []Violation{{"", "function declaration is nil"}}},
		{name: "clean", d: &genai.FunctionDeclaration{Name: "search_docs.v2-beta", Parameters: params}},
		{name: "clean without parameters", d: &genai.FunctionDeclaration{Name: "_ping"}},
		{name: "clean json schema", target: JSONSchema, d: &genai.FunctionDeclaration{Name: "f",
			ParametersJsonSchema: map[string]any{"type": "object"}}},
		{name: "empty name", d: &genai.FunctionDeclaration{}, want: []Violation{{"name", "must not be empty"}}},
		{name: "name starts with digit", d: &genai.FunctionDeclaration{Name: "1tool"},
			want: []Violation{{"name", "must start with a letter or underscore, not '1'"}}},
		{name: "name with colon", d: &genai.FunctionDeclaration{Name: "srv:tool"},
			want: []Violation{{"name", "invalid character ':' at byte 3 (want letters, digits, '_', '.', '-')"}}},
		{name: "name with unicode", d: &genai.FunctionDeclaration{Name: "café"},
			want: []Violation{{"name", "invalid character 'é' at byte 3 (want letters, digits, '_', '.', '-')"}}},
		{name: "name 64 ok", d: &genai.FunctionDeclaration{Name: strings.Repeat("a", 64)}},
		{name: "name too long", d: &genai.FunctionDeclaration{Name: strings.Repeat("a", 65)},
			want: []Violation{{"name", "longer than 64 characters (65)"}}},
		{name: "both parameter forms", d: &genai.FunctionDeclaration{Name: "f", Parameters: params,
			ParametersJsonSchema: map[string]any{"type": "object"}},
			want: []Violation{{"", "parameters and parametersJsonSchema are mutually exclusive: set only one"}}},
		{name: "typed nil json schema", d: &genai.FunctionDeclaration{Name: "f", ParametersJsonSchema: map[string]any(nil)},
			want: []Violation{{"parametersJsonSchema", "must not be a typed nil (map[string]interface {}); leave the field nil instead"}}},
		{name: "root not object", d: &genai.FunctionDeclaration{Name: "f", Parameters: ckStr()},
			want: []Violation{{"parameters", "parameters schema should be of type OBJECT"}}},
		{name: "root without type on vertex", target: Vertex, d: &genai.FunctionDeclaration{Name: "f",
			Parameters: &genai.Schema{Properties: map[string]*genai.Schema{"a": {}}}},
			want: []Violation{{"parameters", "parameters schema should be of type OBJECT"}, {"parameters", "properties: only allowed for OBJECT type"}}},
		{name: "nested violations prefixed", target: Vertex, d: &genai.FunctionDeclaration{Name: "f",
			Parameters: ckObj(map[string]*genai.Schema{"n": {Type: genai.TypeNULL}})},
			want: []Violation{{"parameters.properties.n", "type: NULL is not supported (use nullable)"}}},
		{name: "json schema checked whatever the target", target: Gemini, d: &genai.FunctionDeclaration{Name: "f",
			ParametersJsonSchema: map[string]any{"type": "object", "$schema": "x"}},
			want: []Violation{{"parametersJsonSchema", "$schema: not allowed"}}},
		{name: "response checked", d: &genai.FunctionDeclaration{Name: "f", Response: &genai.Schema{Type: genai.TypeArray}},
			want: []Violation{{"response", "items: missing field."}}},
		{name: "both response forms and typed nil", d: &genai.FunctionDeclaration{Name: "f", Response: ckStr(),
			ResponseJsonSchema: (*int)(nil)},
			want: []Violation{
				{"", "response and responseJsonSchema are mutually exclusive: set only one"},
				{"responseJsonSchema", "must not be a typed nil (*int); leave the field nil instead"},
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CheckDeclaration(tt.d, tt.target)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("CheckDeclaration(%s, %v) mismatch (-want +got):\n%s", tt.name, tt.target, diff)
			}
		})
	}
}
