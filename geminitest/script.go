package geminitest

import (
	"google.golang.org/genai"
)

// A Turn is one scripted answer of the fake model. The server calls the
// script's turns in order, one per valid request, passing the decoded
// request so a turn can inspect what it received (for example the function
// responses of the last user turn). A Turn may be called on any goroutine
// and must not retain req after returning; it must not modify req.
type Turn func(req *Request) Response

// Response is the fake model's answer to one request.
type Response struct {
	// Parts is the content of the model's turn (role "model"). Function
	// call parts without an ID get a generated one unless
	// [Options.NoCallIDs] is set. The server does not modify Parts: it
	// fills IDs and signatures in copies. Parts whose FunctionCall has
	// PartialArgs or WillContinue are pieces of a call streamed in pieces,
	// sent as they are; only a request that asks for streamed arguments
	// may get them (else the server answers 500).
	Parts []*genai.Part
	// FinishReason is the candidate's finish reason; "" means STOP.
	FinishReason genai.FinishReason
	// Usage replaces the usage metadata; nil means a deterministic estimate
	// from the sizes of the request and the answer.
	Usage *genai.GenerateContentResponseUsageMetadata
	// Status, when not zero, makes the server answer with this HTTP error
	// status and Message instead of content (429 for quota errors, 503 for
	// an overloaded model, ...).
	Status int
	// Message is the error message sent with Status.
	Message string

	// Chunks says how a streamed answer (streamGenerateContent) splits
	// Parts into events, in order: Chunks[i] is how many parts event i
	// carries. The counts must be positive and add up to len(Parts) (else
	// the server answers 500). Empty means one event per part. The last
	// event carries the finish reason; every event carries the usage
	// metadata so far, the model version and the response ID, as the API's
	// do. A generateContent answer ignores Chunks.
	Chunks []int
	// BeforeChunk, if not nil, is called on the server's goroutine before
	// event i of a streamed answer is written (i from 0): a test can hold
	// the stream there until the caller has seen the events before it.
	// Each event is flushed to the client as soon as it is written. When
	// calls are streamed in pieces (see [Options.VertexAI]), i counts the
	// events as sent, pieces included.
	BeforeChunk func(i int)

	// Cancel, in a Live session, lists the IDs of pending function calls
	// the model gives up, as it does when the user interrupts: the server
	// sends toolCallCancellation with them before the turn's content and
	// no longer expects their responses. Ignored outside Live.
	Cancel []string
}

// Call is one function call a scripted turn makes.
type Call struct {
	// ID is the call's ID; "" means generated ("call-1", "call-2", ...
	// numbered across the server's lifetime), or none with
	// [Options.NoCallIDs].
	ID string
	// Name is the function's name; it must be declared in the request.
	Name string
	// Args are the call's arguments; nil sends no args.
	Args map[string]any
}

// Text returns a turn that answers with the text s.
func Text(s string) Turn {
	return Reply(Response{Parts: []*genai.Part{{Text: s}}})
}

// Calls returns a turn that answers with the function calls calls, in
// order, in one model turn.
func Calls(calls ...Call) Turn {
	parts := make([]*genai.Part, len(calls))
	for i, c := range calls {
		parts[i] = &genai.Part{FunctionCall: &genai.FunctionCall{ID: c.ID, Name: c.Name, Args: c.Args}}
	}
	return Reply(Response{Parts: parts})
}

// Reply returns a turn that always answers with r.
func Reply(r Response) Turn {
	return func(*Request) Response { return r }
}

// Fail returns a turn that answers with the HTTP error status and message,
// as the API does when a quota is exhausted (429) or the model is
// overloaded (503).
func Fail(status int, message string) Turn {
	return Reply(Response{Status: status, Message: message})
}
