package mcpbridge

import (
	"context"

	"github.com/mcpgenai/bridge/mcpbridge/sampling"
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
	// [sampling.Gemini] answers with Gemini.
	Sampler sampling.Sampler
	// Review is the person in the loop: it is called with res nil before
	// the model runs, with req.Model set to the model chosen, and again
	// with the answer. The texts it sees (the system prompt, the
	// messages, the tools' descriptions; the answer's text) are cleaned
	// for a person first, in place, as every text the Bridge shows:
	// what it approves is what the model and the server get. It may edit *req (the messages, the model, ...)
	// and *res in place. Returning an error wrapping
	// [sampling.ErrRefused] refuses: the server reads the protocol's
	// "User rejected sampling request" (code -1); on protocol 2026-07-28
	// the tool call that asked fails. Another error fails the request,
	// and the server reads a fixed message; the error goes to
	// [Options.Logger]. It is called concurrently and should return once
	// ctx is done. nil approves every request unseen.
	Review func(ctx context.Context, req *sampling.Request, res *sampling.Result) error
	// MaxOutputTokens caps the maxTokens a server asks for. 0 means
	// [sampling.DefaultMaxOutputTokens].
	MaxOutputTokens int
	// PerMinute is how many requests each server may make in any minute;
	// more are refused, and a tool call that brought one fails with
	// [ErrTooManyQuestions] (see [QuestionLimits], which bound how many
	// one call may bring). 0 means [sampling.DefaultPerMinute]; a
	// negative value means no bound.
	PerMinute int
	// MaxRequestBytes bounds one request, its JSON as the server sent it;
	// a larger one is refused before it is decoded. 0 means
	// [sampling.DefaultMaxRequestBytes].
	MaxRequestBytes int
}
