// Package sampling answers an MCP server's sampling/createMessage request
// (a model completion the server asks its client for, with tools since
// protocol 2025-11-25) with a model: it decodes and checks the request as
// the server sent it, bounds it, lets a person review it before and after
// the model answers, and encodes the answer. [Gemini] answers with a
// genai.Models; any [Sampler] can.
//
//	h := sampling.NewHandler(sampling.Config{Sampler: &sampling.Gemini{Models: client.Models, Model: "gemini-2.5-flash"}})
//	raw, err := h.Handle(ctx, "files", "", params) // params: the request's JSON params
//	// raw is the CreateMessageResult; err may be an *RPCError for the server.
//
// The package knows nothing of transports: mcpconn routes the requests,
// and the Bridge adds redaction and tracing at its exits.
package sampling

import (
	"context"
	"encoding/json"

	"github.com/mcpgenai/bridge/schema"
)

// Content types of a sampling message, as MCP names them.
const (
	TypeText       = "text"
	TypeImage      = "image"
	TypeAudio      = "audio"
	TypeToolUse    = "tool_use"
	TypeToolResult = "tool_result"
)

// Roles of a sampling message.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// Tool choice modes.
const (
	ChoiceAuto     = "auto"
	ChoiceRequired = "required"
	ChoiceNone     = "none"
)

// Stop reasons of a result, as MCP names them; another string is allowed.
const (
	StopEndTurn      = "endTurn"
	StopSequence     = "stopSequence"
	StopMaxTokens    = "maxTokens"
	StopToolUse      = "toolUse"
	StopRefusalOther = "other"
)

// Request is one sampling request of a server, decoded and checked. A
// review may edit it before the model runs; the Sampler must not keep it.
type Request struct {
	// Server is the configured name of the asking server.
	Server string
	// ServerTool is the server's name of the tool being called when the
	// request is part of that call (protocol 2026-07-28); "" otherwise.
	ServerTool string
	// Messages is the conversation, oldest first; never empty.
	Messages []Message
	// SystemPrompt is the server's system prompt, or "".
	SystemPrompt string
	// MaxTokens is the most tokens the answer may have: the server's
	// maxTokens, capped by the host's limit.
	MaxTokens int
	// Temperature is the server's temperature; nil when it sent none.
	Temperature *float64
	// StopSequences end the answer where the model writes one of them.
	StopSequences []string
	// Preferences are the server's model preferences (advisory).
	Preferences Preferences
	// IncludeContext is what the server asked to include ("none",
	// "thisServer", "allServers" or ""). It is never honored: no context
	// of this or another server is added (the client does not declare
	// the context capability, and another server's data must not leak).
	IncludeContext string
	// Tools are the server's tools the model may ask for; the server runs
	// them itself, never the client.
	Tools []Tool
	// ToolChoice is ChoiceAuto, ChoiceRequired or ChoiceNone.
	ToolChoice string
	// Model is the model chosen to answer, set by the Handler from
	// Sampler.ChooseModel before the first review. A review may change it.
	Model string
	// Target is the schema target the tools' schemas are converted for.
	Target schema.Target
}

// Preferences are a server's model preferences. Hints are model name
// fragments, in order of preference; each priority is in [0, 1], nil when
// not given.
type Preferences struct {
	Hints        []string
	Cost         *float64
	Speed        *float64
	Intelligence *float64
}

// Message is one message of the conversation.
type Message struct {
	// Role is RoleUser or RoleAssistant.
	Role    string
	Content []Content
}

// Content is one block of a message. Type says which fields are used:
// Text for text; Data and MIMEType for image and audio; ID, Name, Input
// and Signature for tool_use; ID (the tool_use's), Content, Structured and
// IsError for tool_result.
type Content struct {
	Type       string
	Text       string
	Data       []byte
	MIMEType   string
	ID         string
	Name       string
	Input      map[string]any
	Content    []Content
	Structured json.RawMessage
	IsError    bool
	// Signature is the model's thought signature of a tool_use (Gemini 3
	// requires it back with the call in the next request). It travels in
	// the block's _meta under SignatureMeta, so that a server that
	// returns the block as it got it returns the signature too.
	Signature []byte
}

// SignatureMeta is the _meta key of a tool_use's thought signature
// (base64).
const SignatureMeta = "com.github.mcpgenai.bridge/thoughtSignature"

// Tool is one tool the model may use: the server's name, description and
// input schema, as the server sent them.
type Tool struct {
	Name        string
	Description string
	InputSchema json.RawMessage
}

// Result is a model's answer.
type Result struct {
	// Content is the answer: text, image or audio blocks, or tool_use
	// blocks naming the server's tools with their arguments.
	Content []Content
	// Model is the model that answered.
	Model string
	// StopReason is why the model stopped (StopEndTurn, StopMaxTokens,
	// StopSequence, StopToolUse or another string), or "".
	StopReason string
}

// Sampler answers sampling requests with a model. Its methods are called
// concurrently.
type Sampler interface {
	// ChooseModel returns the model that will answer req, chosen from its
	// preferences among the models the Sampler allows.
	ChooseModel(req *Request) string
	// Sample answers req with req.Model. It must return promptly once
	// ctx is done. It must not run the request's tools.
	Sample(ctx context.Context, req *Request) (*Result, error)
}
