package protocache

import (
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpgenai/bridge/mcpbridge/internal/mcpconn"
)

// TestToolsRoundTrip: a fresh tools list kept by one Cache is read by a
// later one over the same file; a stale, oversized or forgotten list is
// not; forgetting the era forgets the list; a broken entry in the file is
// ignored, the rest kept.
func TestToolsRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "protocols.json")
	log := slog.New(slog.DiscardHandler)
	k, stale, big := Key("http", "a"), Key("http", "b"), Key("http", "c")
	list := []json.RawMessage{json.RawMessage(`{"name":"echo","inputSchema":{"type":"object"}}`)}
	until := time.Now().Add(time.Hour)

	c := New(path, log)
	c.Put(k, "2026-07-28", mcpconn.StreamableHTTP)
	c.PutTools(k, list, until)
	c.PutTools(stale, list, time.Now().Add(-time.Second))
	c.PutTools(big, []json.RawMessage{json.RawMessage(`{"d":"` + strings.Repeat("x", MaxToolsBytes) + `"}`)}, until)

	d := New(path, log)
	got, gotUntil := d.Tools(k, time.Now())
	if len(got) != 1 || string(got[0]) != string(list[0]) || gotUntil.UnixMilli() != until.UnixMilli() {
		t.Errorf("Tools(k) = %s until %v, want the list until %v", got, gotUntil, until)
	}
	if got, _ := d.Tools(k, until.Add(time.Millisecond)); got != nil {
		t.Errorf("Tools(k) after it went stale = %s, want nil", got)
	}
	for _, key := range []string{stale, big} {
		if got, _ := d.Tools(key, time.Now()); got != nil {
			t.Errorf("Tools(%s) = %s, want nil", key, got)
		}
	}

	d.Put(k, "", 0)
	if got, _ := New(path, log).Tools(k, time.Now()); got != nil {
		t.Errorf("Tools(k) after the era was forgotten = %s, want nil", got)
	}

	// A hand-broken file: the bad entry goes, the good one stays.
	raw := `{"servers":{},"tools":{"good":{"until":` + jsonInt(until.UnixMilli()) + `,"list":[{"name":"a"}]},"bad":{"until":` + jsonInt(until.UnixMilli()) + `,"list":["not an object"]}}}`
	if err := os.WriteFile(path, []byte(raw), 0o600); err != nil {
		t.Fatal(err)
	}
	e := New(path, log)
	if got, _ := e.Tools("good", time.Now()); len(got) != 1 {
		t.Errorf("Tools(good) = %s, want its list", got)
	}
	if got, _ := e.Tools("bad", time.Now()); got != nil {
		t.Errorf("Tools(bad) = %s, want nil", got)
	}
}

func jsonInt(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}
