package mcpbridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
	"github.com/mcpgenai/bridge/registry"
)

// waitEvent reads events until match accepts one, failing after 10 s.
func waitEvent(t *testing.T, events <-chan Event, what string, match func(Event) bool) Event {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case e, ok := <-events:
			if !ok {
				t.Fatalf("events closed while waiting for %s", what)
			}
			if match(e) {
				return e
			}
		case <-timeout:
			t.Fatalf("no event %s within 10s", what)
		}
	}
}

func TestListChangedEachTransport(t *testing.T) {
	for _, tr := range transports {
		t.Run(string(tr), func(t *testing.T) {
			// The second server also offers "fresh" once it is added to the
			// first: the later server's tool is renamed and reported.
			b := newBridge(t, nil, serverFor(t, "first", tr, testserver.Options{}), serverFor(t, "second", tr, testserver.Options{}))
			discover(t, b)
			if _, err := call(t, b, "second", "add_tool", map[string]any{"name": "fresh"}); err != nil {
				t.Fatalf("add_tool on second: %v", err)
			}
			events, cancel := b.Subscribe()
			defer cancel()
			if _, ok := b.Tool("fresh"); !ok {
				waitEvent(t, events, "tools-changed adding fresh", func(e Event) bool {
					return e.Kind == EventToolsChanged && slices.ContainsFunc(e.Update.Added, func(a registry.Entry) bool { return a.Name == "fresh" })
				})
			}
			if tool, ok := b.Tool("fresh"); !ok || tool.Server != "second" || tool.Description != "added at run time" {
				t.Fatalf("Tool(fresh) = %+v, %v, want second's new tool", tool, ok)
			}
			if _, err := call(t, b, "first", "add_tool", map[string]any{"name": "fresh"}); err != nil {
				t.Fatalf("add_tool on first: %v", err)
			}
			e := waitEvent(t, events, "tools-changed renaming second's fresh", func(e Event) bool {
				return e.Kind == EventToolsChanged && e.Server == "first" && len(e.Update.Changed) > 0
			})
			want := registry.Change{
				Old: registry.Entry{Name: "fresh", Server: "second", ServerTool: "fresh"},
				New: registry.Entry{Name: "second__fresh", Server: "second", ServerTool: "fresh", Reason: registry.Prefixed, Wanted: "fresh", Holder: "first"},
			}
			if len(e.Update.Changed) != 1 || e.Update.Changed[0] != want {
				t.Errorf("Update.Changed = %+v, want [%+v]", e.Update.Changed, want)
			}
			for name, server := range map[string]string{"fresh": "first", "second__fresh": "second"} {
				if tool, ok := b.Tool(name); !ok || tool.Server != server || tool.Declaration.Name != name {
					t.Errorf("Tool(%s) = %+v, %v, want %s's tool declared as %s", name, tool, ok, server, name)
				}
			}
			got, err := call(t, b, "second", "fresh", nil)
			if err != nil || got != "fresh" {
				t.Errorf("callTool(second, fresh) = %q, %v, want fresh", got, err)
			}
		})
	}
}

// TestCallRightAfterCrash makes the next call at once after a crash, with no
// wait for the death to be noticed: it must reconnect and succeed (the
// request never reached the dead server, so sending it anew replays
// nothing), every time.
func TestCallRightAfterCrash(t *testing.T) {
	b := newBridge(t, &Options{ReconnectInterval: -1}, stdioServer("crashy"))
	discover(t, b)
	for i := range 20 {
		if _, err := call(t, b, "crashy", "crash", nil); err == nil {
			t.Fatalf("run %d: callTool(crash) = nil error, want the connection's death", i)
		}
		got, err := call(t, b, "crashy", "echo", map[string]any{"run": i})
		if want := fmt.Sprintf(`{"run":%d}`, i); err != nil || got != want {
			t.Fatalf("run %d: callTool(echo) right after the crash = %q, %v; want %s", i, got, err, want)
		}
	}
}

