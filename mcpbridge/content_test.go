package mcpbridge

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpgenai/bridge/internal/golden"
	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/mcpbridge/internal/result"
)

// goldenContent compares got with testdata/content/name.golden, or rewrites
// it under -update.
func goldenContent(t *testing.T, name, got string) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", "content", name+".golden"), []byte(got))
}

// responseJSON marshals fr with encoding/json and decodes it back, so that
// it can be compared with an expected JSON text regardless of field order.
func responseJSON(t *testing.T, fr *genai.FunctionResponse) any {
	t.Helper()
	b, err := json.Marshal(fr)
	if err != nil {
		t.Fatalf("json.Marshal(FunctionResponse) = %v", err)
	}
	return decodeJSON(t, string(b))
}

func decodeJSON(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("decoding %s: %v", s, err)
	}
	return v
}

func text(s string) *genai.Part { return &genai.Part{Text: s} }

func blob(mime string, data ...byte) *genai.Part {
	return &genai.Part{InlineData: &genai.Blob{MIMEType: mime, Data: data}}
}

var testOpts = convertOptions{Name: "files__read", ID: "call-1", Server: "files", Tool: "read"}

// TestConvertResult has one row per kind of content block (text, image,
// audio, resource, resource link, unknown) and per edge case; each row's
// ReturnDisplay is in testdata/content/<name>.golden.
func TestConvertResult(t *testing.T) {
	tests := []struct {
		name     string
		raw      string
		wantLLM  []*genai.Part
		wantResp string // FunctionResponse as JSON
		wantErr  string // substring of CallResult.Err; "" = no error
	}{{
		name:     "text",
		raw:      `{"content":[{"type":"text","text":"hello"}]}`,
		wantLLM:  []*genai.Part{text("hello")},
		wantResp: `{"id":"call-1","name":"files__read","response":{"output":"hello"}}`,
	}, {
		name:     "text_json",
		raw:      `{"content":[{"type":"text","text":"{\"b\":[true,null],\"a\":1.50}"}]}`,
		wantLLM:  []*genai.Part{text(`{"b":[true,null],"a":1.50}`)},
		wantResp: `{"id":"call-1","name":"files__read","response":{"output":"{\"b\":[true,null],\"a\":1.50}"}}`,
	}, {
		name:     "text_json_array",
		raw:      `{"content":[{"type":"text","text":" [1, 2] "}]}`,
		wantLLM:  []*genai.Part{text(" [1, 2] ")},
		wantResp: `{"id":"call-1","name":"files__read","response":{"output":" [1, 2] "}}`,
	}, {
		name:     "text_json_scalar",
		raw:      `{"content":[{"type":"text","text":"42"}]}`,
		wantLLM:  []*genai.Part{text("42")},
		wantResp: `{"id":"call-1","name":"files__read","response":{"output":"42"}}`,
	}, {
		name:     "text_not_json",
		raw:      `{"content":[{"type":"text","text":"{not json"}]}`,
		wantLLM:  []*genai.Part{text("{not json")},
		wantResp: `{"id":"call-1","name":"files__read","response":{"output":"{not json"}}`,
	}, {
		name:     "text_not_a_string",
		raw:      `{"content":[{"type":"text","text":123}]}`,
		wantLLM:  []*genai.Part{text("123")},
		wantResp: `{"id":"call-1","name":"files__read","response":{"output":"123"}}`,
	}, {
		name:     "text_missing",
		raw:      `{"content":[{"type":"text"}]}`,
		wantLLM:  []*genai.Part{text("")},
		wantResp: `{"id":"call-1","name":"files__read","response":{"output":""}}`,
	}, {
		name:    "image",
		raw:     `{"content":[{"type":"image","mimeType":"image/png","data":"AQID"}]}`,
		wantLLM: []*genai.Part{blob("image/png", 1, 2, 3)},
		wantResp: `{"id":"call-1","name":"files__read","response":{"output":""},
			"parts":[{"inlineData":{"mimeType":"image/png","data":"AQID"}}]}`,
	}, {
		name:    "audio",
		raw:     `{"content":[{"type":"audio","mimeType":"audio/mp3","data":"AQID"}]}`,
		wantLLM: []*genai.Part{blob("audio/mp3", 1, 2, 3)},
		wantResp: `{"id":"call-1","name":"files__read","response":{"output":""},
			"parts":[{"inlineData":{"mimeType":"audio/mp3","data":"AQID"}}]}`,
	}, {
		name:    "image_missing_mime",
		raw:     `{"content":[{"type":"image","data":"AQID"}]}`,
		wantLLM: []*genai.Part{blob("application/octet-stream", 1, 2, 3)},
		wantResp: `{"id":"call-1","name":"files__read","response":{"output":""},
			"parts":[{"inlineData":{"mimeType":"application/octet-stream","data":"AQID"}}]}`,
	}, {
		name:    "image_base64_variants", // unpadded, URL alphabet, wrapped lines
		raw:     `{"content":[{"type":"image","mimeType":"image/gif","data":"AQIDBA"},{"type":"image","mimeType":"image/gif","data":"-_8="},{"type":"image","mimeType":"image/gif","data":"AQID\nBA==\n"}]}`,
		wantLLM: []*genai.Part{blob("image/gif", 1, 2, 3, 4), blob("image/gif", 0xfb, 0xff), blob("image/gif", 1, 2, 3, 4)},
		wantResp: `{"id":"call-1","name":"files__read","response":{"output":""},"parts":[
			{"inlineData":{"mimeType":"image/gif","data":"AQIDBA=="}},
			{"inlineData":{"mimeType":"image/gif","data":"+/8="}},
			{"inlineData":{"mimeType":"image/gif","data":"AQIDBA=="}}]}`,
	}, {
		name:     "image_invalid_base64",
		raw:      `{"content":[{"type":"image","mimeType":"image/png","data":"not base64!"}]}`,
		wantLLM:  []*genai.Part{text("[image image/png dropped: data is not valid base64]")},
		wantResp: `{"id":"call-1","name":"files__read","response":{"output":"[image image/png dropped: data is not valid base64]"}}`,
	}, {
		name:     "image_empty_data",
		raw:      `{"content":[{"type":"image","mimeType":"image/png","data":""}]}`,
		wantLLM:  []*genai.Part{text("[image image/png dropped: no data]")},
		wantResp: `{"id":"call-1","name":"files__read","response":{"output":"[image image/png dropped: no data]"}}`,
	}, {
		name:     "resource_text",
		raw:      `{"content":[{"type":"resource","resource":{"uri":"file:///a.txt","mimeType":"text/plain","text":"line 1\nline 2"}}]}`,
		wantLLM:  []*genai.Part{text("line 1\nline 2")},
		wantResp: `{"id":"call-1","name":"files__read","response":{"output":"line 1\nline 2"}}`,
	}, {
		name:    "resource_blob",
		raw:     `{"content":[{"type":"resource","resource":{"uri":"file:///a.pdf","mimeType":"application/pdf","blob":"JVBERg=="}}]}`,
		wantLLM: []*genai.Part{blob("application/pdf", '%', 'P', 'D', 'F')},
		wantResp: `{"id":"call-1","name":"files__read","response":{"output":""},
			"parts":[{"inlineData":{"mimeType":"application/pdf","data":"JVBERg=="}}]}`,
	}, {
		name:    "resource_blob_missing_mime",
		raw:     `{"content":[{"type":"resource","resource":{"uri":"file:///a.bin","blob":"AQID"}}]}`,
		wantLLM: []*genai.Part{blob("application/octet-stream", 1, 2, 3)},
		wantResp: `{"id":"call-1","name":"files__read","response":{"output":""},
			"parts":[{"inlineData":{"mimeType":"application/octet-stream","data":"AQID"}}]}`,
	}, {
		name:     "resource_blob_invalid",
		raw:      `{"content":[{"type":"resource","resource":{"uri":"file:///a.bin","mimeType":"image/png","blob":"@@"}}]}`,
		wantLLM:  []*genai.Part{text(`[embedded resource "file:///a.bin" (image/png) dropped: data is not valid base64]`)},
		wantResp: `{"id":"call-1","name":"files__read","response":{"output":"[embedded resource \"file:///a.bin\" (image/png) dropped: data is not valid base64]"}}`,
	}, {
		name:     "resource_without_contents",
		raw:      `{"content":[{"type":"resource","resource":{"uri":"file:///x"}},{"type":"resource"}]}`,
		wantLLM:  []*genai.Part{text(`[embedded resource "file:///x" dropped: it has neither text nor blob]`), text(`[embedded resource "" dropped: it has neither text nor blob]`)},
		wantResp: `{"id":"call-1","name":"files__read","response":{"output":"[embedded resource \"file:///x\" dropped: it has neither text nor blob]\n[embedded resource \"\" dropped: it has neither text nor blob]"}}`,
	}, {
		name:     "resource_link",
		raw:      `{"content":[{"type":"resource_link","uri":"file:///src/main.go","name":"main.go","title":"Main","mimeType":"text/x-go"}]}`,
		wantLLM:  []*genai.Part{text("Resource Link: main.go at file:///src/main.go")},
		wantResp: `{"id":"call-1","name":"files__read","response":{"output":"Resource Link: main.go at file:///src/main.go"}}`,
	}, {
		name:     "resource_link_without_name",
		raw:      `{"content":[{"type":"resource_link","uri":"file:///a","title":"A file"},{"type":"resource_link","uri":"file:///b"}]}`,
		wantLLM:  []*genai.Part{text("Resource Link: A file at file:///a"), text("Resource Link: file:///b at file:///b")},
		wantResp: `{"id":"call-1","name":"files__read","response":{"output":"Resource Link: A file at file:///a\nResource Link: file:///b at file:///b"}}`,
	}, {
		name:     "structured_only",
		raw:      `{"content":[],"structuredContent":{"unit":"C","temp":21.50,"big":12345678901234567890}}`,
		wantLLM:  nil,
		wantResp: `{"id":"call-1","name":"files__read","response":{"output":{"unit":"C","temp":21.50,"big":12345678901234567890}}}`,
	}, {
		name:     "structured_with_same_text",
		raw:      `{"content":[{"type":"text","text":"{\"temp\": 21.5, \"unit\": \"C\"}"}],"structuredContent":{"unit":"C","temp":21.5}}`,
		wantLLM:  []*genai.Part{text(`{"temp": 21.5, "unit": "C"}`)},
		wantResp: `{"id":"call-1","name":"files__read","response":{"output":{"unit":"C","temp":21.5}}}`,
	}, {
		name:     "structured_with_other_text",
		raw:      `{"content":[{"type":"text","text":"Sunny"}],"structuredContent":{"temp":21.5}}`,
		wantLLM:  []*genai.Part{text("Sunny")},
		wantResp: `{"id":"call-1","name":"files__read","response":{"output":{"text":"Sunny","structuredContent":{"temp":21.5}}}}`,
	}, {
		name:     "structured_not_object",
		raw:      `{"content":[],"structuredContent":[1,"two"]}`,
		wantResp: `{"id":"call-1","name":"files__read","response":{"output":[1,"two"]}}`,
	}, {
		name:     "structured_null",
		raw:      `{"content":[{"type":"text","text":"ok"}],"structuredContent":null}`,
		wantLLM:  []*genai.Part{text("ok")},
		wantResp: `{"id":"call-1","name":"files__read","response":{"output":"ok"}}`,
	}, {
		name: "structured_refs",
		raw: `{"structuredContent":{"$ref":"#/a","_$ref":1,"list":[{"$ref":"x"},[{"deep":{"$ref":"y"}}]],
			"ref":"$ref","x$ref":0}}`,
		wantResp: `{"id":"call-1","name":"files__read","response":{"output":{"_$ref":"#/a","__$ref":1,
			"list":[{"_$ref":"x"},[{"deep":{"_$ref":"y"}}]],"ref":"$ref","x$ref":0}}}`,
	}, {
		name:     "is_error",
		raw:      `{"content":[{"type":"text","text":"ENOENT: no such file"}],"isError":true}`,
		wantLLM:  []*genai.Part{text("ENOENT: no such file")},
		wantResp: `{"id":"call-1","name":"files__read","response":{"error":"ENOENT: no such file"}}`,
		wantErr:  `mcp tool "read" reported an error: ENOENT: no such file`,
	}, {
		name:     "is_error_empty",
		raw:      `{"content":[],"isError":true}`,
		wantResp: `{"id":"call-1","name":"files__read","response":{"error":"mcp tool \"read\" reported an error"}}`,
		wantErr:  `mcp tool "read" reported an error`,
	}, {
		name:     "is_error_structured",
		raw:      `{"isError":true,"structuredContent":{"code":404,"$ref":"r"}}`,
		wantResp: `{"id":"call-1","name":"files__read","response":{"error":"{\"_$ref\":\"r\",\"code\":404}"}}`,
		wantErr:  `mcp tool "read" reported an error`,
	}, {
		name:    "is_error_with_image",
		raw:     `{"content":[{"type":"text","text":"render failed"},{"type":"image","mimeType":"image/png","data":"AQID"}],"isError":true}`,
		wantLLM: []*genai.Part{text("render failed"), blob("image/png", 1, 2, 3)},
		wantResp: `{"id":"call-1","name":"files__read","response":{"error":"render failed"},
			"parts":[{"inlineData":{"mimeType":"image/png","data":"AQID"}}]}`,
		wantErr: `mcp tool "read" reported an error: render failed`,
	}, {
		name:     "is_error_false",
		raw:      `{"content":[{"type":"text","text":"fine"}],"isError":false}`,
		wantLLM:  []*genai.Part{text("fine")},
		wantResp: `{"id":"call-1","name":"files__read","response":{"output":"fine"}}`,
	}, {
		name:     "is_error_not_bool",
		raw:      `{"content":[{"type":"text","text":"fine"}],"isError":"true"}`,
		wantLLM:  []*genai.Part{text("fine")},
		wantResp: `{"id":"call-1","name":"files__read","response":{"output":"fine"}}`,
	}, {
		name:     "unknown",
		raw:      `{"content":[{"type":"video","uri":"v.mp4"}]}`,
		wantLLM:  []*genai.Part{text(`[content of unknown type "video" dropped]`)},
		wantResp: `{"id":"call-1","name":"files__read","response":{"output":"[content of unknown type \"video\" dropped]"}}`,
	}, {
		name:     "unknown_malformed_blocks",
		raw:      `{"content":[{"text":"no type"},42,null,{"type":""},{"type":7}]}`,
		wantLLM:  []*genai.Part{text(`[content of unknown type "(missing)" dropped]`), text(`[content of unknown type "(number)" dropped]`), text(`[content of unknown type "(null)" dropped]`), text(`[content of unknown type "" dropped]`), text(`[content of unknown type "7" dropped]`)},
		wantResp: `{"id":"call-1","name":"files__read","response":{"output":"[content of unknown type \"(missing)\" dropped]\n[content of unknown type \"(number)\" dropped]\n[content of unknown type \"(null)\" dropped]\n[content of unknown type \"\" dropped]\n[content of unknown type \"7\" dropped]"}}`,
	}, {
		name:     "empty_content",
		raw:      `{"content":[]}`,
		wantResp: `{"id":"call-1","name":"files__read","response":{"output":""}}`,
	}, {
		name:     "no_content",
		raw:      `{"_meta":{"progressToken":1}}`,
		wantResp: `{"id":"call-1","name":"files__read","response":{"output":""}}`,
	}, {
		name: "mixed",
		raw: `{"_meta":{"x":1},"content":[{"type":"text","text":"first"},{"type":"image","mimeType":"image/jpeg","data":"AQID"},
			{"type":"resource_link","uri":"https://e.com/r","name":"r"},{"type":"video"},{"type":"text","text":"last","annotations":{"priority":1}}]}`,
		wantLLM: []*genai.Part{text("first"), blob("image/jpeg", 1, 2, 3), text("Resource Link: r at https://e.com/r"),
			text(`[content of unknown type "video" dropped]`), text("last")},
		wantResp: `{"id":"call-1","name":"files__read","parts":[{"inlineData":{"mimeType":"image/jpeg","data":"AQID"}}],
			"response":{"output":"first\nResource Link: r at https://e.com/r\n[content of unknown type \"video\" dropped]\nlast"}}`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := convertResult(json.RawMessage(tt.raw), testOpts)
			if err != nil {
				t.Fatalf("convertResult(%s) error = %v, want nil", tt.raw, err)
			}
			if r.Name != testOpts.Name || r.ID != testOpts.ID || r.Server != testOpts.Server || r.ServerTool != testOpts.Tool {
				t.Errorf("convertResult labels = %q %q %q %q, want %q %q %q %q", r.Name, r.ID, r.Server, r.ServerTool,
					testOpts.Name, testOpts.ID, testOpts.Server, testOpts.Tool)
			}
			if diff := cmp.Diff(tt.wantLLM, r.LLMContent); diff != "" {
				t.Errorf("convertResult(%s).LLMContent (-want +got):\n%s", tt.raw, diff)
			}
			if diff := cmp.Diff(decodeJSON(t, tt.wantResp), responseJSON(t, r.FunctionResponse())); diff != "" {
				t.Errorf("convertResult(%s).FunctionResponse() (-want +got):\n%s", tt.raw, diff)
			}
			gotErr := ""
			if r.Err != nil {
				gotErr = r.Err.Error()
			}
			if gotErr != tt.wantErr {
				t.Errorf("convertResult(%s).Err = %q, want %q", tt.raw, gotErr, tt.wantErr)
			}
			goldenContent(t, tt.name, r.ReturnDisplay)
		})
	}
}

