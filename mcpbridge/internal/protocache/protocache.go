// Package protocache remembers, in a small JSON file, the protocol
// revision and transport each MCP server was last reached with, so that the
// first connection of a later run can skip the detection. Entries are keyed
// by a hash ([Key]) of how a server is reached, never by anything in clear;
// the file holds no header, environment value or URL.
package protocache

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/mcpgenai/bridge/mcpbridge/internal/mcpconn"
)

// Cache keeps, across runs, the protocol revision and transport each
// server was last reached with. A missing or unreadable file is an empty
// cache; a failed write is logged. A nil *Cache remembers nothing. A Cache
// is safe for concurrent use.
type Cache struct {
	path string
	log  *slog.Logger

	mu      sync.Mutex
	loaded  bool
	entries map[string]entry
	tools   map[string]toolsEntry
}

// entry is what the cache remembers of one server.
type entry struct {
	Protocol  string `json:"protocol"`
	Transport string `json:"transport"`
}

// file is the file's shape.
type file struct {
	Servers map[string]entry      `json:"servers"`
	Tools   map[string]toolsEntry `json:"tools,omitempty"`
}

// New returns the cache kept in the file at path, read on first use and
// written (readable by the owner only) whenever an entry changes; warnings
// go to log, which must not be nil. New returns nil when path is "".
func New(path string, log *slog.Logger) *Cache {
	if path == "" {
		return nil
	}
	return &Cache{path: path, log: log}
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
	c.mu.Lock()
	defer c.mu.Unlock()
	c.loadLocked()
	e, ok := c.entries[key]
	if !ok {
		return "", 0
	}
	var via mcpconn.Kind
	switch e.Transport {
	case "sse":
		via = mcpconn.SSE
	case "http":
		via = mcpconn.StreamableHTTP
	}
	return e.Protocol, via
}

// Put remembers the protocol version and transport of the server with key
// (an empty version forgets it) and writes the file when that changed
// anything.
func (c *Cache) Put(key, protocol string, via mcpconn.Kind) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.loadLocked()
	k := key
	e := entry{Protocol: protocol, Transport: via.String()}
	if old, ok := c.entries[k]; ok && old == e || !ok && protocol == "" {
		return
	}
	if protocol == "" {
		delete(c.entries, k)
		delete(c.tools, k)
	} else {
		c.entries[k] = e
	}
	if err := c.saveLocked(); err != nil {
		c.log.Warn("mcpbridge: writing the protocol cache failed", "path", c.path, "err", err)
	}
}

func (c *Cache) loadLocked() {
	if c.loaded {
		return
	}
	c.loaded = true
	c.entries = map[string]entry{}
	c.tools = map[string]toolsEntry{}
	b, err := os.ReadFile(c.path)
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	var f file
	if err == nil {
		err = json.Unmarshal(b, &f)
	}
	if err != nil {
		c.log.Warn("mcpbridge: ignoring an unreadable protocol cache", "path", c.path, "err", err)
		return
	}
	for k, e := range f.Servers {
		if e.Protocol != "" && !strings.ContainsAny(e.Protocol, "\x00\n") {
			c.entries[k] = e
		}
	}
	c.loadToolsLocked(f.Tools)
}

// saveLocked writes the entries to a temporary file beside the cache, then
// renames it over the cache, readable by the owner only.
func (c *Cache) saveLocked() error {
	b, err := json.MarshalIndent(file{Servers: c.entries, Tools: c.tools}, "", "  ")
	if err != nil {
		return err
	}
	dir := filepath.Dir(c.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".mcpbridge-protocols-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(append(b, '\n'))
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		_ = os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), c.path); err != nil {
		_ = os.Remove(tmp.Name())
		return err
	}
	return nil
}
