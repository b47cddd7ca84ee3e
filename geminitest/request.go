package geminitest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"

	"google.golang.org/genai"
)

// Request is one generateContent or streamGenerateContent request received
// by the [Server]. Once a request has passed the strict checks, Contents and
// Config hold its body as the genai types a caller passes to
// genai.Models.GenerateContent, so a test can compare what it sent with what
// arrived. Numbers inside free JSON values (arguments, function responses,
// schema defaults) are float64, as encoding/json decodes them.
type Request struct {
	// Model is the model named in the URL, without the "models/" prefix.
	Model string
	// Stream reports whether the request was streamGenerateContent.
	Stream bool
	// Live reports whether the request is a message of a Live session
	// (see [Server.LiveClientConfig]): its setup, or a message that made
	// the script answer, or a tool response that did not. Contents is then
	// the session's conversation so far, Config holds the setup's tools and
	// system instruction, and Body is the message.
	Live bool
	// Contents is the conversation: every turn of the request, in order.
	Contents []*genai.Content
	// Config holds the rest of the body: system instruction, tools, tool
	// and generation configuration, safety settings. It is never nil for
	// an accepted request. Fields the wire format carries but that genai
	// lacks are only in Body.
	Config *genai.GenerateContentConfig
	// Body is the raw request body, byte for byte.
	Body []byte
	// Header holds the request's HTTP headers.
	Header http.Header
	// Query holds the URL's query parameters.
	Query url.Values
	// Rejection is the error message the server answered with ("" when
	// the request was accepted and passed to the script). A rejected
	// request may be only partly decoded, or not at all: Contents and
	// Config then hold what could be.
	Rejection string
	// Turn is the index of the script turn that answered the request, or
	// -1 when none did.
	Turn int
}

// LastContent returns the request's last content, or nil if it has none.
func (r *Request) LastContent() *genai.Content {
	if len(r.Contents) == 0 {
		return nil
	}
	return r.Contents[len(r.Contents)-1]
}

// FunctionResponses returns the function responses of the request's last
// content, in order; nil if there are none.
func (r *Request) FunctionResponses() []*genai.FunctionResponse {
	c := r.LastContent()
	if c == nil {
		return nil
	}
	var out []*genai.FunctionResponse
	for _, p := range c.Parts {
		if p != nil && p.FunctionResponse != nil {
			out = append(out, p.FunctionResponse)
		}
	}
	return out
}

// Declarations returns every function declaration of the request, in
// order across its tools.
func (r *Request) Declarations() []*genai.FunctionDeclaration {
	if r.Config == nil {
		return nil
	}
	var out []*genai.FunctionDeclaration
	for _, t := range r.Config.Tools {
		if t == nil {
			continue
		}
		for _, d := range t.FunctionDeclarations {
			if d != nil {
				out = append(out, d)
			}
		}
	}
	return out
}

// Declaration returns the declaration of the function named name, or nil.
func (r *Request) Declaration(name string) *genai.FunctionDeclaration {
	for _, d := range r.Declarations() {
		if d.Name == name {
			return d
		}
	}
	return nil
}

// setBody fills Contents and Config from the decoded body w. The wire types
// carry the API's JSON names, which are genai's too, so one JSON round trip
// converts them; the generation options, nested on the wire, are flat in
// genai.GenerateContentConfig.
func (r *Request) setBody(w *wireRequest) error {
	contents, err := convert[[]*genai.Content](w.Contents)
	if err != nil {
		return fmt.Errorf("contents: %w", err)
	}
	fields := map[string]any{}
	if w.GenerationConfig != nil {
		b, err := json.Marshal(w.GenerationConfig)
		if err != nil {
			return fmt.Errorf("generationConfig: %w", err)
		}
		if err := json.Unmarshal(b, &fields); err != nil {
			return fmt.Errorf("generationConfig: %w", err)
		}
	}
	rest, err := convert[map[string]any](wireRequest{
		SystemInstruction: w.SystemInstruction, Tools: w.Tools, ToolConfig: w.ToolConfig,
		SafetySettings: w.SafetySettings, CachedContent: w.CachedContent, Labels: w.Labels,
		ServiceTier: w.ServiceTier, Store: w.Store, ContinuationToken: w.ContinuationToken,
	})
	if err != nil {
		return err
	}
	for k, v := range rest {
		fields[k] = v
	}
	config, err := convert[*genai.GenerateContentConfig](fields)
	if err != nil {
		return err
	}
	if config == nil {
		config = &genai.GenerateContentConfig{}
	}
	r.Contents, r.Config = contents, config
	return nil
}

// convert re-encodes v as JSON and decodes it as a T.
func convert[T any](v any) (T, error) {
	var out T
	b, err := json.Marshal(v)
	if err != nil {
		return out, err
	}
	err = json.Unmarshal(b, &out)
	return out, err
}
