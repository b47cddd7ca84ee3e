package mcpbridge

import "github.com/mcpgenai/bridge/mcpbridge/internal/result"

// Default caps of one call's result beside [Options.TextLimit].
const (
	// defaultBinaryLimit bounds the inline data (images, audio, blobs) of
	// one result that goes to the model when [Options.BinaryLimit] is zero:
	// 20 MiB, the Gemini API's limit for inline data in a request.
	defaultBinaryLimit = 20 << 20
	// displayLimit bounds [CallResult.ReturnDisplay], in bytes; longer
	// displays keep their head and say how much was cut (at the exit,
	// see [shown]).
	displayLimit = 1 << 20
)

// capResult applies the binary limit (limit bytes; negative means none) to
// r's inline data, in order: a part that would pass the limit is replaced by
// a text part saying what was left out.
func capResult(r *CallResult, limit int) {
	r.LLMContent = result.CapBinary(r.LLMContent, limit)
}
