package mcpbridge

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpgenai/bridge/mcpbridge/internal/serverlog"
)

// LogLevel is the severity of a server's log message, MCP's names for
// RFC 5424's levels. A message reaches [Options.Logger] at the slog level
// of its severity: debug at Debug, info at Info, notice at Info+2, warning
// at Warn, error at Error, critical, alert and emergency at Error+1,
// Error+2 and Error+3.
type LogLevel string

// The log levels, least severe first.
const (
	LogDebug     LogLevel = "debug"
	LogInfo      LogLevel = "info"
	LogNotice    LogLevel = "notice"
	LogWarning   LogLevel = "warning"
	LogError     LogLevel = "error"
	LogCritical  LogLevel = "critical"
	LogAlert     LogLevel = "alert"
	LogEmergency LogLevel = "emergency"
)

// logFor returns the connection's hook for the log messages of server: each
// goes to the Bridge's Logger (which redacts) with its data as the
// message, one clean line, and the attributes "server" (the configured
// name), "user" (for a connection of user's own) and "logger" (the
// server's, when it gave one).
func (b *Bridge) logFor(server, user string, ln *link) func(mcp.LoggingLevel, string, any) {
	return func(level mcp.LoggingLevel, logger string, data any) {
		l := serverlog.Level(string(level))
		ctx := context.Background()
		if !b.log.Enabled(ctx, l) {
			return
		}
		args := []any{"server", server}
		if user != "" && (ln == nil || !ln.common.Load()) {
			args = append(args, "user", user) // a shared connection's lines are no one user's
		}
		if logger != "" {
			args = append(args, "logger", serverlog.Text(logger))
		}
		b.log.Log(ctx, l, serverlog.Text(data), args...)
	}
}
