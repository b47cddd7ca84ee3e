package mcpconn

import (
	"github.com/mark3labs/mcp-go/mcp"
)

// onFeatureNotification hands the notifications of the client features to
// the spec's callbacks: a log message (notifications/message), a
// subscribed resource's update, the resource list's change, and a URL
// elicitation's completion. It reports whether n was one of them.
func (c *Conn) onFeatureNotification(n mcp.JSONRPCNotification) bool {
	f := n.Params.AdditionalFields
	switch n.Method {
	case string(mcp.MethodNotificationMessage):
		level, _ := f["level"].(string)
		logger, _ := f["logger"].(string)
		if c.spec.OnLog != nil {
			c.spec.OnLog(mcp.LoggingLevel(level), logger, f["data"])
		} else {
			c.log.Debug("mcp server log message", "level", level, "logger", logger)
		}
	case string(mcp.MethodNotificationResourceUpdated):
		if uri, ok := f["uri"].(string); ok && uri != "" && c.spec.OnResourceUpdated != nil && c.live() {
			c.spec.OnResourceUpdated(uri)
		}
	case string(mcp.MethodNotificationResourcesListChanged):
		if c.spec.OnResourcesChanged != nil && c.live() {
			c.spec.OnResourcesChanged()
		}
	case string(mcp.MethodNotificationElicitationComplete):
		if id, ok := f["elicitationId"].(string); ok {
			c.elicitations.complete(id)
		}
	default:
		return false
	}
	return true
}
