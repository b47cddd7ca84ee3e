// Package stream assembles the chunks of a streamed Gemini answer
// (streamGenerateContent) into the one response a whole answer would have
// been, and says what each chunk adds for a person watching.
//
// The assembled content holds every part of every chunk in the order the
// API sent them, unchanged: text stays in the pieces it came in, function
// calls are never merged, and thought signatures stay on the parts that
// carried them, so the model turn can be sent back exactly as the API
// wrote it. The one exception is a function call whose arguments Vertex
// AI streams in pieces (see [Accumulator.Add]): its chunks become the one
// call they make, where its first chunk was.
//
//	var acc stream.Accumulator
//	for chunk, err := range models.GenerateContentStream(ctx, model, contents, config) {
//		if err != nil { ... }
//		if err := acc.Add(chunk); err != nil { ... }
//	}
//	resp := acc.Response()
package stream

import (
	"errors"
	"fmt"
	"iter"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/mcpbridge/agent/internal/streamargs"
)

// ErrPartialCall is wrapped by the errors of a function call streamed in
// pieces that do not make one call, unless [Accumulator.Partial] names
// another error: pieces that do not assemble (they also wrap
// streamargs.ErrMalformed or streamargs.ErrTooLarge), a call that begins
// before the one streaming has ended, or a stream that ends in the middle
// of a call ([Accumulator.Err]).
var ErrPartialCall = errors.New("function call streamed in pieces does not assemble")

// Accumulator gathers the chunks of one streamed answer. The zero value is
// empty and ready to use. It is not safe for concurrent use. It keeps the
// chunks' parts (pointers, not copies): the caller must not modify them.
type Accumulator struct {
	// Partial, if not nil, is wrapped by the errors of a call streamed in
	// pieces that do not make one call, in place of ErrPartialCall: the
	// caller's own sentinel. Set it before the first Add.
	Partial error

	chunks   int
	parts    []*genai.Part
	role     string
	last     *genai.GenerateContentResponse // the last chunk
	finish   genai.FinishReason
	finishMs string
	usage    *genai.GenerateContentResponseUsageMetadata
	feedback *genai.GenerateContentResponsePromptFeedback
	sawCand  bool
	open     *streamedCall // the call whose pieces are arriving
	ended    bool          // the last function call part ended a streamed call
	err      error
	limits   *streamargs.Limits
}

// partial returns the error a call that does not assemble wraps.
func (a *Accumulator) partial() error {
	if a.Partial != nil {
		return a.Partial
	}
	return ErrPartialCall
}

// streamedCall is a function call whose arguments arrive in pieces.
type streamedCall struct {
	part *genai.Part // the call's part in the content: the first chunk's, copied
	asm  *streamargs.Assembler
}

// Chunks reports how many chunks were added.
func (a *Accumulator) Chunks() int { return a.chunks }

// SetLimits sets the bounds of each call streamed in pieces; nil (the
// default) means streamargs' defaults. Call it before the first Add.
func (a *Accumulator) SetLimits(lim *streamargs.Limits) { a.limits = lim }

