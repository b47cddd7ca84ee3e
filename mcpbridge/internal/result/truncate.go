package result

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"google.golang.org/genai"
)

// DefaultTextLimit is how many characters (Unicode code points) of a tool's
// text the model reads when no limit is configured.
//
// 100,000 characters is about 25,000 tokens: large enough for a long file,
// a big JSON document or a few thousand log lines, small enough that several
// calls of one turn (they run in parallel) together stay a small share of a
// 1M-token context, and that one runaway tool (a recursive listing, a binary
// file read as text) cannot blow the request up on its own.
const DefaultTextLimit = 100_000

// TextLimit resolves a configured limit: 0 means [DefaultTextLimit], a
// negative value means no limit (returned as -1).
func TextLimit(n int) int {
	switch {
	case n == 0:
		return DefaultTextLimit
	case n < 0:
		return -1
	}
	return n
}

// Truncate cuts s to at most limit characters by keeping its head and
// its tail (the head gets the odd character) and putting a note between
// them, on its own line, that says how much was cut. Cuts fall on UTF-8
// boundaries (each invalid byte counts as one character). A negative limit,
// or an s of at most limit characters, returns s unchanged.
//
// It is the single-string case of [TruncateParts], so
// Truncate(s, n) == JoinText(TruncateParts([s], n)) for the same n.
func Truncate(s string, limit int) string {
	parts := TruncateParts([]*genai.Part{{Text: s}}, limit)
	if len(parts) == 1 {
		return parts[0].Text
	}
	return JoinText(parts)
}

// TruncateParts applies limit to the text parts of parts taken together:
// their texts joined by "\n" (see [JoinText]), each separator counting as one
// character. When the joined text is longer than limit, the first
// limit-limit/2 and the last limit/2 characters are kept, text parts wholly
// inside the cut are dropped, parts straddling a cut edge are shortened, and
// one text part holding the note is inserted where the cut begins. Parts
// that are not text (inline data) are kept in place. A negative limit
// returns parts unchanged.
//
// parts is not modified; shortened parts are new. The result joined with
// [JoinText] is the joined text cut in its middle with the note on a line of
// its own (a separator that falls on a cut edge goes with the cut).
func TruncateParts(parts []*genai.Part, limit int) []*genai.Part {
	if limit < 0 {
		return parts
	}
	var texts []string
	for _, p := range parts {
		if isTextPart(p) {
			texts = append(texts, p.Text)
		}
	}
	joined := strings.Join(texts, "\n")
	total := utf8.RuneCountInString(joined)
	if total <= limit {
		return parts
	}
	tail := limit / 2
	head := limit - tail
	hb := runeOffset(joined, head)       // the cut starts here (bytes)
	tb := runeOffset(joined, total-tail) // and ends here
	note := &genai.Part{Text: fmt.Sprintf("[... %d of %d characters (%d bytes) cut from the middle ...]",
		total-head-tail, total, tb-hb)}

	out := make([]*genai.Part, 0, len(parts)+2)
	noted := false
	start := 0 // byte offset of the current text part in joined
	for _, p := range parts {
		if !isTextPart(p) {
			out = append(out, p)
			continue
		}
		bs, be := start, start+len(p.Text)
		start = be + 1 // skip the separator
		switch {
		case be <= hb:
			out = append(out, p) // wholly in the head
			continue
		case bs >= tb:
			if !noted {
				out = append(out, note)
				noted = true
			}
			out = append(out, p) // wholly in the tail
			continue
		}
		if bs < hb {
			out = append(out, &genai.Part{Text: joined[bs:hb]})
		}
		if !noted {
			out = append(out, note)
			noted = true
		}
		if be > tb {
			out = append(out, &genai.Part{Text: joined[max(bs, tb):be]})
		}
	}
	return out
}

// runeOffset returns the byte offset of the n-th character of s, counting
// as utf8.RuneCountInString does; len(s) if s has fewer.
func runeOffset(s string, n int) int {
	i := 0
	for ; n > 0 && i < len(s); n-- {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return i
}

// isTextPart reports whether p is a plain text part (not inline data, not
// nil).
func isTextPart(p *genai.Part) bool {
	return p != nil && p.InlineData == nil && p.FileData == nil && p.FunctionCall == nil &&
		p.FunctionResponse == nil
}

// JoinText joins the texts of the text parts of parts with "\n", in order;
// other parts are skipped.
func JoinText(parts []*genai.Part) string {
	var b strings.Builder
	first := true
	for _, p := range parts {
		if !isTextPart(p) {
			continue
		}
		if !first {
			b.WriteByte('\n')
		}
		first = false
		b.WriteString(p.Text)
	}
	return b.String()
}
