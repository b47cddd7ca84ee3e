package mcpconn

import (
	"context"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// mcp-go tells the server that a request was cancelled (its context ended
// before the answer) only over stdio. Over SSE the answer comes on another
// stream, so closing the request's POST tells the server nothing; over
// streamable HTTP before 2026-07-28 the specification says a dropped
// connection is not a cancellation. In both cases the taps call
// cancelled, which sends notifications/cancelled. On 2026-07-28 over
// streamable HTTP, ending the request's stream is the cancellation, and
// nothing more is sent.

// cancelNoticeTimeout bounds sending one notifications/cancelled.
const cancelNoticeTimeout = 5 * time.Second

// cancelled tells the server, in the background, that req was cancelled
// for reason. It does nothing for requests that must not be cancelled
// (initialize, server/discover), on a 2026-07-28
// streamable-HTTP connection, and once the connection is closing or dead.
func (c *Conn) cancelled(req transport.JSONRPCRequest, reason error) {
	switch mcp.MCPMethod(req.Method) {
	case mcp.MethodInitialize, mcp.MethodServerDiscover:
		return
	}
	if c.kind == StreamableHTTP && IsModern(c.client.ProtocolVersion()) {
		return
	}
	c.mu.Lock()
	if c.closing || c.err != nil {
		c.mu.Unlock()
		return
	}
	c.wg.Add(1) // under mu: Close waits only after setting closing
	c.notes.Add(1)
	c.mu.Unlock()
	n := mcp.JSONRPCNotification{
		JSONRPC: mcp.JSONRPC_VERSION,
		Notification: mcp.Notification{
			Method: string(mcp.MethodNotificationCancelled),
			Params: mcp.NotificationParams{AdditionalFields: map[string]any{
				"requestId": req.ID,
				"reason":    reason.Error(),
			}},
		},
	}
	go func() {
		defer c.wg.Done()
		defer c.notes.Done()
		// Not c.alive: Close ends that first, and the notice of a stream
		// Close ended must still go out.
		ctx, cancel := context.WithTimeout(c.life, cancelNoticeTimeout)
		defer cancel()
		if err := c.client.GetTransport().SendNotification(ctx, n); err != nil {
			c.log.Debug("sending notifications/cancelled failed", "err", err)
		}
	}()
}
