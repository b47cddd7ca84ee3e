package geminitest

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"
)

func TestTurnHelpers(t *testing.T) {
	tests := []struct {
		name string
		turn Turn
		want Response
	}{
		{"Text", Text("hello"), Response{Parts: []*genai.Part{{Text: "hello"}}}},
		{"Calls", Calls(Call{Name: "a", Args: map[string]any{"x": 1.0}}, Call{ID: "id-2", Name: "b"}),
			Response{Parts: []*genai.Part{
				{FunctionCall: &genai.FunctionCall{Name: "a", Args: map[string]any{"x": 1.0}}},
				{FunctionCall: &genai.FunctionCall{ID: "id-2", Name: "b"}},
			}}},
		{"Fail", Fail(503, "The model is overloaded."), Response{Status: 503, Message: "The model is overloaded."}},
		{"Reply", Reply(Response{FinishReason: genai.FinishReasonMaxTokens}), Response{FinishReason: genai.FinishReasonMaxTokens}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.turn(&Request{})); diff != "" {
				t.Errorf("%s turn mismatch (-want +got):\n%s", tt.name, diff)
			}
		})
	}
}
