package mcpbridge

import (
	"encoding/json"
	"errors"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/mcpbridge/internal/clone"
	"github.com/mcpgenai/bridge/mcpbridge/internal/result"
)

// CallResult is what one function call produced: what the model reads, what
// a person sees, and whether it failed.
//
// A CallResult is not modified by its methods; it is safe to read from
// several goroutines once built.
type CallResult struct {
	// Name is the function name the model called (the registered name).
	Name string
	// ID is the ID of the model's FunctionCall, echoed unchanged; "" when the
	// call had none (one is never invented).
	ID string
	// Server and ServerTool say where the call ran: the server's name and the
	// tool's original MCP name.
	Server, ServerTool string
	// LLMContent is what the model reads, in the order the server sent it:
	// text parts (already cut to the text limit) and inline data parts
	// (images, audio, embedded blobs).
	LLMContent []*genai.Part
	// ReturnDisplay is what a person sees: one line or block per content
	// block, joined by newlines; "(no output)" when there was nothing.
	ReturnDisplay string
	// Err is non-nil when the call failed: the server reported an error
	// (isError), or the bridge could not make or finish the call.
	Err error
	// OutputErr is non-nil when the tool declared an outputSchema and the
	// result's structuredContent is missing or does not match it; it says
	// where. The model still gets the content;
	// OutputErr is for the host. It is nil when Err is set.
	OutputErr error

	structured       any  // decoded structuredContent (json.Number for numbers); nil when absent or sent as text
	serverStructured any  // structuredContent as the server sent it, decoded; nil when absent
	textIsStructured bool // the text is the JSON of structured, so it is not sent twice
	serverError      bool // Err comes from the server's isError; its text is the message
}

// FunctionResponse returns the response to send back to the model for this
// call: ID and Name echoed, the binary data of LLMContent as inline data in
// Parts, and Response holding exactly one key:
//
//   - "error" when Err is non-nil: the server's text for an isError result
//     (or its structured content as compact JSON when it sent no text),
//     otherwise Err.Error().
//   - "output" otherwise: the text parts of LLMContent joined by "\n" (""
//     when there are none); or, when the server sent structuredContent
//     within the text limit (see convertResult), that
//     value as is when the text is empty or is the same JSON, else the
//     object {"text": ..., "structuredContent": ...}.
//
// Any object key inside Response named "$ref", "_$ref", "__$ref" and so on
// gets one more leading underscore ("$ref" becomes "_$ref"), because the API
// reads a "$ref" key as a reference to an attached part; the escape is
// reversible and never makes two keys collide.
//
// The result is new on each call but shares the bytes of inline data with
// LLMContent; do not modify them. A nil r returns nil.
func (r *CallResult) FunctionResponse() *genai.FunctionResponse {
	if r == nil {
		return nil
	}
	fr := &genai.FunctionResponse{ID: r.ID, Name: r.Name}
	for _, p := range r.LLMContent {
		if p != nil && p.InlineData != nil {
			fr.Parts = append(fr.Parts, &genai.FunctionResponsePart{InlineData: &genai.FunctionResponseBlob{
				MIMEType: p.InlineData.MIMEType,
				Data:     p.InlineData.Data,
			}})
		}
	}
	text := result.JoinText(r.LLMContent)
	structured := result.EscapeRefs(r.structured)

	if r.Err != nil {
		msg := ""
		if r.serverError {
			msg = text
			if msg == "" && structured != nil {
				if b, err := json.Marshal(structured); err == nil {
					msg = string(b)
				}
			}
		}
		if msg == "" {
			msg = r.Err.Error()
		}
		fr.Response = map[string]any{"error": msg}
		return fr
	}
	var output any = text
	switch {
	case structured == nil:
	case text == "" || r.textIsStructured:
		output = structured
	default:
		output = map[string]any{"text": text, "structuredContent": structured}
	}
	fr.Response = map[string]any{"output": output}
	return fr
}

// StructuredContent returns the structuredContent of the tool's result,
// decoded from JSON (objects as map[string]any, arrays as []any, numbers
// as json.Number, exactly as written), or nil when the result had none or
// the call failed in the bridge. It is the value as the server sent it,
// even when it was too long for the text limit and reached the model as
// cut text. The value is a new copy on each call. For a host function's
// result it is the value its Handler returned, as JSON. A nil r returns
// nil.
func (r *CallResult) StructuredContent() any {
	if r == nil {
		return nil
	}
	return clone.JSON(r.serverStructured)
}

// Part returns a genai.Part holding FunctionResponse, ready to go into the
// user turn that answers the model's function calls. A nil r returns nil.
func (r *CallResult) Part() *genai.Part {
	if r == nil {
		return nil
	}
	return &genai.Part{FunctionResponse: r.FunctionResponse()}
}

// errorResult is the CallResult of a call that failed in the bridge (unknown
// tool, denied, cancelled, invalid arguments, timeout, transport failure):
// Response {"error": err.Error()}, display "Error: " + err.Error(). A nil err
// is reported as "unknown error".
func errorResult(name, id string, err error) *CallResult {
	if err == nil {
		err = errors.New("unknown error")
	}
	msg := err.Error()
	return &CallResult{
		Name:          name,
		ID:            id,
		LLMContent:    []*genai.Part{{Text: msg}},
		ReturnDisplay: "Error: " + msg,
		Err:           err,
	}
}

// convertOptions says how convertResult labels and limits what it builds.
type convertOptions struct {
	Name   string // registered function name, as the model called it
	ID     string // the call's ID, echoed as is ("" stays "")
	Server string // server the tool ran on
	Tool   string // original MCP tool name, used in messages
	// TextLimit is how many characters of text the model reads; 0 means
	// the default, negative means no limit.
	TextLimit int
}

// convertResult turns the raw JSON of an MCP tools/call result into a
// CallResult labelled by opts (see [result.Convert] for the conversion).
// raw is not modified or retained. The error is non-nil only when raw is
// not a JSON object or its content is not an array.
func convertResult(raw json.RawMessage, opts convertOptions) (*CallResult, error) {
	res, err := result.Convert(raw, result.Options{Tool: opts.Tool, TextLimit: opts.TextLimit})
	if err != nil {
		return nil, err
	}
	return &CallResult{
		Name: opts.Name, ID: opts.ID, Server: opts.Server, ServerTool: opts.Tool,
		LLMContent:       res.Parts,
		ReturnDisplay:    res.Display,
		Err:              res.Err,
		structured:       res.Structured,
		serverStructured: res.ServerStructured,
		textIsStructured: res.TextIsStructured,
		serverError:      res.IsError,
	}, nil
}
