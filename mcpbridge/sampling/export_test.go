package sampling

import "google.golang.org/genai"

// GeminiCall, ToGemini, FromGemini and Declared let the external tests,
// which parse requests with mcpbridge/internal/sampling, reach the
// conversion.
type GeminiCall = geminiCall

var ToGemini = toGemini

func (c *geminiCall) FromGemini(req *Request, resp *genai.GenerateContentResponse) (*Result, error) {
	return c.fromGemini(req, resp)
}

// Contents and Config are the converted request.
func (c *geminiCall) Contents() []*genai.Content           { return c.contents }
func (c *geminiCall) Config() *genai.GenerateContentConfig { return c.config }

// Declared reports whether name is a function the request declares.
func (c *geminiCall) Declared(name string) bool { return c.names[name] != "" }
