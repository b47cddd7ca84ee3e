package protocache

import (
	"context"
	"encoding/json"
	"time"

	"github.com/mcpgenai/bridge/mcpbridge/store"
)

// A server of protocol 2026-07-28 says how long its tools/list stays fresh
// (ttlMs). A list it marked public (the same for every user, so no
// credential decides what is in it) is kept here, beside the server's era,
// until that time, so that a later run may use it instead of listing again.

// MaxToolsBytes bounds the tools list kept for one server; a longer one is
// not kept.
const MaxToolsBytes = 1 << 20

// Tools returns the public tools list kept for key while it is fresh at
// now, each tool's JSON object as the server sent it, and when it goes
// stale; nil when there is none or it is stale. The caller must not
// modify the list.
func (c *Cache) Tools(key string, now time.Time) ([]json.RawMessage, time.Time) {
	if c == nil {
		return nil, time.Time{}
	}
	ctx, cancel := context.WithTimeout(context.Background(), backendTimeout)
	defer cancel()
	l, err := c.backend.LoadTools(ctx, store.ToolsKey{Server: key})
	if err != nil {
		c.log.Warn("mcpbridge: reading the protocol cache failed", "err", err)
		return nil, time.Time{}
	}
	if l == nil || !now.Before(l.Until) || !wellFormed(l.Tools) {
		return nil, time.Time{}
	}
	return l.Tools, l.Until
}

// PutTools keeps list as the public tools list of the server with key
// until the given time, or forgets the server's list when list is nil or
// until has passed. A list larger than MaxToolsBytes is not kept.
func (c *Cache) PutTools(key string, list []json.RawMessage, until time.Time) {
	if c == nil {
		return
	}
	size := 0
	for _, t := range list {
		size += len(t)
	}
	var l *store.ToolList
	if list != nil && time.Now().Before(until) && size <= MaxToolsBytes {
		l = &store.ToolList{Tools: list, Until: until}
	}
	ctx, cancel := context.WithTimeout(context.Background(), backendTimeout)
	defer cancel()
	if err := c.backend.SaveTools(ctx, store.ToolsKey{Server: key}, l); err != nil {
		c.log.Warn("mcpbridge: writing the protocol cache failed", "err", err)
	}
}

// wellFormed reports whether list is one a server could have sent: every
// entry a JSON object, MaxToolsBytes at most in all.
func wellFormed(list []json.RawMessage) bool {
	size := 0
	for _, t := range list {
		size += len(t)
		if !json.Valid(t) || len(t) == 0 || t[0] != '{' {
			return false
		}
	}
	return size <= MaxToolsBytes
}
