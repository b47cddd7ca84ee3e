package mcpbridge

import (
	"fmt"
	"strings"

	"github.com/mcpgenai/bridge/mcpbridge/internal/result"
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
	// 100; a negative value means no limit.
	// [ServerStatus.ToolDescriptions] and the JSON form are never cut.
	DescriptionLimit int
}

// defaultDescriptionLimit is the description limit when
// [TextOptions.DescriptionLimit] is zero: 100 characters, so that a
// description and its tool's name fit on a line of a wide terminal.
const defaultDescriptionLimit = 100

// writeToolList writes the "Tools:" block of s with one tool per line.
func writeToolList(b *strings.Builder, s ServerStatus, limit int) {
	if len(s.Tools) == 0 {
		return
	}
	switch {
	case limit == 0:
		limit = defaultDescriptionLimit
	case limit < 0:
		limit = -1
	}
	b.WriteString("  Tools:\n")
	for _, name := range s.Tools {
		if d := result.OneLine(s.ToolDescriptions[name], limit); d != "" {
			fmt.Fprintf(b, "    - %s: %s\n", name, d)
		} else {
			fmt.Fprintf(b, "    - %s\n", name)
		}
	}
}
