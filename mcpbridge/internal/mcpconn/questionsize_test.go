package mcpconn

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestGuardQuestion: a server's request past its method's bound becomes a
// stub saying how long it was, a stdio line staying a line; a result
// asking for input past the largest bound becomes an error response; all
// else passes unchanged.
func TestGuardQuestion(t *testing.T) {
	s := &Spec{QuestionBytes: map[string]int{"sampling/createMessage": 1000, "elicitation/create": 200}}
	pad := func(n int) string { return strings.Repeat("x", n) }
	tests := []struct{ name, in, want string }{
		{"small request", `{"jsonrpc":"2.0","id":1,"method":"roots/list"}`, ""},
		{"elicitation within", `{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"message":"` + pad(100) + `"}}`, ""},
		{"elicitation past", `{"jsonrpc":"2.0","id":7,"method":"elicitation/create","params":{"message":"` + pad(300) + `"}}` + "\n",
			`{"jsonrpc":"2.0","id":7,"method":"elicitation/create","params":{"_mcpbridgeTooLarge":%d}}` + "\n"},
		{"sampling within its own bound", `{"jsonrpc":"2.0","id":"a","method":"sampling/createMessage","params":{"x":"` + pad(900) + `"}}`, ""},
		{"sampling past", `{"params":{"x":"` + pad(2000) + `"},"method":"sampling/createMessage","id":"a","jsonrpc":"2.0"}`,
			`{"jsonrpc":"2.0","id":"a","method":"sampling/createMessage","params":{"_mcpbridgeTooLarge":%d}}`},
		{"unnamed method past the default", `{"jsonrpc":"2.0","id":2,"method":"roots/list","params":{"x":"` + pad(DefaultQuestionBytes) + `"}}`,
			`{"jsonrpc":"2.0","id":2,"method":"roots/list","params":{"_mcpbridgeTooLarge":%d}}`},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/message","params":{"x":"` + pad(DefaultQuestionBytes) + `"}}`, ""},
		{"big result", `{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"input_required ` + pad(DefaultQuestionBytes) + `"}]}}`, ""},
		{"big input_required", `{"jsonrpc":"2.0","id":3,"result":{"resultType":"input_required","inputRequests":{"q":{"x":"` + pad(DefaultQuestionBytes) + `"}}}}`,
			`{"jsonrpc":"2.0","id":3,"error":{"code":-32000,"message":"the server asked for input in a result of %d bytes, more than the client's limit of 65536"}}`},
		{"big task state asking", `{"jsonrpc":"2.0","id":4,"result":{"status":"input_required","inputRequests":{"q":{"x":"` + pad(DefaultQuestionBytes) + `"}}}}`,
			`{"jsonrpc":"2.0","id":4,"error":{"code":-32000,"message":"the server asked for input in a result of %d bytes, more than the client's limit of 65536"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := tt.in
			if tt.want != "" {
				want = fmt.Sprintf(tt.want, len(tt.in)) // the size of the message
			}
			got := guardQuestion([]byte(tt.in), s)
			if string(got) != want {
				t.Errorf("guardQuestion(%.60s…) =\n%.200s\nwant\n%.200s", tt.in, got, want)
			}
		})
	}
	if err := s.tooLarge("elicitation/create", map[string]any{TooLargeKey: 344.0}); err == nil || !strings.Contains(err.Error(), "344 bytes exceeds the client's limit of 200") {
		t.Errorf("tooLarge(stub) = %v, want it to say the size and the bound", err)
	}
	if err := s.tooLarge("elicitation/create", map[string]any{"message": "hi"}); err != nil {
		t.Errorf("tooLarge(ordinary params) = %v, want nil", err)
	}
}

// FuzzGuardQuestion: no panic on any bytes; what comes out is the message
// itself or, for a message past the bounds, valid JSON no longer than a
// stub can be; guarding twice changes nothing.
func FuzzGuardQuestion(f *testing.F) {
	s := &Spec{QuestionBytes: map[string]int{"elicitation/create": 64}}
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"message":"` + strings.Repeat("x", 100) + `"}}`))
	f.Add([]byte(`{"id":"a","result":{"resultType":"input_required","x":"` + strings.Repeat("y", DefaultQuestionBytes) + `"}}`))
	f.Add([]byte(`{"id":[1],"method":{"x":1}}`))
	f.Fuzz(func(t *testing.T, msg []byte) {
		out := guardQuestion(msg, s)
		if bytes.Equal(out, msg) {
			return
		}
		if !json.Valid(bytes.TrimSuffix(out, []byte("\n"))) || len(out) > 512+len(topLevel(msg, "id"))+len(topLevel(msg, "method")) {
			t.Fatalf("guardQuestion(%q) = %q: not a stub", msg, out)
		}
		if again := guardQuestion(out, s); !bytes.Equal(again, out) {
			t.Fatalf("guardQuestion not idempotent: %q -> %q", out, again)
		}
	})
}
