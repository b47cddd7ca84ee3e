package stream

import (
	"slices"
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
	if diff := cmp.Diff(wantPieces, slices.Collect(Pieces(chunk("", &genai.Part{Text: "He"}, call, &genai.Part{Text: "llo"}, sigOnly)))); diff != "" {
		t.Errorf("Pieces() mismatch (-want +got):\n%s", diff)
	}
	for _, empty := range []*genai.GenerateContentResponse{nil, {}, {Candidates: []*genai.Candidate{nil}}, {Candidates: []*genai.Candidate{{}}}} {
		if got := slices.Collect(Pieces(empty)); got != nil {
			t.Errorf("Pieces(%+v) = %v, want none", empty, got)
		}
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

// FuzzAccumulator: chunks built from the input, with text, thought and
// call parts, nil parts and empty chunks, assemble to every non-nil part in
// order, and Pieces shows exactly the non-empty texts.
func FuzzAccumulator(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 255, 4, 5})
	f.Add([]byte{})
	f.Add([]byte{3, 3, 3, 7, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		var a Accumulator
		var want []*genai.Part
		var chunk *genai.GenerateContentResponse
		var texts []Piece // the non-empty texts of chunk
		flush := func() {
			if err := a.Add(chunk); err != nil {
				t.Fatalf("Add() = %v", err)
			}
			if diff := cmp.Diff(texts, slices.Collect(Pieces(chunk))); diff != "" {
				t.Fatalf("Pieces() mismatch (-want +got):\n%s", diff)
			}
			for p := range Pieces(chunk) { // a caller may stop at any piece
				if p != texts[0] {
					t.Fatalf("first piece = %+v, want %+v", p, texts[0])
				}
				break
			}
			chunk, texts = nil, nil
		}
		for i, b := range data {
			if chunk == nil {
				chunk = &genai.GenerateContentResponse{Candidates: []*genai.Candidate{{Content: &genai.Content{}}}}
			}
			var p *genai.Part
			switch b % 6 {
			case 0:
				flush()
				continue
			case 1:
				p = &genai.Part{Text: string(rune('a' + i%26))}
				texts = append(texts, Piece{Text: p.Text})
			case 2:
				p = &genai.Part{Text: "t", Thought: true}
				texts = append(texts, Piece{Text: "t", Thought: true})
			case 3:
				p = &genai.Part{FunctionCall: &genai.FunctionCall{Name: "f", ID: string(rune('0' + i%10))}, ThoughtSignature: []byte{b}}
			case 4:
				p = &genai.Part{ThoughtSignature: []byte{b}}
			case 5:
				chunk.Candidates[0].Content.Parts = append(chunk.Candidates[0].Content.Parts, nil)
				continue
			}
			chunk.Candidates[0].Content.Parts = append(chunk.Candidates[0].Content.Parts, p)
			want = append(want, p)
		}
		if chunk != nil {
			flush()
		}
		resp := a.Response()
		var got []*genai.Part
		if resp != nil && len(resp.Candidates) > 0 && resp.Candidates[0].Content != nil {
			got = resp.Candidates[0].Content.Parts
		}
		if len(got) != len(want) {
			t.Fatalf("assembled %d parts, want %d", len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("part %d is not the part sent", i)
			}
		}
	})
}
