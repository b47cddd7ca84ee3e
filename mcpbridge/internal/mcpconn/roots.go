package mcpconn

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
)

// A host offers roots (the directories or files a server may work in) by
// setting Spec.Roots. mcp-go then declares the roots capability (with
// listChanged) and asks rootsHandler on the server's roots/list, or, on
// 2026-07-28, for a roots input request of a multi round-trip result.

// rootsHandler answers roots/list from Spec.Roots.
type rootsHandler struct{ c *Conn }

// ListRoots implements mcp-go's client.RootsHandler.
func (h rootsHandler) ListRoots(ctx context.Context, _ mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	if err := h.c.admit(ctx, AskRoots); err != nil {
		return nil, err
	}
	roots, err := h.c.spec.Roots(ctx)
	if err != nil {
		return nil, err
	}
	if roots == nil {
		roots = []mcp.Root{}
	}
	return &mcp.ListRootsResult{Roots: roots}, nil
}

// RootsChanged tells the server that the roots changed
// (notifications/roots/list_changed), so that it asks for them again. On
// 2026-07-28, where a server asks for the roots within each request that
// needs them, and on a connection that offers no roots, it sends nothing.
func (c *Conn) RootsChanged(ctx context.Context) error {
	if c.spec.Roots == nil || IsModern(c.ProtocolVersion()) {
		return nil
	}
	if err := c.Err(); err != nil {
		return c.wrap(string(mcp.MethodNotificationRootsListChanged), err)
	}
	if err := c.client.RootListChanges(ctx); err != nil {
		return c.wrap(string(mcp.MethodNotificationRootsListChanged), err)
	}
	return nil
}
