package mcpbridge

import (
	"slices"
)

// A tool whose execution.taskSupport is "required" runs only as an MCP
// task: its server says it takes long. Such a tool is treated as long
// without the host naming it: declared NON_BLOCKING in a Live session
// ([LiveOptions.Blocking] opts out) and run in the background by
// [Bridge.Run] and [Bridge.RunStream] when the run has [LongCalls]
// ([LongCalls.Foreground] opts out). A tool whose taskSupport is
// "optional" may answer at once, so it is treated as any other: name it
// to make it long.

// taskRequired reports whether the function name, as the model calls it
// in a request with declarations req and host functions h, is a Bridge
// tool that runs only as a task. A host function of that name is not.
func (b *Bridge) taskRequired(h *hostSet, req *request, name string) bool {
	if h != nil && h.has(name) {
		return false
	}
	var t *Tool
	if req != nil {
		t = req.mcp[name]
	}
	if t == nil {
		t, _ = b.Tool(name)
	}
	return t != nil && t.def != nil && t.def.raw.TaskSupport == "required"
}

// isLong reports whether a call of name runs in the background: it is one
// of Names, or a tool that runs only as a task (task) and not one of
// Foreground.
func (l *LongCalls) isLong(name string, task bool) bool {
	if l == nil {
		return false
	}
	return slices.Contains(l.Names, name) || task && !slices.Contains(l.Foreground, name)
}
