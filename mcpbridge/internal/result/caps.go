package result

import (
	"fmt"
	"unicode/utf8"

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

// CapDisplay cuts d to at most limit bytes at a UTF-8 boundary and says
// how many bytes were cut; d is returned unchanged when it fits.
func CapDisplay(d string, limit int) string {
	if len(d) <= limit {
		return d
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(d[cut]) {
		cut--
	}
	return d[:cut] + fmt.Sprintf("\n[... %d more bytes not shown]", len(d)-cut)
}
