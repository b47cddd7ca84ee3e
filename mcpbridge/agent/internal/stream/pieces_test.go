package stream

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/mcpbridge/agent/internal/streamargs"
)

func fcPart(fc *genai.FunctionCall) *genai.Part { return &genai.Part{FunctionCall: fc} }

func sp(path, s string, more bool) *genai.PartialArg {
	p := &genai.PartialArg{JsonPath: path, StringValue: s}
	if more {
		p.WillContinue = genai.Ptr(true)
	}
	return p
}

// TestAccumulatorStreamedCall: the chunks of calls streamed in pieces, as
// Vertex AI sends them (the name first with willContinue, pieces without a
// name, an empty functionCall at the end), become the calls they make, in
// place of their first chunk; text around them and plain calls stay as
// sent.
func TestAccumulatorStreamedCall(t *testing.T) {
	yes := genai.Ptr(true)
	first := &genai.Part{FunctionCall: &genai.FunctionCall{Name: "get_weather", WillContinue: yes}, ThoughtSignature: []byte("sig")}
	plain := fcPart(&genai.FunctionCall{Name: "now", ID: "c9"})
	var a Accumulator
	for _, c := range []*genai.GenerateContentResponse{
		chunk("", &genai.Part{Text: "Let me look."}, first),
		chunk("", fcPart(&genai.FunctionCall{WillContinue: yes, PartialArgs: []*genai.PartialArg{sp("$.location", "Bos", true)}})),
		chunk("", fcPart(&genai.FunctionCall{Name: "get_weather", WillContinue: yes, PartialArgs: []*genai.PartialArg{
			sp("$.location", "ton", false), {JsonPath: "$.days[0]", NumberValue: genai.Ptr(1.0)}, {JsonPath: "$.opts.metric", BoolValue: yes},
		}})),
		chunk("", fcPart(&genai.FunctionCall{})),
		// A call in one piece, then its end marker, then a plain call.
		chunk("", fcPart(&genai.FunctionCall{Name: "note", ID: "c2", PartialArgs: []*genai.PartialArg{sp("$.text", "hi", false)}})),
		chunk("", fcPart(&genai.FunctionCall{}), plain),
		chunk(genai.FinishReasonStop, &genai.Part{Text: "."}),
	} {
		if err := a.Add(c); err != nil {
			t.Fatalf("Add() = %v", err)
		}
	}
	if err := a.Err(); err != nil {
		t.Fatalf("Err() = %v", err)
	}
	want := []*genai.Part{
		{Text: "Let me look."},
		{FunctionCall: &genai.FunctionCall{Name: "get_weather", Args: map[string]any{
			"location": "Boston", "days": []any{1.0}, "opts": map[string]any{"metric": true},
		}}, ThoughtSignature: []byte("sig")},
		{FunctionCall: &genai.FunctionCall{Name: "note", ID: "c2", Args: map[string]any{"text": "hi"}}},
		plain,
		{Text: "."},
	}
	got := a.Response().Candidates[0].Content.Parts
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("parts mismatch (-want +got):\n%s", diff)
	}
	if got[3] != plain {
		t.Error("a plain call was copied")
	}
	if first.FunctionCall.Args != nil || first.FunctionCall.WillContinue != yes {
		t.Error("the chunk's own part was modified")
	}
}

