package protocache

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpgenai/bridge/mcpbridge/internal/mcpconn"
	"github.com/mcpgenai/bridge/mcpbridge/store"
	"github.com/mcpgenai/bridge/mcpbridge/store/storetest"
)

func TestKey(t *testing.T) {
	tests := []struct {
		name string
		a, b []string
	}{
		{"different command", []string{"stdio", "node"}, []string{"stdio", "python"}},
		{"parts do not run together", []string{"ab", "c"}, []string{"a", "bc"}},
		{"one more empty part", []string{"stdio"}, []string{"stdio", ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if Key(tt.a...) == Key(tt.b...) {
				t.Errorf("Key(%q) = Key(%q), want different keys", tt.a, tt.b)
			}
		})
	}
	if a, b := Key("x", "y"), Key("x", "y"); a != b {
		t.Errorf("Key is not deterministic: %s then %s", a, b)
	}
}

// TestCacheRoundTrip: what one Cache puts, a later Cache over the same file
// gets; the file is private and holds no part of the key in clear; an empty
// version forgets.
func TestCacheRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "protocols.json")
	log := slog.New(slog.DiscardHandler)
	k1, k2 := Key("stdio", "secret-command"), Key("http", "https://example.test/?key=s3cret")

	c := New(path, log)
	c.Put(k1, "2025-11-25", mcpconn.Stdio)
	c.Put(k2, "2026-07-28", mcpconn.SSE)

	info, err := os.Stat(path)
	if err != nil {
		t.Fatalf("the cache was not written: %v", err)
	}
	if perm := info.Mode().Perm(); perm != 0o600 {
		t.Errorf("mode = %v, want 0600", perm)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, clear := range []string{"secret", "s3cret", "example"} {
		if bytes.Contains(data, []byte(clear)) {
			t.Errorf("file holds %q in clear:\n%s", clear, data)
		}
	}

	again := New(path, log)
	tests := []struct {
		key      string
		protocol string
		via      mcpconn.Kind
	}{
		{k1, "2025-11-25", 0}, // only sse and http are remembered as transports
		{k2, "2026-07-28", mcpconn.SSE},
		{Key("unknown"), "", 0},
	}
	for _, tt := range tests {
		if p, via := again.Get(tt.key); p != tt.protocol || via != tt.via {
			t.Errorf("Get(%s) = %q, %v; want %q, %v", tt.key, p, via, tt.protocol, tt.via)
		}
	}

	again.Put(k2, "", 0)
	if p, _ := New(path, log).Get(k2); p != "" {
		t.Errorf("after Put with an empty version, Get = %q, want it forgotten", p)
	}
}

// TestCacheUnreadable: a broken file is an empty cache, with a warning, and
// the next Put replaces it.
func TestCacheUnreadable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "protocols.json")
	if err := os.WriteFile(path, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	var logged bytes.Buffer
	c := New(path, slog.New(slog.NewTextHandler(&logged, nil)))
	if p, via := c.Get(Key("a")); p != "" || via != 0 {
		t.Errorf("Get on a broken file = %q, %v; want nothing", p, via)
	}
	if !strings.Contains(logged.String(), "unreadable protocol cache") {
		t.Errorf("log = %q, want a warning about the unreadable file", logged.String())
	}
	c.Put(Key("a"), "2025-06-18", mcpconn.StreamableHTTP)
	if p, via := New(path, slog.New(slog.DiscardHandler)).Get(Key("a")); p != "2025-06-18" || via != mcpconn.StreamableHTTP {
		t.Errorf("after Put: Get = %q, %v; want 2025-06-18 over streamable HTTP", p, via)
	}
}

func TestNilCache(t *testing.T) {
	c := New("", nil)
	if c != nil {
		t.Fatalf("New(\"\") = %v, want nil", c)
	}
	c.Put(Key("a"), "2025-06-18", mcpconn.SSE) // must not panic
	if p, via := c.Get(Key("a")); p != "" || via != 0 {
		t.Errorf("nil Cache Get = %q, %v; want nothing", p, via)
	}
}

// TestFileContract: the file keeps what store.Cache promises.
func TestFileContract(t *testing.T) {
	storetest.Cache(t, &file{path: filepath.Join(t.TempDir(), "p.json"), log: slog.New(slog.DiscardHandler)})
}

// TestShared: a Cache over a shared store.Cache puts what another Cache
// over the same store gets.
func TestShared(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	backend := store.NewMemory()
	k := Key("http", "https://example.test/mcp")
	Shared(backend, log).Put(k, "2026-07-28", mcpconn.StreamableHTTP)
	Shared(backend, log).PutTools(k, []json.RawMessage{json.RawMessage(`{"name":"a"}`)}, time.Now().Add(time.Hour))
	c := Shared(backend, log)
	if p, via := c.Get(k); p != "2026-07-28" || via != mcpconn.StreamableHTTP {
		t.Errorf("Get = %q, %v; want 2026-07-28 over streamable HTTP", p, via)
	}
	if l, _ := c.Tools(k, time.Now()); len(l) != 1 {
		t.Errorf("Tools = %s; want the list", l)
	}
	if Shared(nil, log) != nil {
		t.Error("Shared(nil) is not nil")
	}
}
