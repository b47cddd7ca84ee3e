package mcpbridge

import (
	"context"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/mcpbridge/internal/sampling"
)

// Sampling lets servers ask the host's model for a completion
// (sampling/createMessage, with tools), in either protocol era and, where
// a server asks, run as a task it polls. Set it in [ClientFeatures] to
// turn it on: only then is the capability declared. A server's request is
// checked, bounded, shown to Review (before and after the model answers),
// and answered by Sampler; the answer goes to the asking server alone.
// No context of this or another server is ever added to a request, whatever
// its includeContext says. The server runs its own tools; the Bridge never
// does.
type Sampling struct {
	// Sampler answers; required ([New] fails without one).
	// [GeminiSampler] answers with Gemini.
	Sampler Sampler
	// Review is the person in the loop: it is called with res nil before
	// the model runs, with req.Model set to the model chosen, and again
	// with the answer. It may edit *req (the messages, the model, ...)
	// and *res in place. Returning an error wrapping
	// [ErrSamplingRefused] refuses: the server reads the protocol's
	// "User rejected sampling request" (code -1); on protocol 2026-07-28
	// the tool call that asked fails. Another error fails the request.
	// It is called concurrently and should return once ctx is done. nil
	// approves every request unseen.
	Review func(ctx context.Context, req *SamplingRequest, res *SamplingResult) error
	// MaxOutputTokens caps the maxTokens a server asks for. 0 means
	// [DefaultSamplingMaxOutputTokens].
	MaxOutputTokens int
	// PerMinute is how many requests each server may make in any minute;
	// more are refused. 0 means [DefaultSamplingPerMinute].
	PerMinute int
	// MaxRequestBytes bounds one request, its JSON as the server sent it;
	// a larger one is refused before it is decoded. 0 means
	// [DefaultSamplingMaxRequestBytes].
	MaxRequestBytes int
}

// The values of the [Sampling] fields left zero.
const (
	DefaultSamplingMaxOutputTokens = sampling.DefaultMaxOutputTokens
	DefaultSamplingPerMinute       = sampling.DefaultPerMinute
	DefaultSamplingMaxRequestBytes = sampling.DefaultMaxRequestBytes
)

// ErrSamplingRefused, returned (or wrapped) by [Sampling.Review], refuses
// a sampling request.
var ErrSamplingRefused = sampling.ErrRefused

// Sampler answers sampling requests with a model; implement it to answer
// with a model of your own. ChooseModel picks the model for a request
// from its [SamplingPreferences] (the Bridge sets SamplingRequest.Model
// to it before the review); Sample answers with req.Model, must return
// promptly once ctx is done, and must not run the request's tools. Both
// are called concurrently. The request is only lent: do not keep it.
type Sampler = sampling.Sampler

// SamplingRequest is a server's sampling request, decoded and checked:
// its conversation (Messages), SystemPrompt, MaxTokens (already capped),
// Temperature, StopSequences, Preferences, the includeContext it asked
// for (never honored), its Tools and ToolChoice ("auto", "required",
// "none"), the Model chosen, and the schema Target (the Bridge's
// [Options.Target]) to convert the tools for. Server names the asking
// server; ServerTool, on protocol 2026-07-28, the tool being called.
type SamplingRequest = sampling.Request

// SamplingMessage is one message of a request: Role "user" or
// "assistant", and its content blocks.
type SamplingMessage = sampling.Message

// SamplingContent is one block of a message or answer: Type "text"
// (Text), "image" or "audio" (Data, MIMEType), "tool_use" (ID, Name of the
// server's tool, Input), or "tool_result" (ID of the tool_use, Content,
// Structured, IsError).
type SamplingContent = sampling.Content

// SamplingTool is a tool a request offers the model: the server's name,
// description and input schema as sent.
type SamplingTool = sampling.Tool

// SamplingPreferences are a request's model preferences: name hints in
// order, and the cost, speed and intelligence priorities (nil when not
// given).
type SamplingPreferences = sampling.Preferences

// SamplingResult is the answer: its content blocks (text, image, audio,
// or tool_use naming the request's tools), the model that answered, and
// the stop reason ("endTurn", "maxTokens", "toolUse", ...).
type SamplingResult = sampling.Result

// GeminiSampler returns a [Sampler] that answers with models through
// models.GenerateContent. model answers by default; allowed are other
// models a server's preferences may pick: the first of its name hints
// that is part of a model's name decides among those matching it, then
// the priorities (a "pro" model counts for intelligence, "flash" for
// speed and some cost, "lite" for speed and cost), then the default.
//
// What reaches Gemini: the messages (text, images, audio; tool_use as
// function calls, tool_result as function responses), the system prompt
// as the system instruction, maxTokens as maxOutputTokens, temperature,
// stop sequences, and the tools, their schemas converted by package
// schema for the request's Target, under valid function names, with
// toolChoice as the function-calling mode (auto AUTO, required ANY, none
// NONE). The model's function calls come back as tool_use blocks with the
// server's tool names and the arguments restored to its schemas.
//
// Not honored: includeContext (nothing is added), metadata (not sent),
// a stop sequence is reported as "endTurn" (Gemini does not tell it apart),
// and the model's thoughts are left out.
func GeminiSampler(models *genai.Models, model string, allowed ...string) Sampler {
	return &sampling.Gemini{Models: models, Model: model, Allowed: append([]string(nil), allowed...)}
}
