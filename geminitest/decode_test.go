package geminitest

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestDecodeRequest(t *testing.T) {
	deep := strings.Repeat(`{"a":`, maxNesting+1) + "1" + strings.Repeat("}", maxNesting+1)
	tests := []struct {
		name     string
		body     string
		wantErrs []string
		want     *wireRequest // compared when not nil
	}{
		{
			name: "snake_case keys, as proto JSON allows",
			body: `{"system_instruction":{"parts":[{"text":"s"}]},"contents":[{"role":"user","parts":[{"inline_data":{"mime_type":"image/png","data":"AQI="}}]}]}`,
			want: &wireRequest{
				SystemInstruction: &wireContent{Parts: []*wirePart{{Text: "s", set: []string{"text"}}}},
				Contents: []*wireContent{{Role: "user", Parts: []*wirePart{{
					InlineData: &wireBlob{MIMEType: "image/png", Data: []byte{1, 2}}, set: []string{"inlineData"},
				}}}},
			},
		},
		{
			name: "integers as numbers, quoted or with a zero fraction; lower-case types",
			body: `{"tools":[{"functionDeclarations":[{"name":"f","parameters":{"type":"object","properties":{"l":{"type":"array","maxItems":"5","minItems":1.0,"items":{"type":"string"}}}}}]}]}`,
			want: &wireRequest{Tools: []*wireTool{{FunctionDeclarations: []*wireFunctionDeclaration{{
				Name: "f", Parameters: &wireSchema{Type: "OBJECT", Properties: map[string]*wireSchema{
					"l": {Type: "ARRAY", MaxItems: ptr[int64](5), MinItems: ptr[int64](1), Items: &wireSchema{Type: "STRING"}},
				}},
			}}}}},
		},
		{
			name: "null leaves fields unset",
			body: `{"contents":null,"systemInstruction":null,"tools":[{"functionDeclarations":[{"name":"f","parameters":null,"description":null}]}]}`,
			want: &wireRequest{Tools: []*wireTool{{FunctionDeclarations: []*wireFunctionDeclaration{{Name: "f"}}}}},
		},
		{
			name: "free JSON keeps any key and decodes numbers as float64",
			body: `{"contents":[{"role":"model","parts":[{"functionCall":{"name":"f","args":{"$ref":1,"n":[2,{"x":null}]}}}]}]}`,
			want: &wireRequest{Contents: []*wireContent{{Role: "model", Parts: []*wirePart{{
				FunctionCall: &wireFunctionCall{Name: "f", Args: map[string]any{"$ref": 1.0, "n": []any{2.0, map[string]any{"x": nil}}}},
				set:          []string{"functionCall"},
			}}}}},
		},
		{
			name: "URL-safe unpadded base64",
			body: `{"contents":[{"parts":[{"inlineData":{"mimeType":"a/b","data":"-_8"}}]}]}`,
			want: &wireRequest{Contents: []*wireContent{{Parts: []*wirePart{{
				InlineData: &wireBlob{MIMEType: "a/b", Data: []byte{0xfb, 0xff}}, set: []string{"inlineData"},
			}}}}},
		},
		{
			name:     "keys are case-sensitive",
			body:     `{"Contents":[]}`,
			wantErrs: []string{`Invalid JSON payload received. Unknown name "Contents": Cannot find field.`},
		},
		{
			name: "every unknown key, in document order",
			body: `{"b":1,"contents":[{"parts":[{"text":"x","c":1}],"d":2}],"a":3}`,
			wantErrs: []string{
				`Invalid JSON payload received. Unknown name "b": Cannot find field.`,
				`Invalid JSON payload received. Unknown name "c" at 'contents[0].parts[0]': Cannot find field.`,
				`Invalid JSON payload received. Unknown name "d" at 'contents[0]': Cannot find field.`,
				`Invalid JSON payload received. Unknown name "a": Cannot find field.`,
			},
		},
		{
			name:     "list for a message",
			body:     `{"systemInstruction":[]}`,
			wantErrs: []string{`Invalid JSON payload received. Unknown name "systemInstruction": Proto field is not repeating, cannot start list.`},
		},
		{
			name:     "string for a message",
			body:     `{"systemInstruction":"be brief"}`,
			wantErrs: []string{`Invalid value at 'system_instruction' (type.googleapis.com/google.ai.generativelanguage.v1beta.Content), "be brief"`},
		},
		{
			name:     "object for a string",
			body:     `{"contents":[{"role":{"x":1}}]}`,
			wantErrs: []string{`Invalid value at 'contents[0].role' (TYPE_STRING), Starting an object on a scalar field`},
		},
		{
			name:     "fraction for an integer",
			body:     `{"generationConfig":{"maxOutputTokens":1.5}}`,
			wantErrs: []string{`Invalid value at 'generation_config.max_output_tokens' (TYPE_INT32), 1.5`},
		},
		{
			name:     "int32 overflow",
			body:     `{"generationConfig":{"seed":4294967296}}`,
			wantErrs: []string{`Invalid value at 'generation_config.seed' (TYPE_INT32), 4294967296`},
		},
		{
			name:     "string for a bool",
			body:     `{"contents":[{"parts":[{"text":"x","thought":"yes"}]}]}`,
			wantErrs: []string{`Invalid value at 'contents[0].parts[0].thought' (TYPE_BOOL), "yes"`},
		},
		{
			name:     "bad base64",
			body:     `{"contents":[{"parts":[{"inlineData":{"data":"***"}}]}]}`,
			wantErrs: []string{`Invalid value at 'contents[0].parts[0].inline_data.data' (TYPE_BYTES), Base64 decoding failed for "***"`},
		},
		{
			name:     "unknown enum value",
			body:     `{"toolConfig":{"functionCallingConfig":{"mode":"SOMETIMES"}}}`,
			wantErrs: []string{`Invalid value at 'tool_config.function_calling_config.mode' (type.googleapis.com/google.ai.generativelanguage.v1beta.FunctionCallingConfig.Mode), "SOMETIMES"`},
		},
		{
			name:     "list for a Struct",
			body:     `{"contents":[{"parts":[{"functionCall":{"name":"f","args":[1]}}]}]}`,
			wantErrs: []string{`Invalid JSON payload received. Unknown name "args" at 'contents[0].parts[0].function_call': Proto field is not repeating, cannot start list.`},
		},
		{
			name:     "string for a Struct",
			body:     `{"contents":[{"parts":[{"functionCall":{"name":"f","args":"x"}}]}]}`,
			wantErrs: []string{`Invalid value at 'contents[0].parts[0].function_call.args' (type.googleapis.com/google.protobuf.Struct), "x"`},
		},
		{
			name:     "syntax error",
			body:     `{"contents":[}`,
			wantErrs: []string{"Invalid JSON payload received. Unexpected token at byte 13: invalid character '}' looking for beginning of value."},
		},
		{
			name:     "trailing data",
			body:     `{} {}`,
			wantErrs: []string{"Invalid JSON payload received. Unexpected token: unexpected data after the top-level value."},
		},
		{
			name:     "root not an object",
			body:     `[1]`,
			wantErrs: []string{"Invalid JSON payload received. Expected an object, got Starting an array on a scalar field."},
		},
		{
			name:     "too deep",
			body:     `{"contents":[{"parts":[{"functionCall":{"name":"f","args":` + deep + `}}]}]}`,
			wantErrs: []string{"Invalid JSON payload received. Unexpected token: nesting deeper than 100 levels."},
		},
		{
			name: "empty body",
			body: ``,
			want: &wireRequest{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got wireRequest
			errs := decodeRequest([]byte(tt.body), &got)
			if diff := cmp.Diff(tt.wantErrs, errs); diff != "" {
				t.Errorf("decodeRequest(%s) errors mismatch (-want +got):\n%s", tt.body, diff)
			}
			if tt.want != nil {
				if diff := cmp.Diff(tt.want, &got, cmp.AllowUnexported(wirePart{}), cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("decodeRequest(%s) mismatch (-want +got):\n%s", tt.body, diff)
				}
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func TestSnakeCase(t *testing.T) {
	tests := map[string]string{
		"contents":             "contents",
		"functionDeclarations": "function_declarations",
		"parametersJsonSchema": "parameters_json_schema",
		"fileUri":              "file_uri",
		"required[0]":          "required[0]",
	}
	for in, want := range tests {
		if got := snakeCase(in); got != want {
			t.Errorf("snakeCase(%q) = %q, want %q", in, got, want)
		}
	}
}