func TestCrashThenReconnectOnUse(t *testing.T) {
	b := newBridge(t, &Options{ReconnectInterval: time.Minute}, stdioServer("crashy"), stdioServer("steady"))
	discover(t, b)
	events, cancel := b.Subscribe()
	defer cancel()

	// A call during which the server dies fails and is not replayed.
	if _, err := call(t, b, "crashy", "crash", nil); err == nil {
		t.Fatal("callTool(crash) = nil error, want the connection's death")
	}
	waitEvent(t, events, "crashy DISCONNECTED", func(e Event) bool {
		return e.Kind == EventServerState && e.Server == "crashy" && e.State == Disconnected
	})
	st := b.Status()
	if s := st.Servers[0]; s.State != Disconnected || s.Error == "" || !strings.Contains(s.Stderr, "crash tool called") {
		t.Errorf("Status() of crashy = %+v, want DISCONNECTED with error and stderr tail", s)
	}
	if s := st.Servers[1]; s.State != Connected {
		t.Errorf("Status() of steady = %v, want CONNECTED", s.State)
	}
	if _, ok := b.Tool("crash"); !ok {
		t.Error("Tool(crash) = false after the crash, want the dead server's tools kept")
	}
	select {
	case e := <-events:
		if e.Kind == EventServerState && e.State == Connecting {
			t.Errorf("event %+v: the failed call was retried", e)
		}
	case <-time.After(100 * time.Millisecond):
	}

	// The next call reconnects once and succeeds.
	got, err := call(t, b, "crashy", "echo", map[string]any{"text": "back"})
	if err != nil || got != `{"text":"back"}` {
		t.Fatalf("callTool(echo) after crash = %q, %v, want a reconnect and the echo", got, err)
	}
	if s := b.Status().Servers[0]; s.State != Connected || s.Error != "" {
		t.Errorf("Status() after reconnect = %+v, want CONNECTED", s)
	}

	// A second death within the interval: fail fast with the last error.
	if _, err := call(t, b, "crashy", "crash", nil); err == nil {
		t.Fatal("second callTool(crash) = nil error")
	}
	waitEvent(t, events, "crashy DISCONNECTED again", func(e Event) bool {
		return e.Kind == EventServerState && e.Server == "crashy" && e.State == Disconnected
	})
	// The server would start again: a call that reconnected would succeed,
	// so ErrNotConnected shows that none was tried.
	_, err = call(t, b, "crashy", "echo", nil)
	if !errors.Is(err, ErrNotConnected) || !strings.Contains(err.Error(), "crashy") {
		t.Errorf("callTool within ReconnectInterval = %v, want ErrNotConnected naming crashy", err)
	}
	if got, err := call(t, b, "steady", "echo", map[string]any{}); err != nil || got != "{}" {
		t.Errorf("callTool(steady) = %q, %v, want {}", got, err)
	}
}

