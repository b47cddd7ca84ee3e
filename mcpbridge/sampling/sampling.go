// Package sampling holds the types of MCP sampling: a server's request for
// a completion by the host's model (sampling/createMessage, with tools
// since protocol 2025-11-25), the answer, and the [Sampler] that answers.
//
// A host turns sampling on with mcpbridge.ClientFeatures.Sampling, giving
// it a Sampler: [Gemini] answers with a Gemini model, or the host writes
// its own. The Bridge decodes and checks each server's request, bounds it,
// shows it to the host's review, asks the Sampler, and sends the answer
// back to the asking server alone. The Sampler and the review see the
// request as a [*Request] and the answer as a [*Result].
//
// The package does not depend on mcpbridge or on an MCP library: a
// Sampler can be written and tested on its own.
package sampling

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/mcpgenai/bridge/schema"
)

// The types of a [Content] block, as MCP names them.
const (
	// TypeText is a block of text: Content.Text.
	TypeText = "text"
	// TypeImage is an image: Content.Data and Content.MIMEType.
	TypeImage = "image"
	// TypeAudio is audio: Content.Data and Content.MIMEType.
	TypeAudio = "audio"
	// TypeToolUse is the model's call of one of the request's tools:
	// Content.ID, Content.Name, Content.Input and Content.Signature.
	TypeToolUse = "tool_use"
	// TypeToolResult is the result of a tool_use, given back by the
	// server: Content.ID (the tool_use's), Content.Content,
	// Content.Structured and Content.IsError.
	TypeToolResult = "tool_result"
)

// The roles of a [Message].
const (
	// RoleUser is a message of the user (or of the server): text, media
	// and tool_result blocks.
	RoleUser = "user"
	// RoleAssistant is a message of the model: text, media and tool_use
	// blocks.
	RoleAssistant = "assistant"
)

// The tool choices of a [Request] (Request.ToolChoice).
const (
	// ChoiceAuto lets the model decide whether to call a tool.
	ChoiceAuto = "auto"
	// ChoiceRequired makes the model call at least one tool.
	ChoiceRequired = "required"
	// ChoiceNone forbids tool calls; the model answers with text.
	ChoiceNone = "none"
)

// The stop reasons of a [Result] (Result.StopReason) that MCP names. A
// Sampler may report another string (Gemini's finish reason in lower
// case, for instance "safety"), which servers read as a stop for another
// reason.
const (
	// StopEndTurn: the model finished its answer.
	StopEndTurn = "endTurn"
	// StopSequence: the model wrote one of Request.StopSequences.
	StopSequence = "stopSequence"
	// StopMaxTokens: the answer reached Request.MaxTokens.
	StopMaxTokens = "maxTokens"
	// StopToolUse: the answer ends with tool_use blocks; the server runs
	// the tools and sends their results in its next request.
	StopToolUse = "toolUse"
)

// The limits applied when the matching field of mcpbridge.Sampling is
// left zero.
const (
	// DefaultMaxOutputTokens caps the maxTokens a server asks for.
	DefaultMaxOutputTokens = 4096
	// DefaultPerMinute is how many requests one server may make in any
	// minute; more are refused.
	DefaultPerMinute = 10
	// DefaultMaxRequestBytes bounds the JSON params of one request; a
	// larger one is refused before it is decoded.
	DefaultMaxRequestBytes = 4 << 20
)

// ErrRefused refuses a request: a review returns it, or an error wrapping
// it, and the server reads the protocol's "User rejected sampling request"
// (JSON-RPC code -1). On protocol 2026-07-28, where the request belongs
// to a tool call, that call fails.
var ErrRefused = errors.New("sampling request refused")

// Request is one sampling request of a server, decoded and checked
// against the protocol's rules before anyone sees it: Messages is never
// empty, every tool_use names one of Tools and has a unique ID, every
// tool_result answers a tool_use of the message before it, priorities are
// within [0, 1], and MaxTokens is positive and already capped by the
// host's limit.
//
// A review may edit a Request in place before the model runs (its changes
// are what the Sampler sees); a Sampler must not edit it, and neither may
// keep it once it returns.
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
	// maxTokens, capped by the host's limit (at least 1).
	MaxTokens int
	// Temperature is the server's temperature (0 or more); nil when it
	// sent none.
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
	// Tools are the server's tools the model may call, each name once.
	// The server runs them itself, never the host: the answer carries the
	// model's calls as tool_use blocks.
	Tools []Tool
	// ToolChoice is ChoiceAuto (also when the server sent none),
	// ChoiceRequired (only with Tools) or ChoiceNone.
	ToolChoice string
	// Model is the model chosen to answer: the Bridge sets it from
	// Sampler.ChooseModel before the first review, which may change it.
	Model string
	// Target is the schema target the tools' input schemas are to be
	// converted for (the Bridge's Options.Target).
	Target schema.Target
}

