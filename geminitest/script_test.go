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

func TestRequestHelpers(t *testing.T) {
	fr1 := &FunctionResponse{ID: "1", Name: "a"}
	fr2 := &FunctionResponse{ID: "2", Name: "b"}
	da, db := &FunctionDeclaration{Name: "a"}, &FunctionDeclaration{Name: "b"}
	req := &Request{
		Contents: []*Content{
			{Role: "user", Parts: []*Part{{Text: "hi"}}},
			{Role: "model", Parts: []*Part{{FunctionCall: &FunctionCall{ID: "1", Name: "a"}}}},
			{Role: "user", Parts: []*Part{{FunctionResponse: fr1}, {Text: "note"}, {FunctionResponse: fr2}}},
		},
		Tools: []*Tool{{FunctionDeclarations: []*FunctionDeclaration{da}}, {GoogleSearch: map[string]any{}}, nil,
			{FunctionDeclarations: []*FunctionDeclaration{nil, db}}},
	}
	if got := req.LastContent(); got != req.Contents[2] {
		t.Errorf("LastContent() = %v, want the third content", got)
	}
	if diff := cmp.Diff([]*FunctionResponse{fr1, fr2}, req.FunctionResponses()); diff != "" {
		t.Errorf("FunctionResponses() mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]*FunctionDeclaration{da, db}, req.Declarations()); diff != "" {
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
