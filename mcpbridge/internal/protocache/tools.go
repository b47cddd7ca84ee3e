package protocache

import (
	"bytes"
	"encoding/json"
	"time"
)

// A server of protocol 2026-07-28 says how long its tools/list stays fresh
// (ttlMs). A list it marked public (the same for every user, so no
// credential decides what is in it) is kept here, beside the server's era,
// until that time, so that a later run may use it instead of listing again.

// MaxToolsBytes bounds the tools list kept for one server; a longer one is
// not kept.
const MaxToolsBytes = 1 << 20

// toolsEntry is a server's tools list and when it goes stale.
type toolsEntry struct {
	// Until is when the list goes stale, in Unix milliseconds.
	Until int64 `json:"until"`
	// List holds each tool's JSON object as the server sent it.
	List []json.RawMessage `json:"list"`
}

// Tools returns the tools list kept for key while it is fresh at now, each
// tool's JSON object as the server sent it, and when it goes stale; nil
// when there is none or it is stale. The caller must not modify the list.
func (c *Cache) Tools(key string, now time.Time) ([]json.RawMessage, time.Time) {
	if c == nil {
		return nil, time.Time{}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.loadLocked()
	e, ok := c.tools[key]
	until := time.UnixMilli(e.Until)
	if !ok || !now.Before(until) {
		return nil, time.Time{}
	}
	return e.List, until
}

// PutTools keeps list as the tools list of the server with key until the
// given time, or forgets the server's list when list is nil or until has
// passed, and writes the file when that changed anything. A list larger
// than MaxToolsBytes is not kept.
func (c *Cache) PutTools(key string, list []json.RawMessage, until time.Time) {
	if c == nil {
		return
	}
	size := 0
	for _, t := range list {
		size += len(t)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.loadLocked()
	_, had := c.tools[key]
	if list == nil || !time.Now().Before(until) || size > MaxToolsBytes {
		if !had {
			return
		}
		delete(c.tools, key)
	} else {
		c.tools[key] = toolsEntry{Until: until.UnixMilli(), List: list}
	}
	if err := c.saveLocked(); err != nil {
		c.log.Warn("mcpbridge: writing the protocol cache failed", "path", c.path, "err", err)
	}
}

// loadToolsLocked keeps the fresh, well-formed tools lists read from the
// file.
func (c *Cache) loadToolsLocked(read map[string]toolsEntry) {
	now := time.Now().UnixMilli()
	for k, e := range read {
		size := 0
		ok := e.Until > now
		for _, t := range e.List {
			size += len(t)
			ok = ok && json.Valid(t) && len(t) > 0 && t[0] == '{'
		}
		if !ok || size > MaxToolsBytes {
			continue
		}
		// The file is indented: take the objects back to one line each.
		for i, t := range e.List {
			var b bytes.Buffer
			if json.Compact(&b, t) == nil {
				e.List[i] = b.Bytes()
			}
		}
		c.tools[k] = e
	}
}
