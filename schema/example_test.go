package schema_test

import (
	"encoding/json"
	"fmt"

	"github.com/mcpgenai/bridge/schema"
	"google.golang.org/genai"
)

func ExampleConvert() {
	raw := []byte(`{
		"$schema": "http://json-schema.org/draft-07/schema#",
		"type": "object",
		"properties": {
			"city": {"type": "string"},
			"days": {"type": "integer", "enum": [1, 3, 7]},
			"unit": {"type": ["string", "null"], "format": "uri"}
		},
		"required": ["city", "country"],
		"additionalProperties": false
	}`)
	res, err := schema.Convert(raw, nil) // Gemini Developer API
	if err != nil {
		panic(err)
	}
	out, _ := json.Marshal(res.Parameters)
	fmt.Println(string(out))
	for _, c := range res.Changes {
		fmt.Println(c)
	}
	// Output:
	// {"description":"no other properties allowed","properties":{"city":{"type":"STRING"},"days":{"enum":["1","3","7"],"type":"STRING"},"unit":{"description":"format: uri","nullable":true,"type":"STRING"}},"required":["city"],"type":"OBJECT"}
	// (root): required: names "country", which is not a property: removed
	// (root): $schema: dropped
	// (root): additionalProperties: not supported: moved to the description
	// properties.days: enum: non-string members written as strings (restored in the arguments)
	// properties.days: type: integer enum written as STRING (restored in the arguments)
	// properties.unit: format: format uri not accepted for STRING: moved to the description
}

func ExampleRestorer_Mismatches() {
	res, err := schema.Convert([]byte(`{"type":"object","properties":{"priority":{"type":"integer","enum":[1,2,3]}}}`), nil)
	if err != nil {
		panic(err)
	}
	// The model was shown the enum "1", "2", "3" and sent "7": Restore
	// leaves it a string, which a validator of the original schema would
	// call a string where an integer is wanted.
	args := res.Restorer.Restore(map[string]any{"priority": "7"})
	for _, m := range res.Restorer.Mismatches(args) {
		fmt.Println(m)
	}
	// Output:
	// priority: "7" is not one of "1", "2", "3"
}

func ExampleConvert_jsonSchema() {
	raw := []byte(`{
		"type": "object",
		"$defs": {"id": {"type": "string", "format": "uuid"}},
		"properties": {"owner": {"$ref": "#/$defs/id"}, "size": {"type": ["integer", "null"]}}
	}`)
	res, err := schema.Convert(raw, &schema.Options{Target: schema.JSONSchema})
	if err != nil {
		panic(err)
	}
	decl := res.Declaration("assign_owner", "Assigns an owner.")
	out, _ := json.Marshal(decl.ParametersJsonSchema)
	fmt.Println(string(out))
	fmt.Println(decl.Parameters == nil)
	// Output:
	// {"$defs":{"id":{"format":"uuid","type":"string"}},"properties":{"owner":{"$ref":"#/$defs/id"},"size":{"anyOf":[{"type":"integer"},{"type":"null"}]}},"type":"object"}
	// true
}

func ExampleRestorer_Restore() {
	raw := []byte(`{"type": "array", "items": {"type": "integer", "enum": [1, 2, 3]}}`)
	res, err := schema.Convert(raw, nil)
	if err != nil {
		panic(err)
	}
	// The model answers in terms of the converted schema: the root wrapped
	// as "value", the enum members as strings.
	args := map[string]any{"value": []any{"3", "1"}}
	restored, _ := json.Marshal(res.Restorer.Restore(args))
	fmt.Println(string(restored))
	// Output:
	// [3,1]
}

func ExampleCheck() {
	s := &genai.Schema{
		Type: genai.TypeObject,
		Properties: map[string]*genai.Schema{
			"level": {Type: genai.TypeInteger, Enum: []string{"1", "2"}},
			"tags":  {Type: genai.TypeArray},
		},
		Required: []string{"level", "name"},
	}
	for _, v := range schema.Check(s, schema.Gemini) {
		fmt.Println(v)
	}
	// Output:
	// (root): required[1]: property is not defined
	// properties.level: enum: only allowed for STRING type
	// properties.tags: items: missing field.
}

func ExampleCheckDeclaration() {
	d := &genai.FunctionDeclaration{
		Name: "1-search",
		ParametersJsonSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"q": map[string]any{"$ref": "#/$defs/Query"},
			},
		},
	}
	for _, v := range schema.CheckDeclaration(d, schema.JSONSchema) {
		fmt.Println(v)
	}
	// Output:
	// name: must start with a letter or underscore, not '1'
	// parametersJsonSchema.properties.q: $ref: reference to undefined schema "#/$defs/Query"
}

func ExampleCheckJSONSchema() {
	var v any
	_ = json.Unmarshal([]byte(`{"type":"object","properties":{"n":{"type":["integer","null"],"$ref":"#/$defs/N"}}}`), &v)
	for _, v := range schema.CheckJSONSchema(v) {
		fmt.Println(v)
	}
	// Output:
	// properties.n: $ref: reference to undefined schema "#/$defs/N"
	// properties.n: If a schema node has $ref set, then only description and default can be set alongside it (also set: type)
	// properties.n: type: type arrays containing "null" are rejected by some backends (use anyOf or a single type)
}

func ExampleCheckTools() {
	weather := &genai.FunctionDeclaration{
		Name:       "get_weather",
		Parameters: &genai.Schema{Type: genai.TypeObject, Properties: map[string]*genai.Schema{"city": {Type: genai.TypeString}}},
	}
	// The same function declared in two tools, and a tool that declares
	// nothing: both are rejected by the API as a whole request.
	tools := []*genai.Tool{
		{FunctionDeclarations: []*genai.FunctionDeclaration{weather}},
		{FunctionDeclarations: []*genai.FunctionDeclaration{weather}},
		{FunctionDeclarations: []*genai.FunctionDeclaration{}},
	}
	for _, v := range schema.CheckTools(tools, schema.Vertex) {
		fmt.Println(v)
	}
	fmt.Println("Vertex AI allows", schema.Vertex.MaxDeclarations(), "declarations a request")
	// Output:
	// tools[1].functionDeclarations[0].name: function "get_weather" is declared twice (first at tools[0].functionDeclarations[0])
	// tools[2].functionDeclarations: an empty list of function declarations is rejected; leave the tool out
	// Vertex AI allows 128 declarations a request
}
