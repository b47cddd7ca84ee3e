package geminitest

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"
)

func TestRequestHelpers(t *testing.T) {
	fr1 := &genai.FunctionResponse{ID: "1", Name: "a"}
	fr2 := &genai.FunctionResponse{ID: "2", Name: "b"}
	da, db := &genai.FunctionDeclaration{Name: "a"}, &genai.FunctionDeclaration{Name: "b"}
	req := &Request{
		Contents: []*genai.Content{
			{Role: "user", Parts: []*genai.Part{{Text: "hi"}}},
			{Role: "model", Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{ID: "1", Name: "a"}}}},
			{Role: "user", Parts: []*genai.Part{{FunctionResponse: fr1}, {Text: "note"}, nil, {FunctionResponse: fr2}}},
		},
		Config: &genai.GenerateContentConfig{Tools: []*genai.Tool{
			{FunctionDeclarations: []*genai.FunctionDeclaration{da}}, {GoogleSearch: &genai.GoogleSearch{}}, nil,
			{FunctionDeclarations: []*genai.FunctionDeclaration{nil, db}},
		}},
	}
	if got := req.LastContent(); got != req.Contents[2] {
		t.Errorf("LastContent() = %v, want the third content", got)
	}
	if diff := cmp.Diff([]*genai.FunctionResponse{fr1, fr2}, req.FunctionResponses()); diff != "" {
		t.Errorf("FunctionResponses() mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]*genai.FunctionDeclaration{da, db}, req.Declarations()); diff != "" {
		t.Errorf("Declarations() mismatch (-want +got):\n%s", diff)
	}
	if got := req.Declaration("b"); got != db {
		t.Errorf("Declaration(b) = %v, want %v", got, db)
	}
	if got := req.Declaration("c"); got != nil {
		t.Errorf("Declaration(c) = %v, want nil", got)
	}
	empty := &Request{}
	if empty.LastContent() != nil || empty.FunctionResponses() != nil || empty.Declarations() != nil {
		t.Errorf("helpers on an empty request = %v, %v, %v, want nil", empty.LastContent(), empty.FunctionResponses(), empty.Declarations())
	}
}

// TestSetBody decodes a body that uses every kind of field strictly, then
// checks the genai view: the nested generationConfig is flattened into
// Config, snake_case keys and lower-case types arrive as genai spells them,
// durations and base64 are decoded.
func TestSetBody(t *testing.T) {
	body := `{
	  "contents": [
	    {"role": "user", "parts": [
	      {"text": "look", "video_metadata": {"startOffset": "1.5s", "endOffset": "3s"}},
	      {"inlineData": {"mimeType": "image/png", "data": "AQID"}}
	    ]},
	    {"role": "model", "parts": [{"functionCall": {"id": "c1", "name": "f", "args": {"n": 2}}, "thoughtSignature": "c2ln"}]},
	    {"role": "user", "parts": [{"functionResponse": {"id": "c1", "name": "f", "response": {"ok": true},
	      "parts": [{"inlineData": {"mimeType": "text/plain", "data": "aGk="}}]}}]}
	  ],
	  "systemInstruction": {"parts": [{"text": "be brief"}]},
	  "tools": [{"function_declarations": [{"name": "f", "description": "d",
	    "parameters": {"type": "object", "properties": {"n": {"type": "INTEGER", "minimum": 1}}, "required": ["n"]}}]}],
	  "toolConfig": {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["f"]}},
	  "generationConfig": {"temperature": 0.5, "topK": 3, "maxOutputTokens": 100, "stopSequences": ["x"],
	    "thinkingConfig": {"thinkingBudget": 0}},
	  "labels": {"team": "a"}
	}`
	var wire wireRequest
	if errs := decodeRequest([]byte(body), &wire); len(errs) > 0 {
		t.Fatalf("decodeRequest: %v", errs)
	}
	var req Request
	if err := req.setBody(&wire); err != nil {
		t.Fatalf("setBody: %v", err)
	}
	three, half, budget := float32(3), float32(0.5), int32(0)
	min := 1.0
	wantContents := []*genai.Content{
		{Role: "user", Parts: []*genai.Part{
			{Text: "look", VideoMetadata: &genai.VideoMetadata{StartOffset: 1500 * time.Millisecond, EndOffset: 3 * time.Second}},
			{InlineData: &genai.Blob{MIMEType: "image/png", Data: []byte{1, 2, 3}}},
		}},
		{Role: "model", Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{ID: "c1", Name: "f", Args: map[string]any{"n": 2.0}}, ThoughtSignature: []byte("sig")}}},
		{Role: "user", Parts: []*genai.Part{{FunctionResponse: &genai.FunctionResponse{ID: "c1", Name: "f", Response: map[string]any{"ok": true},
			Parts: []*genai.FunctionResponsePart{{InlineData: &genai.FunctionResponseBlob{MIMEType: "text/plain", Data: []byte("hi")}}}}}}},
	}
	wantConfig := &genai.GenerateContentConfig{
		SystemInstruction: &genai.Content{Parts: []*genai.Part{{Text: "be brief"}}},
		Tools: []*genai.Tool{{FunctionDeclarations: []*genai.FunctionDeclaration{{Name: "f", Description: "d",
			Parameters: &genai.Schema{Type: genai.TypeObject, Required: []string{"n"},
				Properties: map[string]*genai.Schema{"n": {Type: genai.TypeInteger, Minimum: &min}}}}}}},
		ToolConfig: &genai.ToolConfig{FunctionCallingConfig: &genai.FunctionCallingConfig{
			Mode: genai.FunctionCallingConfigModeAny, AllowedFunctionNames: []string{"f"}}},
		Temperature: &half, TopK: &three, MaxOutputTokens: 100, StopSequences: []string{"x"},
		ThinkingConfig: &genai.ThinkingConfig{ThinkingBudget: &budget},
		Labels:         map[string]string{"team": "a"},
	}
	if diff := cmp.Diff(wantContents, req.Contents); diff != "" {
		t.Errorf("Contents mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantConfig, req.Config); diff != "" {
		t.Errorf("Config mismatch (-want +got):\n%s", diff)
	}

	var emptyReq Request
	if err := emptyReq.setBody(&wireRequest{}); err != nil || emptyReq.Config == nil || emptyReq.Contents != nil {
		t.Errorf("setBody(empty) = %v, Config %v, Contents %v; want no error, an empty Config and no contents", err, emptyReq.Config, emptyReq.Contents)
	}
}