// TestConvertResultNumbers checks that numbers in structured content reach
// the response exactly as the server wrote them.
func TestConvertResultNumbers(t *testing.T) {
	raw := `{"structuredContent":{"big":12345678901234567890,"f":1.50,"e":1e400}}`
	r, err := convertResult(json.RawMessage(raw), testOpts)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(r.FunctionResponse().Response)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"output":{"big":12345678901234567890,"e":1e400,"f":1.50}}`
	if string(b) != want {
		t.Errorf("Response JSON = %s, want %s", b, want)
	}
}

func TestConvertResultErrors(t *testing.T) {
	tests := []struct {
		name, raw, want string
	}{
		{"nil", "", "result is not valid JSON"},
		{"malformed", `{"content":[`, "result is not valid JSON"},
		{"trailing", `{} {}`, "result is not valid JSON"},
		{"array", `[{"type":"text"}]`, "want a JSON object, got array"},
		{"null", `null`, "want a JSON object, got null"},
		{"string", `"hello"`, "want a JSON object, got string"},
		{"number", ` 7 `, "want a JSON object, got number"},
		{"content_object", `{"content":{"type":"text","text":"x"}}`, "content: want an array, got object"},
		{"content_string", `{"content":"x"}`, "content: want an array, got string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := convertResult(json.RawMessage(tt.raw), testOpts)
			if err == nil {
				t.Fatalf("convertResult(%s) = %+v, want error containing %q", tt.raw, r, tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), `tool "read"`) {
				t.Errorf("convertResult(%s) error = %q, want it to name the tool and contain %q", tt.raw, err, tt.want)
			}
		})
	}
}

// TestConvertResultTruncates checks that the limit applies to the model's
// text (across blocks) and to the display, and leaves binary data alone.
func TestConvertResultTruncates(t *testing.T) {
	raw := `{"content":[{"type":"text","text":"0123456789"},{"type":"image","mimeType":"image/png","data":"AQID"},
		{"type":"text","text":"abcdefghij"}]}`
	opts := testOpts
	opts.TextLimit = 6
	r, err := convertResult(json.RawMessage(raw), opts)
	if err != nil {
		t.Fatal(err)
	}
	note := "[... 15 of 21 characters (15 bytes) cut from the middle ...]"
	wantLLM := []*genai.Part{text("012"), text(note), blob("image/png", 1, 2, 3), text("hij")}
	if diff := cmp.Diff(wantLLM, r.LLMContent); diff != "" {
		t.Errorf("LLMContent (-want +got):\n%s", diff)
	}
	if got, want := r.FunctionResponse().Response["output"], "012\n"+note+"\nhij"; got != want {
		t.Errorf("output = %q, want %q", got, want)
	}
	cut := "[... 4 of 10 characters (4 bytes) cut from the middle ...]"
	wantDisplay := "012\n" + cut + "\n789\n[Image: image/png]\nabc\n" + cut + "\nhij"
	if r.ReturnDisplay != wantDisplay {
		t.Errorf("ReturnDisplay = %q, want %q", r.ReturnDisplay, wantDisplay)
	}

	// Structured content over the limit becomes text.
	structured := []struct{ name, raw, want string }{
		{"alone", `{"structuredContent":{"k":"0123456789"}}`, `{"k` + "\n[... 12 of 18 characters (12 bytes) cut from the middle ...]\n" + `9"}`},
		{"with same text", `{"content":[{"type":"text","text":"{\"k\": \"0123456789\"}"}],"structuredContent":{"k":"0123456789"}}`,
			`{"k` + "\n[... 13 of 19 characters (13 bytes) cut from the middle ...]\n" + `9"}`},
		{"with other text", `{"content":[{"type":"text","text":"ok"}],"structuredContent":{"k":"0123456789"}}`,
			"ok\n[... 15 of 21 characters (15 bytes) cut from the middle ...]\n9\"}"},
		{"within the limit", `{"structuredContent":{"":1}}`, ""},
	}
	for _, tt := range structured {
		r, err := convertResult(json.RawMessage(tt.raw), opts)
		if err != nil {
			t.Fatal(err)
		}
		got := r.FunctionResponse().Response["output"]
		if tt.want == "" {
			if _, ok := got.(map[string]any); !ok {
				t.Errorf("%s: output = %#v, want the structured object", tt.name, got)
			}
			continue
		}
		if got != tt.want {
			t.Errorf("%s: convertResult(%s) output = %q, want %q", tt.name, tt.raw, got, tt.want)
		}
	}

	opts.TextLimit = -1
	big := strings.Repeat("x", 2*result.DefaultTextLimit)
	r, err = convertResult(json.RawMessage(`{"content":[{"type":"text","text":"`+big+`"}]}`), opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.LLMContent[0].Text; got != big {
		t.Errorf("with TextLimit -1, text of %d characters became %d", len(big), len(got))
	}
	opts.TextLimit = 0
	r, err = convertResult(json.RawMessage(`{"content":[{"type":"text","text":"`+big+`"}]}`), opts)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(result.JoinText(r.LLMContent)); n > result.DefaultTextLimit+100 {
		t.Errorf("with TextLimit 0, text of %d characters became %d, want about %d", len(big), n, result.DefaultTextLimit)
	}
}

// FuzzConvertResult checks that no input panics, and that every converted
// result gives a response with exactly one of output/error and no "$ref"
// key at any depth.
func FuzzConvertResult(f *testing.F) {
	for _, s := range []string{
		`{"content":[{"type":"text","text":"hi"}]}`,
		`{"content":[{"type":"image","mimeType":"image/png","data":"AQID"}],"isError":true}`,
		`{"content":[{"type":"resource","resource":{"uri":"u","blob":"AQ=="}}]}`,
		`{"content":[{"type":"resource_link","uri":"u","name":"n"},{"type":"x"}]}`,
		`{"structuredContent":{"$ref":{"_$ref":[{"$ref":1}]}},"content":[{"type":"text","text":"{}"}]}`,
		`{"isError":true,"structuredContent":{"$ref":"x"}}`,
		`[]`, `null`, `{"content":7}`, `{`,
	} {
		f.Add([]byte(s), 0)
	}
	f.Fuzz(func(t *testing.T, raw []byte, limit int) {
		opts := testOpts
		opts.TextLimit = limit % 1000
		r, err := convertResult(raw, opts)
		if err != nil {
			return
		}
		fr := r.FunctionResponse()
		_, hasOutput := fr.Response["output"]
		_, hasError := fr.Response["error"]
		if hasOutput == hasError || len(fr.Response) != 1 {
			t.Fatalf("convertResult(%q).FunctionResponse().Response = %v, want exactly one of output/error", raw, fr.Response)
		}
		if fr.ID != opts.ID {
			t.Fatalf("FunctionResponse().ID = %q, want %q", fr.ID, opts.ID)
		}
		b, err := json.Marshal(fr)
		if err != nil {
			t.Fatalf("json.Marshal(FunctionResponse) = %v", err)
		}
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatal(err)
		}
		if path, ok := findRefKey(v, "$"); ok {
			t.Fatalf("convertResult(%q) response has a $ref key at %s: %s", raw, path, b)
		}
		if r.ReturnDisplay == "" {
			t.Fatalf("convertResult(%q).ReturnDisplay is empty", raw)
		}
	})
}

func BenchmarkConvertResult(b *testing.B) {
	raw := json.RawMessage(`{"content":[{"type":"text","text":"` + strings.Repeat("lorem ipsum ", 20_000) +
		`"},{"type":"image","mimeType":"image/png","data":"` + strings.Repeat("AQID", 50_000) +
		`"}],"structuredContent":{"rows":[` + strings.Repeat(`{"$ref":"x","n":1},`, 1000) + `{}]}}`)
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		r, err := convertResult(raw, testOpts)
		if err != nil {
			b.Fatal(err)
		}
		r.FunctionResponse()
	}
}