func TestAccumulatorStreamedCallErrors(t *testing.T) {
	yes := genai.Ptr(true)
	start := fcPart(&genai.FunctionCall{Name: "f", ID: "c1", WillContinue: yes})
	tests := []struct {
		name  string
		parts []*genai.Part
		also  error
		says  string
	}{
		{"no name", []*genai.Part{fcPart(&genai.FunctionCall{WillContinue: yes})}, nil, "without a name"},
		{"args and pieces", []*genai.Part{fcPart(&genai.FunctionCall{Name: "f", Args: map[string]any{"a": 1.0}, PartialArgs: []*genai.PartialArg{sp("$.b", "x", false)}})}, nil, "both args and partialArgs"},
		{"another call begins", []*genai.Part{start, fcPart(&genai.FunctionCall{Name: "g", Args: map[string]any{}})}, nil, `a call to "g" began`},
		{"another id", []*genai.Part{start, fcPart(&genai.FunctionCall{ID: "c2", WillContinue: yes})}, nil, `id "c2" began`},
		{"args in a piece", []*genai.Part{start, fcPart(&genai.FunctionCall{Args: map[string]any{"a": 1.0}})}, nil, "a piece carries args"},
		{"malformed path", []*genai.Part{start, fcPart(&genai.FunctionCall{PartialArgs: []*genai.PartialArg{sp("$.a[", "x", false)}})}, streamargs.ErrMalformed, `function call "f" (id "c1")`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var a Accumulator
			err := a.Add(chunk("", tt.parts...))
			if !errors.Is(err, ErrPartialCall) || tt.also != nil && !errors.Is(err, tt.also) || !strings.Contains(err.Error(), tt.says) {
				t.Fatalf("Add() = %v, want ErrPartialCall saying %q", err, tt.says)
			}
			if a.Err() != err || a.Add(chunk("", &genai.Part{Text: "x"})) != err {
				t.Error("the error is not kept")
			}
		})
	}
	t.Run("too large", func(t *testing.T) {
		var a Accumulator
		a.SetLimits(&streamargs.Limits{MaxBytes: 4})
		err := a.Add(chunk("", start, fcPart(&genai.FunctionCall{PartialArgs: []*genai.PartialArg{sp("$.a", "12345", false)}})))
		if !errors.Is(err, ErrPartialCall) || !errors.Is(err, streamargs.ErrTooLarge) {
			t.Errorf("Add() = %v, want ErrTooLarge", err)
		}
	})
	t.Run("stream ends mid call", func(t *testing.T) {
		var a Accumulator
		if err := a.Add(chunk("", start)); err != nil {
			t.Fatal(err)
		}
		if err := a.Err(); !errors.Is(err, ErrPartialCall) || !strings.Contains(err.Error(), "ended before its last piece") {
			t.Errorf("Err() = %v, want the stream ended mid call", err)
		}
	})
	t.Run("the caller's sentinel", func(t *testing.T) {
		mine := errors.New("mine")
		a := Accumulator{Partial: mine}
		err := a.Add(chunk("", fcPart(&genai.FunctionCall{WillContinue: genai.Ptr(true), PartialArgs: []*genai.PartialArg{sp("$.a", "x", false)}})))
		if !errors.Is(err, mine) || errors.Is(err, ErrPartialCall) || !strings.Contains(err.Error(), "mine: a function call streamed in pieces begins without a name") {
			t.Errorf("Add() = %v, want the caller's sentinel in place of ErrPartialCall", err)
		}
	})
}

// FuzzAccumulatorPieces: any sequence of function-call parts, streamed or
// not, never panics; when it assembles, no call of the answer is a piece.
func FuzzAccumulatorPieces(f *testing.F) {
	f.Add([]byte{1, 2, 3, 0, 4})
	f.Add([]byte{1, 5, 2, 6, 0, 3})
	f.Fuzz(func(t *testing.T, data []byte) {
		var a Accumulator
		a.SetLimits(&streamargs.Limits{MaxDepth: 4, MaxBytes: 256, MaxPieces: 64})
		yes := genai.Ptr(true)
		paths := []string{"$.a", "$.a[0]", "$.b.c", "$['x']", "$.a[1]", "$..", "$"}
		names := []string{"", "f", "g"}
		for i := 0; i+1 < len(data); i += 2 {
			b, c := data[i], data[i+1]
			fc := &genai.FunctionCall{Name: names[int(c)%len(names)]}
			if b&1 != 0 {
				fc.WillContinue = yes
			}
			if b&2 != 0 {
				fc.PartialArgs = []*genai.PartialArg{sp(paths[int(c>>2)%len(paths)], string(rune('a'+c%26)), b&4 != 0)}
			}
			if b&8 != 0 {
				fc.Args = map[string]any{"k": 1.0}
			}
			if b&16 != 0 {
				fc.ID = "id"
			}
			if a.Add(chunk("", fcPart(fc))) != nil {
				return
			}
		}
		if a.Err() != nil {
			return
		}
		resp := a.Response()
		if resp == nil || resp.Candidates[0].Content == nil {
			return
		}
		for _, p := range resp.Candidates[0].Content.Parts {
			if fc := p.FunctionCall; fc != nil && (continues(fc) || len(fc.PartialArgs) > 0) {
				t.Fatalf("a piece is left in the answer: %+v", fc)
			}
		}
	})
}
