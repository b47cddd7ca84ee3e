package mcpbridge

import (
	"fmt"
	"unicode/utf8"

	"google.golang.org/genai"
)

// Default caps of one call's result beside [Options.TextLimit].
const (
	// DefaultBinaryLimit bounds the inline data (images, audio, blobs) of
	// one result that goes to the model when [Options.BinaryLimit] is zero:
	// 20 MiB, the Gemini API's limit for inline data in a request.
	DefaultBinaryLimit = 20 << 20
	// displayLimit bounds [CallResult.ReturnDisplay], in bytes; longer
	// displays keep their head and say how much was cut.
	displayLimit = 1 << 20
)

// capResult applies the binary limit (limit bytes; negative means none) to
// r's inline data, in order: a part that would pass the limit is replaced by
// a text part saying what was left out. It also cuts ReturnDisplay to
// displayLimit bytes at a UTF-8 boundary.
func capResult(r *CallResult, limit int) {
	if limit >= 0 {
		used := 0
		for i, p := range r.LLMContent {
			if p == nil || p.InlineData == nil {
				continue
			}
			n := len(p.InlineData.Data)
			if used+n > limit {
				r.LLMContent[i] = &genai.Part{Text: fmt.Sprintf("[%s content of %d bytes left out: the result's binary content is limited to %d bytes]",
					p.InlineData.MIMEType, n, limit)}
				continue
			}
			used += n
		}
	}
	if d := r.ReturnDisplay; len(d) > displayLimit {
		cut := displayLimit
		for cut > 0 && !utf8.RuneStart(d[cut]) {
			cut--
		}
		r.ReturnDisplay = d[:cut] + fmt.Sprintf("\n[... %d more bytes not shown]", len(d)-cut)
	}
}
