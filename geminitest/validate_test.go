package geminitest

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"
)

// at walks a request body map along keys (string) and indexes (int).
func at(t *testing.T, v any, path ...any) map[string]any {
	t.Helper()
	for _, p := range path {
		switch p := p.(type) {
		case string:
			v = v.(map[string]any)[p]
		case int: // the SDK's converters build both []any and []map[string]any
			v = reflect.ValueOf(v).Index(p).Interface()
		}
	}
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("body at %v is %T, want an object", path, v)
	}
	return m
}

func obj(props map[string]*genai.Schema) *genai.Schema {
	return &genai.Schema{Type: genai.TypeObject, Properties: props}
}

func decl(name string, params *genai.Schema) *genai.FunctionDeclaration {
	return &genai.FunctionDeclaration{Name: name, Parameters: params}
}

// twoTools declares get_weather (properties city, units) and search
// (properties filter, limit), in that order, in one tool.
func twoTools() []*genai.Tool {
	tools := weatherTools()
	tools[0].FunctionDeclarations = append(tools[0].FunctionDeclarations, decl("search", obj(map[string]*genai.Schema{
		"filter": obj(map[string]*genai.Schema{"q": {Type: genai.TypeString}}),
		"limit":  {Type: genai.TypeInteger},
	})))
	return tools
}

func modelCalls(calls ...*genai.FunctionCall) *genai.Content {
	c := &genai.Content{Role: genai.RoleModel}
	for _, fc := range calls {
		c.Parts = append(c.Parts, &genai.Part{FunctionCall: fc})
	}
	return c
}

func userResponses(resps ...*genai.FunctionResponse) *genai.Content {
	c := &genai.Content{Role: genai.RoleUser}
	for _, fr := range resps {
		c.Parts = append(c.Parts, &genai.Part{FunctionResponse: fr})
	}
	return c
}

func weatherCall(id string) *genai.FunctionCall {
	return &genai.FunctionCall{ID: id, Name: "get_weather", Args: map[string]any{"city": "Oslo"}}
}

func weatherResponse(id string) *genai.FunctionResponse {
	return &genai.FunctionResponse{ID: id, Name: "get_weather", Response: map[string]any{"output": "sunny"}}
}

func manyDeclarations(n int) []*genai.Tool {
	decls := make([]*genai.FunctionDeclaration, n)
	for i := range decls {
		decls[i] = decl(fmt.Sprintf("f%d", i), obj(nil))
	}
	return []*genai.Tool{{FunctionDeclarations: decls}}
}

const (
	fieldPrefix   = "* GenerateContentRequest."
	decl0         = fieldPrefix + "tools[0].function_declarations[0]"
	unknownPrefix = "Invalid JSON payload received. Unknown name "
)

