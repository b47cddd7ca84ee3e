package mcpbridge

import "github.com/mcpgenai/bridge/mcpbridge/internal/mcpconn"

// On 2026-07-28 tasks are the io.modelcontextprotocol/tasks extension: the
// Bridge declares it on every request, and the server alone decides which
// calls become tasks, whatever the tool (the revision has no
// execution.taskSupport). Every call of such a server is therefore run
// like a task tool's: each request bounded by the server's Timeout, the
// whole call by its MaxCallTime, so that a call the server turned into a
// long task is not cut off at Timeout.

// markTasks marks defs, listed over conn, as tools any call of which may
// become a task when conn speaks 2026-07-28.
func markTasks(defs []*toolDef, conn *mcpconn.Conn) {
	if !mcpconn.IsModern(conn.ProtocolVersion()) {
		return
	}
	for _, d := range defs {
		d.anyTask = true
	}
}