func TestServerDiesByItself(t *testing.T) {
	// The server dies once the file exists: after it connected, and not
	// again once the file is gone.
	crash := filepath.Join(t.TempDir(), "crash")
	b := newBridge(t, &Options{ReconnectInterval: -1}, stdioServer("brief", "-crash-on-file="+crash))
	events, cancel := b.Subscribe()
	defer cancel()
	discover(t, b)
	if s := b.Status().Servers[0]; s.State != Connected {
		t.Fatalf("Status() after Discover = %v (%s), want CONNECTED", s.State, s.Error)
	}
	if err := os.WriteFile(crash, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	e := waitEvent(t, events, "brief DISCONNECTED", func(e Event) bool {
		return e.Kind == EventServerState && e.State == Disconnected
	})
	if e.Err == nil || !strings.Contains(e.Err.Error(), "exit status 3") {
		t.Errorf("DISCONNECTED event error = %v, want exit status 3", e.Err)
	}
	if s := b.Status().Servers[0]; !strings.Contains(s.Stderr, "crashing on schedule") || !strings.Contains(s.Error, "exit status 3") {
		t.Errorf("Status() = %+v, want the exit and the stderr tail", s)
	}
	// Discover again reconnects the dead server.
	if err := os.Remove(crash); err != nil {
		t.Fatal(err)
	}
	discover(t, b)
	if s := b.Status().Servers[0]; s.State != Connected {
		t.Errorf("Status() after a second Discover = %v, want CONNECTED", s.State)
	}
}

func TestCallToolTimeout(t *testing.T) {
	b := newBridge(t, nil, stdioServer("slow"))
	discover(t, b)
	// Connected with the generous timeout; only the call is bounded short.
	shortenCallTimeout(t, b, "slow", 300*time.Millisecond)
	sleep, ok := b.Tool("sleep")
	if !ok {
		t.Fatal(`Tool("sleep") not registered`)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// Without the server's timeout the call would run into ctx's deadline
	// (timedOut false) or finish its minute of sleep.
	_, timedOut, err := b.call(ctx, sleep, json.RawMessage(`{"ms":60000}`))
	if err == nil || !timedOut || ctx.Err() != nil {
		t.Errorf("call(sleep 60s) with timeout 300ms = %v, timedOut %v, want the server's timeout to end it", err, timedOut)
	}
	if got, err := call(t, b, "slow", "echo", map[string]any{}); err != nil || got != "{}" {
		t.Errorf("callTool(echo) after a timeout = %q, %v, want {}", got, err)
	}
}

func TestCallToolErrors(t *testing.T) {
	b := newBridge(t, nil, stdioServer("a"))
	discover(t, b)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := b.callTool(ctx, "a", "echo", nil); !errors.Is(err, context.Canceled) {
		t.Errorf("callTool(cancelled ctx) = %v, want context.Canceled", err)
	}
	if _, err := b.callTool(context.Background(), "nope", "echo", nil); !errors.Is(err, ErrUnknownServer) {
		t.Errorf("callTool(unknown server) = %v, want ErrUnknownServer", err)
	}
}

func TestConcurrentCallsReconnectOnce(t *testing.T) {
	b := newBridge(t, &Options{ReconnectInterval: time.Minute}, stdioServer("crashy"))
	discover(t, b)
	events, cancel := b.Subscribe()
	defer cancel()
	if _, err := call(t, b, "crashy", "crash", nil); err == nil {
		t.Fatal("callTool(crash) = nil error")
	}
	waitEvent(t, events, "crashy DISCONNECTED", func(e Event) bool { return e.State == Disconnected })
	const n = 8
	errs := make(chan error, n)
	for i := range n {
		go func() {
			_, err := call(t, b, "crashy", "echo", map[string]any{"i": i})
			errs <- err
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Errorf("concurrent callTool after crash = %v, want success", err)
		}
	}
	// Every reconnect's events were queued before the calls returned;
	// the tools change that add_tool causes comes after them all, so
	// reading up to it counts them without waiting for a quiet moment.
	if _, err := call(t, b, "crashy", "add_tool", map[string]any{"name": "sentinel"}); err != nil {
		t.Fatalf("callTool(add_tool) = %v", err)
	}
	connecting := 0
	waitEvent(t, events, "crashy tools changed", func(e Event) bool {
		if e.Kind == EventServerState && e.State == Connecting {
			connecting++
		}
		return e.Kind == EventToolsChanged && e.Server == "crashy"
	})
	if connecting != 1 {
		t.Errorf("%d concurrent calls reconnected %d times, want once", n, connecting)
	}
}

func TestCloseDuringCall(t *testing.T) {
	b := newBridge(t, nil, stdioServer("slow"))
	discover(t, b)
	errc := make(chan error, 1)
	go func() {
		_, err := b.callTool(context.Background(), "slow", "sleep", map[string]any{"ms": 60000})
		errc <- err
	}()
	time.Sleep(200 * time.Millisecond)
	_ = b.Close()
	// The call would sleep a minute, and its timeout is 10s: a Close that
	// waited for the call instead of cutting it would leave the call to
	// end in ErrTimeout, not in the cancellation Close causes.
	select {
	case err := <-errc:
		if err == nil || errors.Is(err, ErrTimeout) || !(errors.Is(err, context.Canceled) || errors.Is(err, ErrClosed)) {
			t.Errorf("callTool cut by Close = %v, want it cancelled (or ErrClosed), not a timeout", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("callTool did not return after Close")
	}
}

func TestHTTPServerGoneThenFailedReconnectFailsFast(t *testing.T) {
	s := testserver.New(testserver.Options{})
	h := mcpserver.NewStreamableHTTPServer(s)
	ts := httptest.NewServer(h)
	defer func() { _ = h.Shutdown(context.Background()) }()
	b := newBridge(t, &Options{ReconnectInterval: time.Minute}, ServerConfig{Name: "web", HTTPURL: ts.URL + "/mcp", Timeout: 10 * time.Second})
	discover(t, b)
	events, cancel := b.Subscribe()
	defer cancel()
	ts.CloseClientConnections()
	ts.Close()
	waitEvent(t, events, "web DISCONNECTED", func(e Event) bool { return e.State == Disconnected })
	if _, err := call(t, b, "web", "echo", map[string]any{}); err == nil || errors.Is(err, ErrNotConnected) {
		t.Errorf("first call after the server went away = %v, want the failed reconnect's error", err)
	}
	// A reconnect attempt would fail with the dial's error, as the first
	// call did; ErrNotConnected shows that none was tried.
	_, err := call(t, b, "web", "echo", map[string]any{})
	if !errors.Is(err, ErrNotConnected) {
		t.Errorf("second call within ReconnectInterval = %v, want ErrNotConnected", err)
	}
	if st := b.Status().Servers[0]; st.State != Disconnected || st.Error == "" || len(st.Tools) == 0 {
		t.Errorf("Status() = %+v, want DISCONNECTED with its error and its tools kept", st)
	}
}
