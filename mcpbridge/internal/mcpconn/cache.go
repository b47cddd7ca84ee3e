package mcpconn

import (
	"bytes"
	"encoding/json"
	"math"
	"time"
)

// From 2026-07-28 a server says how long a list stays fresh (ttlMs) and
// whether it is the same for every user (cacheScope "public") or not
// ("private"). The connection reads the hint of tools/list; keeping the
// list is the caller's business (see [Conn.ToolsFresh], [DecodeTools]).

// cacheHint is the caching hint of one listing, over all its pages.
type cacheHint struct {
	at     time.Time     // when the listing began
	ttl    time.Duration // the least ttlMs of the pages; -1 before the first page, 0 = stale
	public bool          // every page said "public"
}

// maxCacheTTL bounds how long a list is kept, whatever the server says.
const maxCacheTTL = 24 * time.Hour

// add counts one page's ttlMs and cacheScope: a page without a valid ttlMs
// makes the whole listing stale at once.
func (h *cacheHint) add(ttlMs, scope json.RawMessage) {
	var ms float64
	var d time.Duration
	if json.Unmarshal(ttlMs, &ms) == nil && len(ttlMs) > 0 && string(ttlMs) != "null" && ms > 0 && !math.IsInf(ms, 0) {
		d = min(time.Duration(min(ms, float64(maxCacheTTL/time.Millisecond)))*time.Millisecond, maxCacheTTL)
	}
	if h.ttl < 0 || d < h.ttl {
		h.ttl = d
	}
	var sc string
	if json.Unmarshal(scope, &sc) != nil || sc != "public" {
		h.public = false
	}
}

// ToolsFresh returns until when the tools of the last successful ListTools
// may be used without listing again, as their 2026-07-28 server said
// (ttlMs, at most a day, counted from when the listing began), and whether
// the server marked them public (the same for every user). It returns the
// zero time when they may not be kept: a server before 2026-07-28, a
// ttlMs absent or 0 on any page, or no listing yet.
func (c *Conn) ToolsFresh() (until time.Time, public bool) {
	if !IsModern(c.ProtocolVersion()) {
		return time.Time{}, false
	}
	c.mu.Lock()
	h := c.toolsHint
	c.mu.Unlock()
	if h.ttl <= 0 {
		return time.Time{}, false
	}
	return h.at.Add(h.ttl), h.public
}

// DecodeTools decodes tools kept from an earlier listing (each tool's JSON
// object, as in [Tool.Raw]) the way ListTools does: tools without a name,
// nested too deeply, listed twice or not objects are left out.
func DecodeTools(raws []json.RawMessage) []Tool {
	tools := make([]Tool, 0, len(raws))
	seen := map[string]bool{}
	for _, r := range raws {
		if _, deep := tooDeep(r); deep {
			continue
		}
		if out, err := cutDeep(r, MaxDepth); err != nil || !bytes.Equal(out, r) {
			continue // nests deeper than MaxDepth
		}
		t, err := decodeTool(r)
		if err != nil || t.Name == "" || seen[t.Name] {
			continue
		}
		seen[t.Name] = true
		tools = append(tools, t)
	}
	return tools
}
