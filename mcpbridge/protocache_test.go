package mcpbridge

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
)

// TestProtocolCache: with Options.ProtocolCache, a second run reaches a
// legacy server that ignores server/discover without probing it, and a
// url without type straight over the transport found the first time; the
// file is private and holds nothing of the configuration in clear.
func TestProtocolCache(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "protocols.json")
	silent := stdioServer("silent", "-era=legacy-silent", "--token", "s3cret-arg")
	sse := ServerConfig{Name: "sse", URL: testserver.ServeHTTP(t, testserver.Options{}, true).URL + "?key=s3cret-url"}
	run := func() *Bridge { return connectedBridge(t, &Options{ProtocolCache: path}, silent, sse) }
	first := run()
	if st := first.Status().Servers[0]; !strings.Contains(st.Stderr, "ignored server/discover") {
		t.Fatalf("first run: stderr %q, want the probe ignored", st.Stderr)
	}
	_ = first.Close()

	info, err := os.Stat(path)
	if err != nil {
		t.Fatalf("the cache was not written: %v", err)
	}
	if perm := info.Mode().Perm(); perm != 0o600 {
		t.Errorf("cache mode = %v, want 0600", perm)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"s3cret", "mcptest", "127.0.0.1"} {
		if strings.Contains(string(data), secret) {
			t.Errorf("cache holds %q in clear:\n%s", secret, data)
		}
	}
	if !strings.Contains(string(data), `"protocol": "2025-11-25"`) || !strings.Contains(string(data), `"transport": "sse"`) {
		t.Errorf("cache lacks the entries:\n%s", data)
	}

	second := run()
	st := second.Status().Servers
	if strings.Contains(st[0].Stderr, "ignored") {
		t.Errorf("second run probed the legacy server again; stderr %q", st[0].Stderr)
	}
	if st[1].Transport != TransportSSE {
		t.Errorf("second run: sse over %v, want sse", st[1].Transport)
	}

	// An unreadable cache is an empty one.
	if err := os.WriteFile(path, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	third := run()
	if !strings.Contains(third.Status().Servers[0].Stderr, "ignored server/discover") {
		t.Errorf("with a broken cache: stderr %q, want a fresh probe", third.Status().Servers[0].Stderr)
	}
}

// TestProtocolCacheLateAnswer: a stdio server of both eras whose answer to
// server/discover comes after the probe's bound (and after the handshake's)
// is spoken to with the handshake, yet the cache learns that it speaks
// 2026-07-28, and the next run speaks it.
func TestProtocolCacheLateAnswer(t *testing.T) {
	path := filepath.Join(t.TempDir(), "protocols.json")
	srv := stdioServer("late", "-hold-discover=1s")
	first := newBridge(t, &Options{ProtocolCache: path}, srv)
	discover(t, first)
	if st := first.Status().Servers[0]; st.State != Connected || st.Protocol != "2025-11-25" {
		t.Fatalf("first run: %v, protocol %q (%s), want CONNECTED with the handshake", st.State, st.Protocol, st.Error)
	}
	var data []byte
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		data, _ = os.ReadFile(path)
		if strings.Contains(string(data), `"protocol": "2026-07-28"`) {
			break
		}
	}
	if !strings.Contains(string(data), `"protocol": "2026-07-28"`) {
		t.Fatalf("the cache did not learn the late answer:\n%s", data)
	}
	_ = first.Close()

	second := newBridge(t, &Options{ProtocolCache: path}, srv)
	discover(t, second)
	if st := second.Status().Servers[0]; st.State != Connected || st.Protocol != "2026-07-28" {
		t.Errorf("second run: %v, protocol %q (%s), want CONNECTED in 2026-07-28", st.State, st.Protocol, st.Error)
	}
}
