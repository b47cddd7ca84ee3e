package mcpbridge

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// TextOptions choose what [Status.WriteText] shows. The zero value (and
// nil) shows one line of tool names per server, as [Status.String] does.
type TextOptions struct {
	// Descriptions lists each server's tools one per line with their
	// descriptions, as Gemini CLI's "/mcp desc" does:
	//
	//	  Tools:
	//	    - search_issues: Searches issues by text, label and state.
	//	    - set_priority
	//
	// A description is shown on one line: runs of white space and control
	// characters become one space, and one longer than DescriptionLimit is
	// cut at a word boundary, ending in "…". False (the zero value) shows
	// one line of tool names.
	Descriptions bool
	// DescriptionLimit is the most characters (Unicode code points) of a
	// description shown, "…" included. Zero means
	// [DefaultDescriptionLimit]; a negative value means no limit.
	// [ServerStatus.ToolDescriptions] and the JSON form are never cut.
	DescriptionLimit int
}

// DefaultDescriptionLimit is the description limit when
// [TextOptions.DescriptionLimit] is zero: 100 characters, so that a
// description and its tool's name fit on a line of a wide terminal.
const DefaultDescriptionLimit = 100

// writeToolList writes the "Tools:" block of s with one tool per line.
func writeToolList(b *strings.Builder, s ServerStatus, limit int) {
	if len(s.Tools) == 0 {
		return
	}
	switch {
	case limit == 0:
		limit = DefaultDescriptionLimit
	case limit < 0:
		limit = -1
	}
	b.WriteString("  Tools:\n")
	for _, name := range s.Tools {
		if d := shortDescription(s.ToolDescriptions[name], limit); d != "" {
			fmt.Fprintf(b, "    - %s: %s\n", name, d)
		} else {
			fmt.Fprintf(b, "    - %s\n", name)
		}
	}
}

// shortDescription returns d on one line, cut to at most limit characters
// (no limit when negative). Runs of white space, control and bidirectional
// formatting characters become one space, so a description can neither
// break the layout nor send escape sequences to a terminal. A cut falls at
// the last space of the kept text when that keeps at least half of it, and
// "…" marks it.
func shortDescription(d string, limit int) string {
	d = strings.Join(strings.FieldsFunc(d, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) || r == utf8.RuneError
	}), " ")
	if limit < 0 || utf8.RuneCountInString(d) <= limit {
		return d
	}
	if limit == 0 {
		return ""
	}
	cut := string([]rune(d)[:limit-1]) // d is valid UTF-8: FieldsFunc split at every RuneError
	if i := strings.LastIndexByte(cut, ' '); i > 0 && utf8.RuneCountInString(cut[:i]) >= (limit-1)/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ") + "…"
}
