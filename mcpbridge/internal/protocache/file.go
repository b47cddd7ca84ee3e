package protocache

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpgenai/bridge/mcpbridge/store"
)

// file is a [store.Cache] in one JSON file, read on first use and written
// whenever an entry changes (a temporary file renamed over it, readable by
// the owner only). An unreadable file is an empty cache, with a warning.
type file struct {
	path string
	log  *slog.Logger

	mu      sync.Mutex
	loaded  bool
	entries map[string]store.Protocol
	tools   map[string]toolsEntry
}

// fileShape is the file's shape.
type fileShape struct {
	Servers map[string]store.Protocol `json:"servers"`
	Tools   map[string]toolsEntry     `json:"tools,omitempty"`
}

// toolsEntry is a tools list and when it goes stale.
type toolsEntry struct {
	// Until is when the list goes stale, in Unix milliseconds.
	Until int64 `json:"until"`
	// List holds each tool's JSON object as the server sent it.
	List []json.RawMessage `json:"list"`
}

// toolsName is the file's name of a tools list: the server's key, and the
// user's after a "|" for a list of one user.
func toolsName(k store.ToolsKey) string {
	if k.User == "" {
		return k.Server
	}
	return k.Server + "|" + k.User
}

func (f *file) LoadProtocol(_ context.Context, server string) (store.Protocol, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.loadLocked()
	return f.entries[server], nil
}

func (f *file) SaveProtocol(_ context.Context, server string, p store.Protocol) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.loadLocked()
	old, ok := f.entries[server]
	if ok && old == p || !ok && p == (store.Protocol{}) {
		return nil
	}
	if p == (store.Protocol{}) {
		delete(f.entries, server)
		for name := range f.tools {
			if name == server || strings.HasPrefix(name, server+"|") {
				delete(f.tools, name)
			}
		}
	} else {
		f.entries[server] = p
	}
	return f.saveLocked()
}

func (f *file) LoadTools(_ context.Context, key store.ToolsKey) (*store.ToolList, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.loadLocked()
	e, ok := f.tools[toolsName(key)]
	until := time.UnixMilli(e.Until)
	if !ok || !time.Now().Before(until) {
		return nil, nil
	}
	l := &store.ToolList{Until: until, Tools: make([]json.RawMessage, len(e.List))}
	for i, t := range e.List {
		l.Tools[i] = slices.Clone(t)
	}
	return l, nil
}

func (f *file) SaveTools(_ context.Context, key store.ToolsKey, l *store.ToolList) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.loadLocked()
	name := toolsName(key)
	_, had := f.tools[name]
	if l == nil || !time.Now().Before(l.Until) {
		if !had {
			return nil
		}
		delete(f.tools, name)
	} else {
		e := toolsEntry{Until: l.Until.UnixMilli(), List: make([]json.RawMessage, len(l.Tools))}
		for i, t := range l.Tools {
			e.List[i] = slices.Clone(t)
		}
		f.tools[name] = e
	}
	return f.saveLocked()
}

func (f *file) loadLocked() {
	if f.loaded {
		return
	}
	f.loaded = true
	f.entries = map[string]store.Protocol{}
	f.tools = map[string]toolsEntry{}
	b, err := os.ReadFile(f.path)
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	var shape fileShape
	if err == nil {
		err = json.Unmarshal(b, &shape)
	}
	if err != nil {
		f.log.Warn("mcpbridge: ignoring an unreadable protocol cache", "path", f.path, "err", err)
		return
	}
	for k, e := range shape.Servers {
		if e.Version != "" && !strings.ContainsAny(e.Version, "\x00\n") {
			f.entries[k] = e
		}
	}
	f.loadToolsLocked(shape.Tools)
}

// loadToolsLocked keeps the fresh, well-formed tools lists read from the
// file.
func (f *file) loadToolsLocked(read map[string]toolsEntry) {
	now := time.Now().UnixMilli()
	for k, e := range read {
		if e.Until <= now || !wellFormed(e.List) {
			continue
		}
		// The file is indented: take the objects back to one line each.
		for i, t := range e.List {
			var b bytes.Buffer
			if json.Compact(&b, t) == nil {
				e.List[i] = b.Bytes()
			}
		}
		f.tools[k] = e
	}
}

// saveLocked writes the entries to a temporary file beside the cache, then
// renames it over the cache, readable by the owner only.
func (f *file) saveLocked() error {
	b, err := json.MarshalIndent(fileShape{Servers: f.entries, Tools: f.tools}, "", "  ")
	if err != nil {
		return err
	}
	dir := filepath.Dir(f.path)
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
	if err := os.Rename(tmp.Name(), f.path); err != nil {
		_ = os.Remove(tmp.Name())
		return err
	}
	return nil
}
