// Package protocache remembers the protocol revision and transport each
// MCP server was last reached with, so that the first connection of a
// later run (or of another replica) can skip the detection, and the tools
// lists servers say stay fresh for a while. It keeps them in a small JSON
// file ([New]) or in a [store.Cache] shared by a service's replicas
// ([Shared]). Entries are keyed by a hash ([Key]) of how a server is
// reached, never by anything in clear: the file holds no header,
// environment value or URL.
package protocache

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"time"

	"github.com/mcpgenai/bridge/mcpbridge/internal/mcpconn"
	"github.com/mcpgenai/bridge/mcpbridge/store"
)

// Cache keeps, across runs, the protocol revision and transport each
// server was last reached with. An entry that cannot be read is no entry;
// a failed write is logged. A nil *Cache remembers nothing. A Cache is
// safe for concurrent use.
type Cache struct {
	backend store.Cache
	log     *slog.Logger
}

// backendTimeout bounds each request to the backend: a cache that does
// not answer costs a detection, not a stuck connection.
const backendTimeout = 5 * time.Second

// New returns the cache kept in the file at path, read on first use and
// written (readable by the owner only) whenever an entry changes; warnings
// go to log, which must not be nil. New returns nil when path is "".
func New(path string, log *slog.Logger) *Cache {
	if path == "" {
		return nil
	}
	return &Cache{backend: &file{path: path, log: log}, log: log}
}

// Shared returns the cache kept in backend; warnings go to log, which
// must not be nil. Shared returns nil when backend is nil.
func Shared(backend store.Cache, log *slog.Logger) *Cache {
	if backend == nil {
		return nil
	}
	return &Cache{backend: backend, log: log}
}

// Key returns the key of a server reached the way parts say (its
// transport, command line, working directory, URL ...): a hash, so that
// nothing of parts appears in the file. Different lists of parts give
// different keys.
func Key(parts ...string) string {
	h := sha256.New()
	for _, s := range parts {
		fmt.Fprintf(h, "%d:%s;", len(s), s)
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// Get returns the remembered protocol version and transport of the server
// with key; "" and 0 when none.
func (c *Cache) Get(key string) (string, mcpconn.Kind) {
	if c == nil {
		return "", 0
	}
	ctx, cancel := context.WithTimeout(context.Background(), backendTimeout)
	defer cancel()
	p, err := c.backend.LoadProtocol(ctx, key)
	if err != nil {
		c.log.Warn("mcpbridge: reading the protocol cache failed", "err", err)
		return "", 0
	}
	var via mcpconn.Kind
	switch p.Transport {
	case "sse":
		via = mcpconn.SSE
	case "http":
		via = mcpconn.StreamableHTTP
	}
	return p.Version, via
}

// Put remembers the protocol version and transport of the server with key
// (an empty version forgets it, and its tools lists).
func (c *Cache) Put(key, protocol string, via mcpconn.Kind) {
	if c == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), backendTimeout)
	defer cancel()
	p := store.Protocol{Version: protocol, Transport: via.String()}
	if protocol == "" {
		p = store.Protocol{}
	}
	if err := c.backend.SaveProtocol(ctx, key, p); err != nil {
		c.log.Warn("mcpbridge: writing the protocol cache failed", "err", err)
	}
}
