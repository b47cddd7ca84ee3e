package result

import (
	"fmt"

	"google.golang.org/genai"
)

// CapBinary applies a limit of limit bytes (negative: none) to the inline
// data of parts, in order: a part that would pass the limit is replaced by
// a text part saying what was left out, and later, smaller parts may still
// fit. parts is modified in place and returned.
func CapBinary(parts []*genai.Part, limit int) []*genai.Part {
	if limit < 0 {
		return parts
	}
	used := 0
	for i, p := range parts {
		if p == nil || p.InlineData == nil {
			continue
		}
		n := len(p.InlineData.Data)
		if used+n > limit {
			parts[i] = &genai.Part{Text: fmt.Sprintf("[%s content of %d bytes left out: the result's binary content is limited to %d bytes]",
				p.InlineData.MIMEType, n, limit)}
			continue
		}
		used += n
	}
	return parts
}
