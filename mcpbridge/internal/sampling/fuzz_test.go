package sampling

import (
	"encoding/json"
	"testing"

	"google.golang.org/genai"
)

// FuzzParse: any params either fail with ErrInvalid or convert for Gemini
// with one content per message and every function response named after a
// declared function; parsing never panics.
func FuzzParse(f *testing.F) {
	f.Add([]byte(conversation))
	f.Add([]byte(hello))
	f.Add([]byte(`{"messages":[{"role":"user","content":[{"type":"tool_result","toolUseId":"x","content":{"type":"resource","resource":{"uri":"a","blob":"AA","mimeType":"image/png"}}}]}],"maxTokens":1}`))
	f.Add([]byte(`{"messages":[{"role":"assistant","content":{"type":"tool_use","id":"1","name":"a b","input":null}}],"maxTokens":9e99,"tools":[{"name":"a b","inputSchema":{"anyOf":[{"type":"string"}]}}]}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		req, _, err := Parse(raw)
		if err != nil {
			return
		}
		call, err := ToGemini(req)
		if err != nil {
			t.Fatalf("ToGemini(Parse(%s)) = %v", raw, err)
		}
		if len(call.Contents) != len(req.Messages) {
			t.Fatalf("ToGemini(%s): %d contents for %d messages", raw, len(call.Contents), len(req.Messages))
		}
		for _, c := range call.Contents {
			for _, p := range c.Parts {
				if fr := p.FunctionResponse; fr != nil && call.names[fr.Name] == "" {
					t.Fatalf("ToGemini(%s): response to undeclared %q", raw, fr.Name)
				}
				if fc := p.FunctionCall; fc != nil && call.names[fc.Name] == "" {
					t.Fatalf("ToGemini(%s): call of undeclared %q", raw, fc.Name)
				}
			}
		}
	})
}

// FuzzFromGemini: any answer of the API either fails or reads back into a
// result that encodes, and whose encoding decodes to as many blocks.
func FuzzFromGemini(f *testing.F) {
	f.Add([]byte(`{"candidates":[{"content":{"parts":[{"text":"a"},{"functionCall":{"name":"weather_get","args":{"city":"x","days":"3"}}}]},"finishReason":"STOP"}]}`))
	f.Add([]byte(`{"candidates":[{"content":{"parts":[{"inlineData":{"mimeType":"image/png","data":"AA=="}}]},"finishReason":"MAX_TOKENS"}],"modelVersion":"v"}`))
	f.Add([]byte(`{"promptFeedback":{"blockReason":"SAFETY"}}`))
	f.Add([]byte(`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"_1st_tool","args":{}},"thoughtSignature":"c2ln"}]}}]}`))
	req, _, err := Parse(json.RawMessage(conversation))
	if err != nil {
		f.Fatal(err)
	}
	req.Model = "m"
	call, err := ToGemini(req)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var resp genai.GenerateContentResponse
		if json.Unmarshal(raw, &resp) != nil {
			return
		}
		res, err := call.FromGemini(req, &resp)
		if err != nil {
			return
		}
		out, err := Encode(req, res)
		if err != nil {
			t.Fatalf("Encode(FromGemini(%s)) = %v", raw, err)
		}
		var w struct {
			Content json.RawMessage `json:"content"`
		}
		if err := json.Unmarshal(out, &w); err != nil {
			t.Fatalf("Encode() = %s: %v", out, err)
		}
		blocks, err := decodeBlocks(w.Content, true)
		if err != nil || len(blocks) != len(res.Content) {
			t.Fatalf("decoding Encode() = %s: %d blocks, %v; want %d", out, len(blocks), err, len(res.Content))
		}
		for i, b := range blocks {
			if string(b.Signature) != string(res.Content[i].Signature) {
				t.Fatalf("decoding Encode() = %s: block %d signature %q, want %q", out, i, b.Signature, res.Content[i].Signature)
			}
		}
	})
}
