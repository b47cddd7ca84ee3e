package geminitest

import (
	"strings"
	"testing"
)

func TestDecodeLive(t *testing.T) {
	tests := []struct {
		name, body, want string // want: part of the first error; "" means valid
	}{
		{"setup", `{"setup": {"model": "models/m", "tools": [{"functionDeclarations": [{"name": "f"}]}]}}`, ""},
		{"content", `{"clientContent": {"turns": [{"role": "user", "parts": [{"text": "hi"}]}], "turnComplete": true}}`, ""},
		{"tool response", `{"toolResponse": {"functionResponses": [{"id": "a", "name": "f", "response": {"output": 1}, "scheduling": "INTERRUPT"}]}}`, ""},
		{"realtime text", `{"realtimeInput": {"text": "hi"}}`, ""},
		{"unknown field", `{"setup": {"model": "models/m", "voice": 1}}`, `Unknown name "voice"`},
		{"two fields", `{"setup": {"model": "models/m"}, "clientContent": {}}`, "exactly one"},
		{"none", `{}`, "exactly one"},
		{"bad scheduling", `{"toolResponse": {"functionResponses": [{"id": "a", "scheduling": "LATER"}]}}`, "LATER"},
		{"not json", `{"setup": `, "Invalid JSON payload"},
		{"array", `[]`, "Expected an object"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var m wireLiveMessage
			errs := decodeLive([]byte(tc.body), &m)
			switch {
			case tc.want == "" && len(errs) > 0:
				t.Errorf("decodeLive(%s) = %q, want valid", tc.body, errs)
			case tc.want != "" && (len(errs) == 0 || !strings.Contains(errs[0], tc.want)):
				t.Errorf("decodeLive(%s) = %q, want an error with %q", tc.body, errs, tc.want)
			}
		})
	}
}

// FuzzDecodeLive: any message decodes without a panic, and an accepted one
// sets exactly one field.
func FuzzDecodeLive(f *testing.F) {
	for _, s := range []string{
		`{"setup": {"model": "models/m", "tools": [{"functionDeclarations": [{"name": "f", "behavior": "NON_BLOCKING"}]}]}}`,
		`{"clientContent": {"turns": [{"role": "user", "parts": [{"text": "hi"}]}], "turnComplete": true}}`,
		`{"toolResponse": {"functionResponses": [{"id": "a", "name": "f", "response": {"output": 1}}]}}`,
		`{"realtimeInput": {"text": "hi", "audio": {"data": "AAAA"}}}`,
		`{"setup": {}, "toolResponse": {}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var m wireLiveMessage
		if errs := decodeLive(body, &m); len(errs) == 0 {
			n := 0
			for _, set := range []bool{m.Setup != nil, m.ClientContent != nil, m.RealtimeInput != nil, m.ToolResponse != nil} {
				if set {
					n++
				}
			}
			if n != 1 {
				t.Errorf("decodeLive(%q) accepted a message with %d fields set", body, n)
			}
		}
	})
}