func TestRejections(t *testing.T) {
	hi := []*genai.Content{userText("hi")}
	tests := []struct {
		name     string
		contents []*genai.Content
		tools    []*genai.Tool
		edit     func(t *testing.T, body map[string]any) // edits the JSON body genai built
		want     string
	}{
		{
			name: "unknown key at top level",
			edit: func(t *testing.T, body map[string]any) { body["foo"] = 1 },
			want: unknownPrefix + `"foo": Cannot find field.`,
		},
		{
			name: "unknown key in a part",
			edit: func(t *testing.T, body map[string]any) { at(t, body, "contents", 0, "parts", 0)["txt"] = "x" },
			want: unknownPrefix + `"txt" at 'contents[0].parts[0]': Cannot find field.`,
		},
		{
			name: "unknown key in generationConfig",
			edit: func(t *testing.T, body map[string]any) { body["generationConfig"] = map[string]any{"temprature": 0.5} },
			want: unknownPrefix + `"temprature" at 'generation_config': Cannot find field.`,
		},
		{
			name:  "additionalProperties in a nested property",
			tools: twoTools(),
			edit: func(t *testing.T, body map[string]any) {
				at(t, body, "tools", 0, "functionDeclarations", 1, "parameters", "properties", "limit")["additionalProperties"] = false
			},
			want: unknownPrefix + `"additionalProperties" at 'tools[0].function_declarations[1].parameters.properties[1].value': Cannot find field.`,
		},
		{
			name:  "$ref and $defs in parameters, each reported",
			tools: weatherTools(),
			edit: func(t *testing.T, body map[string]any) {
				p := at(t, body, "tools", 0, "functionDeclarations", 0, "parameters")
				p["$ref"], p["$defs"] = "#/$defs/x", map[string]any{}
			},
			want: unknownPrefix + `"$defs" at 'tools[0].function_declarations[0].parameters': Cannot find field.` + "\n" +
				unknownPrefix + `"$ref" at 'tools[0].function_declarations[0].parameters': Cannot find field.`,
		},
		{
			name:  "type array",
			tools: weatherTools(),
			edit: func(t *testing.T, body map[string]any) {
				at(t, body, "tools", 0, "functionDeclarations", 0, "parameters", "properties", "city")["type"] = []any{"STRING", "NULL"}
			},
			want: unknownPrefix + `"type" at 'tools[0].function_declarations[0].parameters.properties[0].value': Proto field is not repeating, cannot start list.`,
		},
		{
			name:  "non-string enum values",
			tools: weatherTools(),
			edit: func(t *testing.T, body map[string]any) {
				at(t, body, "tools", 0, "functionDeclarations", 0, "parameters", "properties", "units")["enum"] = []any{1, "x"}
			},
			want: "Invalid value at 'tools[0].function_declarations[0].parameters.properties[1].value.enum[0]' (TYPE_STRING), 1",
		},
		{
			name:  "unknown type name",
			tools: weatherTools(),
			edit: func(t *testing.T, body map[string]any) {
				at(t, body, "tools", 0, "functionDeclarations", 0, "parameters", "properties", "city")["type"] = "TEXT"
			},
			want: "Invalid value at 'tools[0].function_declarations[0].parameters.properties[0].value.type' " +
				`(type.googleapis.com/google.ai.generativelanguage.v1beta.Type), "TEXT"`,
		},
		{
			name: "two data fields in one part",
			contents: []*genai.Content{{Role: genai.RoleUser, Parts: []*genai.Part{
				{Text: "a", InlineData: &genai.Blob{MIMEType: "image/png", Data: []byte{1}}},
			}}},
			want: "Invalid value at 'contents[0].parts[0].data' (oneof), oneof field 'data' is already set. Cannot set 'text'",
		},
		{
			name:  "enum on INTEGER",
			tools: []*genai.Tool{{FunctionDeclarations: []*genai.FunctionDeclaration{decl("f", obj(map[string]*genai.Schema{"n": {Type: genai.TypeInteger, Enum: []string{"1", "2"}}}))}}},
			want:  decl0 + ".parameters.properties[n].enum: only allowed for STRING type\n",
		},
		{
			name:  "array without items",
			tools: []*genai.Tool{{FunctionDeclarations: []*genai.FunctionDeclaration{decl("f", obj(map[string]*genai.Schema{"list": {Type: genai.TypeArray}}))}}},
			want:  decl0 + ".parameters.properties[list].items: missing field.\n",
		},
		{
			name: "several schema violations, in the checker's order",
			tools: []*genai.Tool{{FunctionDeclarations: []*genai.FunctionDeclaration{decl("f", &genai.Schema{
				Type: genai.TypeObject, Required: []string{"gone"},
				Properties: map[string]*genai.Schema{"x": {Description: "no type"}},
			})}}},
			want: decl0 + ".parameters.required[0]: property is not defined\n" +
				decl0 + ".parameters.properties[x].type: must be specified when not using one_of, any_of or all_of fields\n",
		},
		{
			// The API's own error for such a loop in parametersJsonSchema.
			name: "parametersJsonSchema with a loop of references through required fields",
			tools: []*genai.Tool{{FunctionDeclarations: []*genai.FunctionDeclaration{{
				Name: "f", ParametersJsonSchema: map[string]any{
					"type": "object", "properties": map[string]any{"f": map[string]any{"$ref": "#/$defs/And"}},
					"$defs": map[string]any{"And": map[string]any{"type": "object", "required": []any{"left"},
						"properties": map[string]any{"left": map[string]any{"anyOf": []any{
							map[string]any{"type": "string"}, map[string]any{"$ref": "#/$defs/And"}}}}}},
				},
			}}}},
			want: decl0 + ".parameters_json_schema.$defs.And.properties.left.anyOf.1: ref loops are only supported if they include optional or nullable " +
				"property values, or a potentially-zero-length array items, but a ref loop of required fields was found at $defs.And.properties.left.anyOf.1\n",
		},
		{
			name:  "root not an object",
			tools: []*genai.Tool{{FunctionDeclarations: []*genai.FunctionDeclaration{decl("f", &genai.Schema{Type: genai.TypeString})}}},
			want:  decl0 + ".parameters: parameters schema should be of type OBJECT\n",
		},
		{
			name: "parameters and parametersJsonSchema both set",
			tools: []*genai.Tool{{FunctionDeclarations: []*genai.FunctionDeclaration{{
				Name: "f", Parameters: obj(nil), ParametersJsonSchema: map[string]any{"type": "object"},
			}}}},
			want: decl0 + ": parameters and parametersJsonSchema are mutually exclusive: set only one\n",
		},
		{
			name:  "invalid function name",
			tools: []*genai.Tool{{FunctionDeclarations: []*genai.FunctionDeclaration{decl("1bad", obj(nil))}}},
			want:  decl0 + ".name: must start with a letter or underscore, not '1'\n",
		},
		{
			name:  "duplicate function names",
			tools: []*genai.Tool{{FunctionDeclarations: []*genai.FunctionDeclaration{decl("f", obj(nil)), decl("f", obj(nil))}}},
			want: fieldPrefix + "tools[0].function_declarations[1].name: Duplicate function declaration found: f " +
				"(first declared at tools[0].function_declarations[0])\n",
		},
		{
			name:  "513 declarations",
			tools: manyDeclarations(513),
			want:  "At most 512 function declarations can be specified.",
		},
		{
			name:  "empty declarations",
			tools: []*genai.Tool{{FunctionDeclarations: []*genai.FunctionDeclaration{}}},
			want:  fieldPrefix + "tools[0].tool_type: required one_of 'tool_type' must have one initialized field\n",
		},
		{
			name:     "no contents",
			contents: nil,
			want:     fieldPrefix + "contents: contents is not specified\n",
		},
		{
			name:     "empty part",
			contents: []*genai.Content{{Role: genai.RoleUser, Parts: []*genai.Part{{}}}},
			want:     fieldPrefix + "contents[0].parts[0].data: required oneof field 'data' must have one initialized field\n",
		},
		{
			name:     "invalid role",
			contents: []*genai.Content{genai.NewContentFromText("hi", "assistant")},
			want:     "Please use a valid role: user, model.",
		},
		{
			name:     "$ref in a function response",
			tools:    weatherTools(),
			contents: []*genai.Content{userText("hi"), modelCalls(weatherCall("call-1")), userResponses(&genai.FunctionResponse{ID: "call-1", Name: "get_weather", Response: map[string]any{"output": map[string]any{"$ref": "#/x"}}})},
			want:     fieldPrefix + `contents[2].parts[0].function_response.response.output.$ref: "$ref" is read as a reference to a function response part; no such part is defined` + "\n",
		},
		{
			name:     "mismatched id",
			tools:    weatherTools(),
			contents: []*genai.Content{userText("hi"), modelCalls(weatherCall("call-1")), userResponses(weatherResponse("call-9"))},
			want: fieldPrefix + `contents[2].parts[0].function_response.id: function response id "call-9" does not match the id ` +
				`of any unanswered function call in the preceding function call turn (ids: "call-1")` + "\n",
		},
		{
			name:     "missing id",
			tools:    weatherTools(),
			contents: []*genai.Content{userText("hi"), modelCalls(weatherCall("call-1")), userResponses(weatherResponse(""))},
			want:     fieldPrefix + `contents[2].parts[0].function_response.id: missing: function call "get_weather" had id "call-1", which its response must echo` + "\n",
		},
		{
			name:     "invented id",
			tools:    weatherTools(),
			contents: []*genai.Content{userText("hi"), modelCalls(weatherCall("")), userResponses(weatherResponse("x"))},
			want: fieldPrefix + `contents[2].parts[0].function_response.id: function response id "x" does not match the id ` +
				`of any unanswered function call in the preceding function call turn (ids: (none))` + "\n",
		},
		{
			name:  "wrong name for the id",
			tools: weatherTools(),
			contents: []*genai.Content{userText("hi"), modelCalls(weatherCall("call-1")),
				userResponses(&genai.FunctionResponse{ID: "call-1", Name: "get_wether", Response: map[string]any{}})},
			want: fieldPrefix + `contents[2].parts[0].function_response.name: function response name "get_wether" does not match the name "get_weather" of function call "call-1"` + "\n",
		},
		{
			name:     "same call answered twice",
			tools:    weatherTools(),
			contents: []*genai.Content{userText("hi"), modelCalls(weatherCall("call-1"), weatherCall("call-2")), userResponses(weatherResponse("call-1"), weatherResponse("call-1"))},
			want: fieldPrefix + `contents[2].parts[1].function_response.id: function response id "call-1" does not match the id ` +
				`of any unanswered function call in the preceding function call turn (ids: "call-1", "call-2")` + "\n",
		},
		{
			name:     "missing response",
			tools:    weatherTools(),
			contents: []*genai.Content{userText("hi"), modelCalls(weatherCall("call-1")), userText("and?")},
			want:     "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.",
		},
		{
			name:     "fewer responses than calls",
			tools:    weatherTools(),
			contents: []*genai.Content{userText("hi"), modelCalls(weatherCall("call-1"), weatherCall("call-2")), userResponses(weatherResponse("call-1"))},
			want:     "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.",
		},
		{
			name:     "response without a call turn",
			tools:    weatherTools(),
			contents: []*genai.Content{userText("hi"), genai.NewContentFromText("ok", genai.RoleModel), userResponses(weatherResponse(""))},
			want:     "Please ensure that function response turn comes immediately after a function call turn.",
		},
		{
			name:     "function call in a user turn",
			tools:    weatherTools(),
			contents: []*genai.Content{{Role: genai.RoleUser, Parts: []*genai.Part{{FunctionCall: weatherCall("")}}}},
			want:     fieldPrefix + "contents[0].parts[0].function_call: function calls can only appear in a model turn\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			srv := New(t, nil, Text("unused"))
			config := &genai.GenerateContentConfig{Tools: tt.tools}
			if tt.edit != nil {
				config.HTTPOptions = &genai.HTTPOptions{ExtrasRequestProvider: func(body map[string]any) map[string]any {
					tt.edit(t, body)
					return body
				}}
			}
			contents := tt.contents
			if contents == nil && tt.name != "no contents" {
				contents = hi
			}
			_, err := srv.Client(ctx).Models.GenerateContent(ctx, model, contents, config)
			got := asAPIError(t, err)
			if got.Code != 400 || got.Status != "INVALID_ARGUMENT" {
				t.Errorf("GenerateContent() error code, status = %d, %q, want 400, INVALID_ARGUMENT", got.Code, got.Status)
			}
			if got.Message != tt.want {
				t.Errorf("GenerateContent() error message =\n%s\nwant\n%s", got.Message, tt.want)
			}
			if srv.Remaining() != 1 {
				t.Errorf("Remaining() = %d, want 1 (a rejected request uses no turn)", srv.Remaining())
			}
			if reqs := srv.Requests(); len(reqs) != 1 || reqs[0].Rejection != got.Message || reqs[0].Turn != -1 {
				t.Errorf("Requests() = %d requests, want one recording the rejection", len(reqs))
			}
		})
	}
}