// Preferences are a server's model preferences, all advisory.
type Preferences struct {
	// Hints are fragments of model names, in order of preference ("flash"
	// names gemini-2.5-flash); empty hints are dropped.
	Hints []string
	// Cost, Speed and Intelligence are how much the server cares about
	// a cheap, a fast and a capable model, each in [0, 1]; nil when the
	// server did not say.
	Cost         *float64
	Speed        *float64
	Intelligence *float64
}

// Message is one message of a request's conversation.
type Message struct {
	// Role is RoleUser or RoleAssistant.
	Role string
	// Content is the message's blocks, never empty. A message with a
	// tool_result holds only tool_result blocks.
	Content []Content
}

// Content is one block of a message or of an answer. Type says which
// fields are used; the others are zero.
type Content struct {
	// Type is TypeText, TypeImage, TypeAudio, TypeToolUse or
	// TypeToolResult. An answer holds text, image, audio and tool_use
	// blocks only.
	Type string
	// Text is the text of a text block. A resource a tool_result holds
	// arrives as a text block too (the resource's text, or "[resource
	// URI]"), or as an image block when it is a blob.
	Text string
	// Data and MIMEType are an image's or audio's bytes (decoded, not
	// base64) and type ("image/png", "audio/wav", ...).
	Data     []byte
	MIMEType string
	// ID is a tool_use's id, unique in the conversation, or the id of the
	// tool_use a tool_result answers.
	ID string
	// Name is the server's name of the tool a tool_use calls (one of
	// Request.Tools).
	Name string
	// Input is a tool_use's arguments, an object (never nil in a
	// request). Numbers in a request arrive as json.Number.
	Input map[string]any
	// Content, Structured and IsError are a tool_result's: the blocks
	// the tool returned (text, image, audio), its structured result as
	// JSON (nil when it gave none), and whether the tool failed.
	Content    []Content
	Structured json.RawMessage
	IsError    bool
	// Signature is the model's thought signature of a tool_use: Gemini 3
	// requires it back with the call in the next request. It travels in
	// the block's _meta, so a server that returns the block as it got it
	// returns the signature too; nil when there is none.
	Signature []byte
}

// Tool is one tool a request offers the model, as the server sent it.
type Tool struct {
	// Name is the server's name of the tool, unique in the request.
	Name string
	// Description tells the model what the tool does; may be "".
	Description string
	// InputSchema is the JSON Schema of the tool's arguments, as sent.
	InputSchema json.RawMessage
}

// Result is a model's answer to a [Request]. A review may edit it in
// place before it reaches the server; the Bridge then checks it: Content
// must not be empty and holds only text, image, audio and tool_use blocks,
// Model must be set, image and audio blocks need a MIMEType, and a
// tool_use needs an ID and must name one of the request's Tools. A result
// that fails the check fails the request.
type Result struct {
	// Content is the answer: text, image or audio blocks, and tool_use
	// blocks naming the request's tools with their arguments.
	Content []Content
	// Model is the model that answered.
	Model string
	// StopReason is why the model stopped: StopEndTurn, StopMaxTokens,
	// StopSequence, StopToolUse, another string, or "" when unknown.
	StopReason string
}

// Sampler answers sampling requests with a model. Implement it to answer
// with a model of your own; [Gemini] answers with Gemini. Both methods
// are called concurrently, for requests of any server.
type Sampler interface {
	// ChooseModel returns the model that will answer req, chosen from
	// its Preferences among the models the Sampler allows. The Bridge
	// sets req.Model to it before the review; a request still without
	// a model after the review fails.
	ChooseModel(req *Request) string
	// Sample answers req with req.Model (which the review may have
	// changed). It must return promptly once ctx is done, must not run
	// the request's tools, and must not keep or edit req. An error fails
	// the request (the server reads a JSON-RPC error).
	Sample(ctx context.Context, req *Request) (*Result, error)
}
