package mcpbridge

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

// protoCache keeps, across runs, the protocol revision and transport each
// server was last reached with ([Options.ProtocolCache]), so that the first
// connection of a run skips the detection as a reconnect does. Entries are
// keyed by a hash of how the server is reached (transport, command line,
// working directory, URL), never by anything secret in clear; the file
// holds no header or environment value. A missing or unreadable file is an
// empty cache; a failed write is logged. Safe for concurrent use.
type protoCache struct {
	path string
	log  *slog.Logger

	mu      sync.Mutex
	loaded  bool
	entries map[string]protoEntry
}

// protoEntry is what the cache remembers of one server.
type protoEntry struct {
	Protocol  string `json:"protocol"`
	Transport string `json:"transport"`
}

// protoCacheFile is the file's shape.
type protoCacheFile struct {
	Servers map[string]protoEntry `json:"servers"`
}

func newProtoCache(path string, log *slog.Logger) *protoCache {
	if path == "" {
		return nil
	}
	return &protoCache{path: path, log: log}
}

// protoKey identifies how cfg reaches its server.
func protoKey(cfg *ServerConfig) string {
	h := sha256.New()
	for _, s := range append([]string{string(cfg.transport()), string(cfg.Type), cfg.Command, cfg.Cwd, cfg.endpoint()}, cfg.Args...) {
		fmt.Fprintf(h, "%d:%s;", len(s), s)
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// get returns the remembered protocol version and transport of cfg; ""
// and 0 when none.
func (c *protoCache) get(cfg *ServerConfig) (string, mcpconn.Kind) {
	if c == nil {
		return "", 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.loadLocked()
	e, ok := c.entries[protoKey(cfg)]
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

// put remembers cfg's protocol version and transport (an empty version
// forgets it) and writes the file when that changed anything.
func (c *protoCache) put(cfg *ServerConfig, protocol string, via mcpconn.Kind) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.loadLocked()
	k := protoKey(cfg)
	e := protoEntry{Protocol: protocol, Transport: via.String()}
	if old, ok := c.entries[k]; ok && old == e || !ok && protocol == "" {
		return
	}
	if protocol == "" {
		delete(c.entries, k)
	} else {
		c.entries[k] = e
	}
	if err := c.saveLocked(); err != nil {
		c.log.Warn("mcpbridge: writing the protocol cache failed", "path", c.path, "err", err)
	}
}

func (c *protoCache) loadLocked() {
	if c.loaded {
		return
	}
	c.loaded = true
	c.entries = map[string]protoEntry{}
	b, err := os.ReadFile(c.path)
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	var f protoCacheFile
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
}

// saveLocked writes the entries to a temporary file beside the cache, then
// renames it over the cache, readable by the owner only.
func (c *protoCache) saveLocked() error {
	b, err := json.MarshalIndent(protoCacheFile{Servers: c.entries}, "", "  ")
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