func TestAccepted(t *testing.T) {
	tests := []struct {
		name     string
		contents []*genai.Content
		tools    []*genai.Tool
	}{
		{"512 declarations", nil, manyDeclarations(512)},
		{"parametersJsonSchema with $ref and $defs", nil, []*genai.Tool{{FunctionDeclarations: []*genai.FunctionDeclaration{{
			Name: "f", ParametersJsonSchema: map[string]any{
				"type": "object", "properties": map[string]any{"a": map[string]any{"$ref": "#/$defs/a"}},
				"$defs": map[string]any{"a": map[string]any{"type": "string"}}, "additionalProperties": false,
			},
		}}}}},
		{"parametersJsonSchema with a loop of references through an optional property", nil, []*genai.Tool{{FunctionDeclarations: []*genai.FunctionDeclaration{{
			Name: "f", ParametersJsonSchema: map[string]any{
				"type": "object", "properties": map[string]any{"f": map[string]any{"$ref": "#/$defs/And"}},
				"$defs": map[string]any{"And": map[string]any{"type": "object",
					"properties": map[string]any{"left": map[string]any{"anyOf": []any{
						map[string]any{"type": "string"}, map[string]any{"$ref": "#/$defs/And"}}}}}},
			},
		}}}}},
		{"parallel calls answered in another order, by id", []*genai.Content{userText("hi"),
			modelCalls(weatherCall("call-1"), weatherCall("call-2")),
			userResponses(weatherResponse("call-2"), weatherResponse("call-1")),
		}, weatherTools()},
		{"calls without ids answered by name", []*genai.Content{userText("hi"),
			modelCalls(weatherCall(""), weatherCall("")),
			userResponses(weatherResponse(""), weatherResponse("")),
		}, weatherTools()},
		{"function response with parts and a nested schema", []*genai.Content{userText("hi"),
			modelCalls(weatherCall("call-1")),
			userResponses(&genai.FunctionResponse{ID: "call-1", Name: "get_weather",
				Response: map[string]any{"output": map[string]any{"ref": "not a $ref key", "list": []any{1, "two"}}},
				Parts:    []*genai.FunctionResponsePart{genai.NewFunctionResponsePartFromBytes([]byte("img"), "image/png")}}),
		}, twoTools()},
		{"google search beside functions", nil, append(weatherTools(), &genai.Tool{GoogleSearch: &genai.GoogleSearch{}})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			srv := New(t, nil, Text("ok"))
			contents := tt.contents
			if contents == nil {
				contents = []*genai.Content{userText("hi")}
			}
			temp := float32(0.2)
			config := &genai.GenerateContentConfig{
				Tools: tt.tools, Temperature: &temp, SystemInstruction: genai.NewContentFromText("Be brief.", ""),
				ToolConfig:     &genai.ToolConfig{FunctionCallingConfig: &genai.FunctionCallingConfig{Mode: genai.FunctionCallingConfigModeAuto}},
				ThinkingConfig: &genai.ThinkingConfig{IncludeThoughts: true},
				SafetySettings: []*genai.SafetySetting{{Category: genai.HarmCategoryHarassment, Threshold: genai.HarmBlockThresholdBlockNone}},
			}
			resp, err := srv.Client(ctx).Models.GenerateContent(ctx, model, contents, config)
			if err != nil {
				t.Fatalf("GenerateContent() error = %v", err)
			}
			if resp.Text() != "ok" {
				t.Errorf("Text() = %q, want %q", resp.Text(), "ok")
			}
			if diff := cmp.Diff(config, srv.Requests()[0].Config); diff != "" {
				t.Errorf("Requests()[0].Config mismatch (-sent +received):\n%s", diff)
			}
		})
	}
}

