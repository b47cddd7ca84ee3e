package mcpbridge

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcpgenai/bridge/mcpbridge/internal/mcpconn"
)

// SkippedTool is a tool a server listed that the Bridge could not use and
// left out, while the server's other tools registered: its JSON nested too
// deeply to decode safely, it was not an object, it had no name, or its name
// was listed twice. It is reported in [ServerStatus.Skipped] and, when first
// seen, in an [EventToolSkipped] event.
type SkippedTool struct {
	// Name is the server's name of the tool; "" when it had none.
	Name string `json:"name"`
	// Reason says why, as in "schema nests deeper than 2000 levels".
	Reason string `json:"reason"`
}

// String returns "name (reason)", with "(no name)" for a tool without one.
func (t SkippedTool) String() string {
	name := t.Name
	if name == "" {
		name = "(no name)"
	}
	return name + " (" + t.Reason + ")"
}

// skippedOf returns the tools of conn's last listing that were skipped and
// that cfg's include and exclude lists would have allowed.
func skippedOf(cfg *ServerConfig, conn *mcpconn.Conn) []SkippedTool {
	var out []SkippedTool
	for _, t := range conn.Skipped() {
		if t.Name != "" && !cfg.allowsTool(t.Name) {
			continue
		}
		out = append(out, SkippedTool{Name: t.Name, Reason: t.Reason})
	}
	return out
}

// setSkippedLocked records the skipped tools of s's latest listing and
// emits an [EventToolSkipped] for each one not skipped by the listing
// before. The caller holds b.mu.
func (b *Bridge) setSkippedLocked(s *server, skipped []SkippedTool) {
	for _, t := range skipped {
		if slices.Contains(s.skipped, t) {
			continue
		}
		b.emitLocked(Event{Kind: EventToolSkipped, Server: s.cfg.Name, ServerTool: t.Name,
			Err: fmt.Errorf("mcp server %q: tool %q skipped: %s", s.cfg.Name, t.Name, t.Reason)})
	}
	s.skipped = skipped
}

// skippedText joins skipped for the status text.
func skippedText(skipped []SkippedTool) string {
	parts := make([]string, len(skipped))
	for i, t := range skipped {
		parts[i] = t.String()
	}
	return strings.Join(parts, ", ")
}
