package mcpconn

import (
	"context"
	"io"
	"log/slog"

	"github.com/mark3labs/mcp-go/client/transport"
)

// mcp-go's transports log their own troubles (a line they could not
// read, an answer they could not write). The stdio transport that
// transport.NewIO builds logs to slog.Default(), which belongs to the host
// program: whatever Spec.Logger is, a host's terminal would get mcp-go's
// records. Every transport is therefore given the connection's logger
// (libLogger), and nothing of mcp-go's reaches slog.Default(). The same
// goes for the one record mcp-go's client writes itself (a tool dropped
// for bad x-mcp-header annotations): the tap keeps such a tool from it
// (see dropBadHeaderTools).
//
// A record written once the connection is closing or dead (an answer to
// the server's roots/list written after Close closed its stdin, say)
// tells the host nothing it can act on: it is logged at debug level.

// libLogger is the logger the transports of c log to.
func (c *Conn) libLogger() *slog.Logger {
	return slog.New(&libHandler{inner: c.log.Handler(), c: c})
}

// libHandler passes mcp-go's records to the connection's logger, at debug
// level once the connection has ended.
type libHandler struct {
	inner slog.Handler
	c     *Conn
}

func (h *libHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.inner.Enabled(ctx, l) || h.inner.Enabled(ctx, slog.LevelDebug)
}

func (h *libHandler) Handle(ctx context.Context, r slog.Record) error {
	if r.Level > slog.LevelDebug && !h.c.running() {
		r.Level = slog.LevelDebug
	}
	if !h.inner.Enabled(ctx, r.Level) {
		return nil
	}
	return h.inner.Handle(ctx, r)
}

func (h *libHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &libHandler{inner: h.inner.WithAttrs(attrs), c: h.c}
}

func (h *libHandler) WithGroup(name string) slog.Handler {
	return &libHandler{inner: h.inner.WithGroup(name), c: h.c}
}

// running reports whether c is neither closing nor dead.
func (c *Conn) running() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return !c.closing && c.err == nil
}

// newStdio returns mcp-go's stdio transport over in and out, logging to
// the connection's logger (transport.NewIO itself would log to
// slog.Default()).
func (c *Conn) newStdio(in io.Reader) *transport.Stdio {
	t := transport.NewIO(in, c.spec.stdinFor(c.proc.stdin), nil)
	transport.WithCommandLogger(c.libLogger())(t)
	return t
}
