package mcpbridge

import (
	"fmt"
	"slices"

	"google.golang.org/genai"
)

// rejectKey identifies a rejected tool across renames.
type rejectKey struct{ server, tool string }

// reject drops the tools among names that a request declared for MCP
// tools (mcp maps its declared names to them), for the Bridge's lifetime,
// and reports each one. It returns the rejected tools; none means the 400
// blamed only the host's declarations (or nothing the Bridge sent), which
// cannot be healed.
func (b *Bridge) reject(mcp map[string]*Tool, names []string, apiErr genai.APIError) []DroppedTool {
	var out []DroppedTool
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, n := range names {
		t := mcp[n]
		if t == nil {
			continue
		}
		k := rejectKey{t.Server, t.ServerTool}
		if b.rejected == nil {
			b.rejected = map[rejectKey]DroppedTool{}
		}
		if _, dup := b.rejected[k]; dup {
			continue
		}
		rt := DroppedTool{Server: t.Server, ServerTool: t.ServerTool, Name: n, Reason: apiErr.Message}
		b.rejected[k] = rt
		out = append(out, rt)
		b.log.Warn("mcp tool dropped: the Gemini API rejected its declaration",
			"server", t.Server, "tool", t.ServerTool, "name", n, "err", apiErr.Message)
		b.emitLocked(Event{Kind: EventToolDropped, Server: t.Server, ServerTool: t.ServerTool,
			Err: fmt.Errorf("the Gemini API rejected the declaration of %q: %w", n, apiErr)})
	}
	return out
}

// isRejected reports whether t was rejected by the API. The caller holds
// b.mu.
func (b *Bridge) isRejectedLocked(t *Tool) bool {
	_, ok := b.rejected[rejectKey{t.Server, t.ServerTool}]
	return ok
}

// rejectedOf returns the rejected tools of server, sorted by tool. The
// caller holds b.mu.
func (b *Bridge) rejectedLocked(server string) []DroppedTool {
	var out []DroppedTool
	for k, rt := range b.rejected {
		if k.server == server {
			out = append(out, rt)
		}
	}
	slices.SortFunc(out, func(a, b DroppedTool) int {
		switch {
		case a.ServerTool < b.ServerTool:
			return -1
		case a.ServerTool > b.ServerTool:
			return 1
		}
		return 0
	})
	return out
}