// Add adds the next chunk. A nil chunk is ignored.
//
// A function call streamed in pieces (Vertex AI's streamed function call
// arguments) is assembled into one call: its first part names the
// function (and its ID) with willContinue true; the function-call parts
// that follow carry partialArgs (assembled by streamargs) and belong to it
// until one of them no longer says willContinue (an empty functionCall
// {} does, as the API ends such a call). A single part with partialArgs
// and without willContinue is a call streamed in one piece. The call's
// part keeps the first part's thought signature; later parts may repeat
// the name and ID but not change them, and carry no args. An empty
// functionCall right after a streamed call is that call's end and is
// dropped.
//
// Add fails on pieces that do not make one call ([ErrPartialCall]); it
// then keeps its first error and takes nothing more.
func (a *Accumulator) Add(chunk *genai.GenerateContentResponse) error {
	if chunk == nil {
		return nil
	}
	if a.err != nil {
		return a.err
	}
	a.chunks++
	a.last = chunk
	if chunk.UsageMetadata != nil {
		a.usage = chunk.UsageMetadata
	}
	if chunk.PromptFeedback != nil {
		a.feedback = chunk.PromptFeedback
	}
	if len(chunk.Candidates) == 0 || chunk.Candidates[0] == nil {
		return nil
	}
	c := chunk.Candidates[0]
	a.sawCand = true
	if c.FinishReason != "" {
		a.finish, a.finishMs = c.FinishReason, c.FinishMessage
	}
	if c.Content == nil {
		return nil
	}
	if c.Content.Role != "" {
		a.role = c.Content.Role
	}
	for _, p := range c.Content.Parts {
		if p == nil {
			continue
		}
		if p.FunctionCall != nil && (a.open != nil || a.ended || streamed(p.FunctionCall)) {
			if err := a.piece(p); err != nil {
				a.err = err
				return err
			}
			continue
		}
		a.parts = append(a.parts, p)
	}
	return nil
}

// Err reports a function call still streaming its pieces: after the last
// chunk, the stream ended in the middle of a call. It returns the error
// Add returned, if any.
func (a *Accumulator) Err() error {
	if a.err != nil {
		return a.err
	}
	if a.open != nil {
		return fmt.Errorf("%s: %w: the stream ended before its last piece", callName(a.open.part.FunctionCall), a.partial())
	}
	return nil
}

// Response returns the answer the chunks make together: the last chunk's
// metadata (model version, response ID, the latest usage and prompt
// feedback), and one candidate holding every part in the order sent, with
// the last finish reason any chunk gave; a call still streaming its pieces
// ([Accumulator.Err]) is there without arguments. It is nil when no chunk
// was added. The result is new on each call; its parts are the chunks' own.
func (a *Accumulator) Response() *genai.GenerateContentResponse {
	if a.last == nil {
		return nil
	}
	out := &genai.GenerateContentResponse{
		CreateTime:      a.last.CreateTime,
		ModelVersion:    a.last.ModelVersion,
		ResponseID:      a.last.ResponseID,
		UsageMetadata:   a.usage,
		PromptFeedback:  a.feedback,
		SDKHTTPResponse: a.last.SDKHTTPResponse,
	}
	if !a.sawCand {
		return out
	}
	cand := &genai.Candidate{FinishReason: a.finish, FinishMessage: a.finishMs}
	if lc := a.last.Candidates; len(lc) > 0 && lc[0] != nil {
		c := *lc[0]
		c.Content, c.FinishReason, c.FinishMessage = nil, a.finish, a.finishMs
		cand = &c
	}
	if len(a.parts) > 0 {
		role := a.role
		if role == "" {
			role = genai.RoleModel
		}
		cand.Content = &genai.Content{Role: role, Parts: append([]*genai.Part(nil), a.parts...)}
	}
	out.Candidates = []*genai.Candidate{cand}
	return out
}

// Piece is what one part of a chunk shows a person: a piece of the
// model's text or of its thoughts.
type Piece struct {
	Text    string
	Thought bool
}

// Pieces yields the text and thought pieces of chunk's first candidate,
// in order; empty texts (a part that only carries a thought signature) are
// left out. It allocates nothing: it runs on every chunk.
func Pieces(chunk *genai.GenerateContentResponse) iter.Seq[Piece] {
	return func(yield func(Piece) bool) {
		if chunk == nil || len(chunk.Candidates) == 0 || chunk.Candidates[0] == nil || chunk.Candidates[0].Content == nil {
			return
		}
		for _, p := range chunk.Candidates[0].Content.Parts {
			if p == nil || p.Text == "" {
				continue
			}
			if !yield(Piece{Text: p.Text, Thought: p.Thought}) {
				return
			}
		}
	}
}
