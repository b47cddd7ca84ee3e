package stream

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"
)

func chunk(finish genai.FinishReason, parts ...*genai.Part) *genai.GenerateContentResponse {
	return &genai.GenerateContentResponse{ResponseID: "r", ModelVersion: "m",
		Candidates: []*genai.Candidate{{Content: &genai.Content{Role: genai.RoleModel, Parts: parts}, FinishReason: finish}}}
}

func TestAccumulator(t *testing.T) {
	call := &genai.Part{FunctionCall: &genai.FunctionCall{ID: "c1", Name: "f", Args: map[string]any{"a": 1.0}}, ThoughtSignature: []byte("sig")}
	sigOnly := &genai.Part{ThoughtSignature: []byte("end")}
	usage := &genai.GenerateContentResponseUsageMetadata{TotalTokenCount: 9}
	var a Accumulator
	if a.Response() != nil {
		t.Fatal("Response() of no chunks is not nil")
	}
	last := chunk(genai.FinishReasonStop, sigOnly)
	last.UsageMetadata = usage
	for _, c := range []*genai.GenerateContentResponse{
		chunk("", &genai.Part{Text: "I think", Thought: true}),
		nil,
		chunk("", &genai.Part{Text: "He"}, &genai.Part{Text: "llo"}),
		chunk("", call),
		{ResponseID: "r"}, // no candidate
		last,
	} {
		if err := a.Add(c); err != nil {
			t.Fatalf("Add() = %v", err)
		}
	}
	if a.Chunks() != 5 {
		t.Errorf("Chunks() = %d, want 5 (nil is not a chunk)", a.Chunks())
	}
	want := &genai.GenerateContentResponse{
		ResponseID: "r", ModelVersion: "m", UsageMetadata: usage,
		Candidates: []*genai.Candidate{{FinishReason: genai.FinishReasonStop, Content: &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{
			{Text: "I think", Thought: true}, {Text: "He"}, {Text: "llo"}, call, sigOnly,
		}}}},
	}
	if diff := cmp.Diff(want, a.Response()); diff != "" {
		t.Errorf("Response() mismatch (-want +got):\n%s", diff)
	}
	wantPieces := []Piece{{Text: "He"}, {Text: "llo"}}
	if diff := cmp.Diff(wantPieces, Pieces(chunk("", &genai.Part{Text: "He"}, call, &genai.Part{Text: "llo"}, sigOnly))); diff != "" {
		t.Errorf("Pieces() mismatch (-want +got):\n%s", diff)
	}
	if Pieces(nil) != nil || Pieces(&genai.GenerateContentResponse{}) != nil {
		t.Error("Pieces of an empty chunk is not nil")
	}
}

func TestAccumulatorBlocked(t *testing.T) {
	var a Accumulator
	fb := &genai.GenerateContentResponsePromptFeedback{BlockReason: genai.BlockedReasonSafety}
	if err := a.Add(&genai.GenerateContentResponse{PromptFeedback: fb}); err != nil {
		t.Fatal(err)
	}
	got := a.Response()
	if got == nil || got.PromptFeedback != fb || len(got.Candidates) != 0 {
		t.Errorf("Response() = %+v, want the prompt feedback and no candidate", got)
	}
}

func TestAccumulatorPartialCall(t *testing.T) {
	for name, fc := range map[string]*genai.FunctionCall{
		"willContinue": {Name: "f", WillContinue: genai.Ptr(true)},
		"partialArgs":  {Name: "f", PartialArgs: []*genai.PartialArg{{JsonPath: "$.a", StringValue: "x"}}},
	} {
		t.Run(name, func(t *testing.T) {
			var a Accumulator
			if err := a.Add(chunk("", &genai.Part{FunctionCall: fc})); !errors.Is(err, ErrPartialCall) {
				t.Errorf("Add(%s) = %v, want ErrPartialCall", name, err)
			}
		})
	}
}
