package mcpconn

import (
	"context"
	"errors"
	"fmt"

	"github.com/mark3labs/mcp-go/client/transport"
)

// dialAuto connects to a URL whose transport is not known, as the MCP
// specification's backwards-compatibility rules say: streamable HTTP
// first; when the server answers that with HTTP 4xx, it is an older server
// of the HTTP+SSE transport, and the SSE handshake follows. Any other
// failure is final: nothing waits for an SSE endpoint that may never come.
func dialAuto(ctx context.Context, s Spec) (*Conn, error) {
	c, err := dial(ctx, s, StreamableHTTP)
	if err == nil || ctx.Err() != nil || !errors.Is(err, transport.ErrLegacySSEServer) {
		return c, err
	}
	c2, err2 := dial(ctx, s, SSE)
	if err2 != nil {
		return nil, fmt.Errorf("%w; SSE: %w", err, err2)
	}
	c2.log.Debug("mcp server refused streamable HTTP; using SSE", "httpError", err)
	return c2, nil
}
