package sampling_test

import (
	"encoding/json"
	"errors"
	"testing"

	"google.golang.org/genai"

	isampling "github.com/mcpgenai/bridge/mcpbridge/internal/sampling"
	"github.com/mcpgenai/bridge/mcpbridge/sampling"
)

// FuzzParse: any params either fail with ErrInvalid or convert for Gemini
// with one content per message and every function call and response
// named after a declared function; parsing never panics.
func FuzzParse(f *testing.F) {
	f.Add([]byte(conversation))
	f.Add([]byte(`{"messages":[{"role":"user","content":{"type":"text","text":"hello"}}],"maxTokens":100000}`))
	f.Add([]byte(`{"messages":[{"role":"user","content":[{"type":"tool_result","toolUseId":"x","content":{"type":"resource","resource":{"uri":"a","blob":"AA","mimeType":"image/png"}}}]}],"maxTokens":1}`))
	f.Add([]byte(`{"messages":[{"role":"assistant","content":{"type":"tool_use","id":"1","name":"a b","input":null}}],"maxTokens":9e99,"tools":[{"name":"a b","inputSchema":{"anyOf":[{"type":"string"}]}}]}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		req, _, err := isampling.Parse(raw)
		if err != nil {
			if !errors.Is(err, isampling.ErrInvalid) {
				t.Fatalf("Parse(%s) = %v, want an error wrapping ErrInvalid", raw, err)
			}
			return
		}
		call, err := sampling.ToGemini(req)
		if err != nil {
			t.Fatalf("ToGemini(Parse(%s)) = %v", raw, err)
		}
		if len(call.Contents()) != len(req.Messages) {
			t.Fatalf("ToGemini(%s): %d contents for %d messages", raw, len(call.Contents()), len(req.Messages))
		}
		for _, c := range call.Contents() {
			for _, p := range c.Parts {
				if fr := p.FunctionResponse; fr != nil && !call.Declared(fr.Name) {
					t.Fatalf("ToGemini(%s): response to undeclared %q", raw, fr.Name)
				}
				if fc := p.FunctionCall; fc != nil && !call.Declared(fc.Name) {
					t.Fatalf("ToGemini(%s): call of undeclared %q", raw, fc.Name)
				}
			}
		}
	})
}

// FuzzFromGemini: any answer of the API either fails or reads back into a
// result that encodes, and whose encoding, sent back by the server as the
// last message of its next request, parses to as many blocks with the
// same thought signatures.
func FuzzFromGemini(f *testing.F) {
	f.Add([]byte(`{"candidates":[{"content":{"parts":[{"text":"a"},{"functionCall":{"name":"weather_get","args":{"city":"x","days":"3"}}}]},"finishReason":"STOP"}]}`))
	f.Add([]byte(`{"candidates":[{"content":{"parts":[{"inlineData":{"mimeType":"image/png","data":"AA=="}}]},"finishReason":"MAX_TOKENS"}],"modelVersion":"v"}`))
	f.Add([]byte(`{"promptFeedback":{"blockReason":"SAFETY"}}`))
	f.Add([]byte(`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"_1st_tool","args":{}},"thoughtSignature":"c2ln"}]}}]}`))
	req, _, err := isampling.Parse(json.RawMessage(conversation))
	if err != nil {
		f.Fatal(err)
	}
	req.Model = "m"
	call, err := sampling.ToGemini(req)
	if err != nil {
		f.Fatal(err)
	}
	var tools []json.RawMessage
	for _, t := range req.Tools {
		b, _ := json.Marshal(map[string]any{"name": t.Name, "inputSchema": t.InputSchema})
		tools = append(tools, b)
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
		out, err := isampling.Encode(req, res)
		if err != nil {
			t.Fatalf("Encode(FromGemini(%s)) = %v", raw, err)
		}
		var w struct {
			Content json.RawMessage `json:"content"`
		}
		if err := json.Unmarshal(out, &w); err != nil {
			t.Fatalf("Encode() = %s: %v", out, err)
		}
		next, _ := json.Marshal(map[string]any{
			"messages":  []any{map[string]any{"role": sampling.RoleAssistant, "content": w.Content}},
			"maxTokens": 1,
			"tools":     tools,
		})
		back, _, err := isampling.Parse(next)
		if err != nil {
			t.Fatalf("Parse(the answer %s sent back) = %v", out, err)
		}
		blocks := back.Messages[0].Content
		if len(blocks) != len(res.Content) {
			t.Fatalf("Parse(the answer %s sent back): %d blocks, want %d", out, len(blocks), len(res.Content))
		}
		for i, b := range blocks {
			if string(b.Signature) != string(res.Content[i].Signature) {
				t.Fatalf("Parse(the answer %s sent back): block %d signature %q, want %q", out, i, b.Signature, res.Content[i].Signature)
			}
		}
	})
}