func TestAPIPath(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"name", "name"},
		{"parameters", "parameters"},
		{"parameters.properties.city", "parameters.properties[city]"},
		{"parameters.properties.a.anyOf.1.items", "parameters.properties[a].any_of[1].items"},
		{"parameters.properties.properties", "parameters.properties[properties]"},
		{"parametersJsonSchema.properties.x.$ref", "parameters_json_schema.properties.x.$ref"},
		{"responseJsonSchema", "response_json_schema"},
	}
	for _, tt := range tests {
		if got := apiPath(tt.in); got != tt.want {
			t.Errorf("apiPath(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestFormatViolations(t *testing.T) {
	tests := []struct {
		name string
		in   []violation
		want string
	}{
		{"one plain message", []violation{{"", "At most 512 function declarations can be specified."}},
			"At most 512 function declarations can be specified."},
		{"field violations", []violation{{"a.b", "bad"}, {"c", "worse"}},
			"* GenerateContentRequest.a.b: bad\n* GenerateContentRequest.c: worse\n"},
		{"mixed", []violation{{"", "plain"}, {"c", "field"}},
			"plain\n* GenerateContentRequest.c: field\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := formatViolations(tt.in); got != tt.want {
				t.Errorf("formatViolations(%v) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestEveryConfigFieldAccepted sends every GenerateContentConfig field the
// SDK passes to the Developer API, so a field the fake does not model shows
// up as an unknown name here rather than in a caller's test.
func TestEveryConfigFieldAccepted(t *testing.T) {
	ctx := context.Background()
	srv := New(t, nil, Text("ok"))
	f := func(v float32) *float32 { return &v }
	i := func(v int32) *int32 { return &v }
	yes := true
	config := &genai.GenerateContentConfig{
		SystemInstruction: genai.NewContentFromText("sys", genai.RoleUser),
		Temperature:       f(0.5), TopP: f(0.9), TopK: f(40), CandidateCount: 1, MaxOutputTokens: 100,
		StopSequences: []string{"END"}, ResponseLogprobs: true, Logprobs: i(2),
		PresencePenalty: f(0.1), FrequencyPenalty: f(0.2), Seed: i(7),
		ResponseMIMEType: "application/json",
		ResponseSchema:   &genai.Schema{Type: genai.TypeObject, Properties: map[string]*genai.Schema{"a": {Type: genai.TypeString}}},
		SafetySettings:   []*genai.SafetySetting{{Category: genai.HarmCategoryHateSpeech, Threshold: genai.HarmBlockThresholdBlockOnlyHigh}},
		Tools:            append(weatherTools(), &genai.Tool{CodeExecution: &genai.ToolCodeExecution{}}, &genai.Tool{URLContext: &genai.URLContext{}}),
		ToolConfig: &genai.ToolConfig{FunctionCallingConfig: &genai.FunctionCallingConfig{
			Mode: genai.FunctionCallingConfigModeAny, AllowedFunctionNames: []string{"get_weather"},
		}},
		Labels: map[string]string{"k": "v"}, CachedContent: "cachedContents/abc",
		ResponseModalities: []string{"TEXT"}, MediaResolution: genai.MediaResolutionLow,
		SpeechConfig:               &genai.SpeechConfig{VoiceConfig: &genai.VoiceConfig{PrebuiltVoiceConfig: &genai.PrebuiltVoiceConfig{VoiceName: "Kore"}}},
		ThinkingConfig:             &genai.ThinkingConfig{IncludeThoughts: true, ThinkingBudget: i(128)},
		ImageConfig:                &genai.ImageConfig{AspectRatio: "16:9"},
		EnableEnhancedCivicAnswers: &yes, Store: &yes, ContinuationToken: []byte("tok"),
	}
	if _, err := srv.Client(ctx).Models.GenerateContent(ctx, model, []*genai.Content{userText("hi")}, config); err != nil {
		t.Fatalf("GenerateContent(every config field) error = %v", err)
	}
	if diff := cmp.Diff(config, srv.Requests()[0].Config); diff != "" {
		t.Errorf("Requests()[0].Config mismatch (-sent +received):\n%s", diff)
	}
}

func TestOptionRules(t *testing.T) {
	ctx := context.Background()
	rule := func(d *genai.FunctionDeclaration) (string, string) {
		if d.Name == "search" {
			return "parameters.properties[filter]", "too many states for serving"
		}
		return "", ""
	}
	tests := []struct {
		name string
		opts Options
		want string // "" means accepted
	}{
		{"a rule names the declaration by index", Options{DeclarationRules: []DeclarationRule{rule}},
			"* GenerateContentRequest.tools[0].function_declarations[1].parameters.properties[filter]: too many states for serving\n"},
		{"nesting within the limit", Options{MaxNestingDepth: 3}, ""},
		{"nesting over the limit names no declaration", Options{MaxNestingDepth: 2},
			"A FunctionDeclaration in the request exceeds the maximum allowed nesting depth."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := New(t, &tt.opts, Text("ok"))
			_, err := srv.Client(ctx).Models.GenerateContent(ctx, model, []*genai.Content{userText("hi")},
				&genai.GenerateContentConfig{Tools: twoTools()})
			if tt.want == "" {
				if err != nil {
					t.Fatalf("GenerateContent() = %v, want accepted", err)
				}
				return
			}
			if got := asAPIError(t, err); got.Code != 400 || got.Message != tt.want {
				t.Errorf("GenerateContent() = %d %q, want 400 %q", got.Code, got.Message, tt.want)
			}
		})
	}
}
