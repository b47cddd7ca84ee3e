package mcpbridge

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcpgenai/bridge/mcpbridge/internal/mcpconn"
)

// DroppedTool is a tool of a server that the Bridge left out, and why,
// while the server's other tools stay usable. A tool is dropped in one of
// two ways:
//
//   - skipped when listed ([ServerStatus.Skipped]): its JSON nested too
//     deeply to decode safely, it was not an object, it had no name, its
//     name was listed twice, or (over streamable HTTP at 2026-07-28) its
//     x-mcp-header annotations break the protocol's rules;
//   - rejected by the Gemini API ([ServerStatus.Rejected],
//     [RequestReport.Rejected]): a 400 answer blamed its declaration, so
//     [Declarations.Heal] dropped it and [Bridge.Declare] leaves it out of
//     every later request of the Bridge (the request is sent once more
//     without it).
//
// Either way an [EventToolDropped] reports it when it is first dropped.
type DroppedTool struct {
	// Server is the name of the server that offers the tool.
	Server string `json:"server"`
	// ServerTool is the server's name of the tool; "" when the listing
	// gave it none.
	ServerTool string `json:"tool"`
	// Name is the function name the tool was declared under; "" for a tool
	// skipped when listed, which was never declared.
	Name string `json:"name,omitempty"`
	// Reason says why, as in "schema nests deeper than 2000 levels", or
	// the API's error message as it gave it (redacted in a status).
	Reason string `json:"reason"`
}

// String returns "tool (reason)", with "(no name)" for a tool without one.
func (t DroppedTool) String() string {
	name := t.ServerTool
	if name == "" {
		name = "(no name)"
	}
	return name + " (" + t.Reason + ")"
}

// skippedOf returns the tools of conn's last listing that were skipped and
// that cfg's include and exclude lists would have allowed.
func skippedOf(cfg *ServerConfig, conn *mcpconn.Conn) []DroppedTool {
	var out []DroppedTool
	for _, t := range conn.Skipped() {
		if t.Name != "" && !cfg.allowsTool(t.Name) {
			continue
		}
		out = append(out, DroppedTool{Server: cfg.Name, ServerTool: t.Name, Reason: t.Reason})
	}
	return out
}

// setSkippedLocked records the skipped tools of s's latest listing and
// emits an [EventToolDropped] for each one not skipped by the listing
// before. The caller holds b.mu.
func (b *Bridge) setSkippedLocked(s *server, skipped []DroppedTool) {
	for _, t := range skipped {
		if slices.Contains(s.skipped, t) {
			continue
		}
		b.emitLocked(Event{Kind: EventToolDropped, Server: s.cfg.Name, User: s.user, ServerTool: t.ServerTool,
			Err: fmt.Errorf("mcp server %q: tool %q skipped: %s", s.cfg.Name, t.ServerTool, t.Reason)})
	}
	s.skipped = skipped
}

// skippedText joins skipped for the status text.
func skippedText(skipped []DroppedTool) string {
	parts := make([]string, len(skipped))
	for i, t := range skipped {
		parts[i] = t.String()
	}
	return strings.Join(parts, ", ")
}
