package geminitest

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"
)

// TestStreamChunks: a streamed answer arrives as the events Chunks says,
// each flushed before the next is made, the finish reason on the last.
func TestStreamChunks(t *testing.T) {
	ctx := context.Background()
	got := make(chan string, 3)
	srv := New(t, nil, Reply(Response{
		Parts:  []*genai.Part{{Text: "a"}, {Text: "b"}, {Text: "c"}},
		Chunks: []int{1, 2},
		BeforeChunk: func(i int) {
			if i == 1 {
				if s := <-got; s != "a" { // the first event reached the client already
					t.Errorf("before event 1 the client had %q, want \"a\"", s)
				}
			}
		},
	}))
	var texts []string
	var finishes []genai.FinishReason
	for resp, err := range srv.Client(ctx).Models.GenerateContentStream(ctx, model, []*genai.Content{userText("hi")}, nil) {
		if err != nil {
			t.Fatalf("GenerateContentStream() error = %v", err)
		}
		got <- resp.Text()
		texts = append(texts, resp.Text())
		finishes = append(finishes, resp.Candidates[0].FinishReason)
	}
	if diff := cmp.Diff([]string{"a", "bc"}, texts); diff != "" {
		t.Errorf("events mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]genai.FinishReason{"", genai.FinishReasonStop}, finishes); diff != "" {
		t.Errorf("finish reasons mismatch (-want +got):\n%s", diff)
	}
}

func TestStreamBadChunks(t *testing.T) {
	ctx := context.Background()
	for name, chunks := range map[string][]int{"too few": {1}, "zero": {0, 2}, "too many": {3}} {
		t.Run(name, func(t *testing.T) {
			srv := New(t, nil, Reply(Response{Parts: []*genai.Part{{Text: "a"}, {Text: "b"}}, Chunks: chunks}))
			var err error
			for _, err = range srv.Client(ctx).Models.GenerateContentStream(ctx, model, []*genai.Content{userText("hi")}, nil) {
				if err != nil {
					break
				}
			}
			if err == nil || !strings.Contains(err.Error(), "Chunks") {
				t.Errorf("stream with Chunks %v = %v, want the script's error", chunks, err)
			}
			if reqs := srv.Requests(); len(reqs) != 1 || reqs[0].Rejection == "" {
				t.Errorf("Requests() = %d, want one rejected", len(reqs))
			}
		})
	}
}

// TestStreamRejects: a streamed request is checked like any other; the
// rejection is the HTTP error before any event.
func TestStreamRejects(t *testing.T) {
	ctx := context.Background()
	srv := New(t, nil, Text("never"))
	cfg := &genai.GenerateContentConfig{Tools: []*genai.Tool{{FunctionDeclarations: []*genai.FunctionDeclaration{
		{Name: "f", ParametersJsonSchema: map[string]any{"type": "object", "$ref": "#/x"}},
		{Name: "f"},
	}}}}
	var err error
	n := 0
	for _, err = range srv.Client(ctx).Models.GenerateContentStream(ctx, model, []*genai.Content{userText("hi")}, cfg) {
		n++
		if err != nil {
			break
		}
	}
	if n != 1 || err == nil {
		t.Fatalf("GenerateContentStream(bad declarations) = %d items, %v; want one error", n, err)
	}
	if apiErr := asAPIError(t, err); apiErr.Code != http.StatusBadRequest {
		t.Errorf("GenerateContentStream(bad declarations) = %d items, %v; want one 400", n, err)
	}
	if srv.Remaining() != 1 {
		t.Errorf("a rejected stream used a turn")
	}
}
