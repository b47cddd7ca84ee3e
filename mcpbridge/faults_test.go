package mcpbridge

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestDiscoveryFaults runs each faulty server beside a healthy one: the
// fault is reported in the status, the healthy server is unaffected, and
// discovery ends. Only the timeouts under test are short; every other
// timeout is a minute, so a loaded machine that starts servers slowly
// cannot turn a fast failure into a timeout or a healthy server into a
// failed one. That discovery did not wait for a timeout it should not have
// needed shows in the outcome, not the clock: only the cases about a
// timeout may end in one.
func TestDiscoveryFaults(t *testing.T) {
	const generous = time.Minute
	withTimeout := func(c ServerConfig, d time.Duration) ServerConfig {
		c.Timeout = d
		return c
	}
	tests := []struct {
		name      string
		bad       ServerConfig
		wantState ServerState
		wantErr   []string // substrings of the status error ("" state CONNECTED: none)
		wantTools int      // tools of the faulty server when it connects
	}{
		{"command does not exist", ServerConfig{Name: "bad", Command: filepath.Join(t.TempDir(), "no-such-server"), Timeout: generous},
			Disconnected, []string{"bad", "no-such-server"}, 0},
		{"exits at once", withTimeout(stdioServer("bad", "-exit-now=2"), generous),
			Disconnected, []string{"exit status 2"}, 0},
		{"never answers initialize", withTimeout(stdioServer("bad", "-never-init"), 500*time.Millisecond),
			Disconnected, []string{"initialize", "timeout 500ms"}, 0},
		{"never answers and ignores stdin EOF", withTimeout(stdioServer("bad", "-never-init", "-ignore-stdin-eof"), 300*time.Millisecond),
			Disconnected, []string{"timeout 300ms"}, 0},
		{"10 MB of stderr first", withTimeout(stdioServer("bad", "-stderr-bytes=10485760"), generous),
			Connected, nil, 7},
		{"garbage on stdout", withTimeout(stdioServer("bad", "-garbage=50"), generous),
			Connected, nil, 7},
		{"only garbage, never answers", withTimeout(stdioServer("bad", "-garbage=50", "-never-init"), 300*time.Millisecond),
			Disconnected, []string{"timeout 300ms"}, 0},
		{"offers no tools after filters", func() ServerConfig {
			c := withTimeout(stdioServer("bad", "-bare"), generous)
			c.IncludeTools = []string{"nothing_like_this"}
			return c
		}(), Disconnected, []string{"no tools"}, 0},
		{"empty includeTools means no tools", func() ServerConfig {
			c := withTimeout(stdioServer("bad", "-bare"), generous)
			c.IncludeTools = []string{}
			return c
		}(), Disconnected, []string{"no tools"}, 0},
		{"unreachable URL", ServerConfig{Name: "bad", HTTPURL: "http://127.0.0.1:1/mcp", Timeout: generous},
			Disconnected, []string{"bad"}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := newBridge(t, nil, tc.bad, withTimeout(stdioServer("good"), generous))
			discover(t, b)
			st := b.Status()
			if st.Discovering || !st.Discovered {
				t.Errorf("after Discover: Discovering = %v, Discovered = %v; want false, true", st.Discovering, st.Discovered)
			}
			bad, good := st.Servers[0], st.Servers[1]
			if good.State != Connected || len(good.Tools) == 0 {
				t.Errorf("good server = %v with %d tools, want CONNECTED with tools", good.State, len(good.Tools))
			}
			if bad.State != tc.wantState {
				t.Errorf("bad server state = %v, want %v (error %q)", bad.State, tc.wantState, bad.Error)
			}
			for _, want := range tc.wantErr {
				if !strings.Contains(bad.Error, want) {
					t.Errorf("bad server error = %q, want it to mention %q", bad.Error, want)
				}
			}
			wantTimeout := slices.ContainsFunc(tc.wantErr, func(s string) bool { return strings.Contains(s, "timeout") })
			if !wantTimeout && strings.Contains(bad.Error, "timeout") {
				t.Errorf("bad server error = %q, want the fault itself, not a timeout", bad.Error)
			}
			if tc.wantState == Connected && bad.Error != "" {
				t.Errorf("bad server error = %q, want none", bad.Error)
			}
			if got := len(b.Status().Servers[0].Tools); got != tc.wantTools {
				t.Errorf("bad server tools = %d, want %d", got, tc.wantTools)
			}
			// A failed dial's stderr is in the status beside the error.
			if tc.name == "exits at once" && (!strings.Contains(bad.Stderr, "exiting at once") || strings.Contains(bad.Error, "exiting at once")) {
				t.Errorf("bad server stderr = %q, error = %q: want the stderr line in the stderr tail only", bad.Stderr, bad.Error)
			}
			if strings.Contains(tc.name, "stderr") {
				// The server writes its last stderr line just before it
				// answers on stdout, so the reader of stderr may still hold
				// the pipe's last 64 KiB when discovery ends: the tail
				// catches up.
				for deadline := time.Now().Add(10 * time.Second); !strings.Contains(bad.Stderr, "mcptest: flood done") && time.Now().Before(deadline); {
					time.Sleep(10 * time.Millisecond)
					bad = b.Status().Servers[0]
				}
				if !strings.Contains(bad.Stderr, "mcptest: flood done") {
					t.Errorf("bad server stderr tail = %q, want the end of the flood", bad.Stderr)
				}
			}
			if len(bad.Stderr) > statusStderrLimit {
				t.Errorf("bad server stderr tail = %d bytes, want at most %d", len(bad.Stderr), statusStderrLimit)
			}
			if tc.wantState == Disconnected && tc.bad.Command != "" && len(tc.wantErr) > 0 && tc.wantErr[0] == "no tools" {
				if _, err := b.callTool(context.Background(), "bad", "echo", nil); err == nil {
					t.Errorf("callTool on a server without tools = nil error")
				}
			}
		})
	}
}

func TestDiscoverHugeToolList(t *testing.T) {
	b := newBridge(t, nil, stdioServer("huge", "-tools=5000", "-page=1000"))
	start := time.Now()
	discover(t, b)
	if got := len(b.Tools()); got != 5000+7 {
		t.Errorf("len(Tools()) = %d, want 5007", got)
	}
	if st := b.Status(); len(st.Servers[0].Tools) != 5007 || st.Servers[0].State != Connected {
		t.Errorf("Status() = %v with %d tools, want CONNECTED with 5007", st.Servers[0].State, len(st.Servers[0].Tools))
	}
	t.Logf("5,007 tools discovered, converted and registered in %v", time.Since(start))
	if got, err := call(t, b, "huge", "tool_4999", nil); err != nil || got != "tool_4999" {
		t.Errorf("callTool(tool_4999) = %q, %v, want tool_4999", got, err)
	}
}

// TestDiscoverNamesDeterministic starts two servers with the same tool
// names after random delays, 20 times: the first server in configuration
// order always keeps the bare names.
func TestDiscoverNamesDeterministic(t *testing.T) {
	var want []string
	for run := range 20 {
		d1, d2 := rand.N(40*time.Millisecond), rand.N(40*time.Millisecond)
		b := newBridge(t, nil,
			stdioServer("alpha", "-tools=3", fmt.Sprintf("-delay=%v", d1)),
			stdioServer("beta", "-tools=3", fmt.Sprintf("-delay=%v", d2)))
		events, cancel := b.Subscribe()
		discover(t, b)
		for e := range events {
			if len(e.Update.Changed) > 0 {
				t.Errorf("run %d (delays %v, %v): discovery renamed tools %+v, want each name given once", run, d1, d2, e.Update.Changed)
			}
			if e.Kind == EventDiscoveryCompleted {
				break
			}
		}
		cancel()
		var got []string
		for _, tool := range b.Tools() {
			got = append(got, tool.Name+"="+tool.Server+"/"+tool.ServerTool)
			if tool.Server == "beta" && !strings.HasPrefix(tool.Renamed, "prefixed:") {
				t.Errorf("run %d: %s renamed %q, want prefixed", run, tool.Name, tool.Renamed)
			}
		}
		if run == 0 {
			want = got
			if !strings.Contains(strings.Join(got, " "), "beta__tool_00=beta/tool_00") || !strings.Contains(strings.Join(got, " "), "tool_00=alpha/tool_00") {
				t.Fatalf("names = %v, want alpha bare and beta prefixed", got)
			}
		} else if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Fatalf("run %d (delays %v, %v): names = %v, want %v", run, d1, d2, got, want)
		}
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestDiscoverFiltersAndAgain(t *testing.T) {
	a := stdioServer("a", "-tools=3")
	a.IncludeTools = []string{"tool_00", "tool_01(arg)", "echo"}
	a.ExcludeTools = []string{"tool_01", "echo"}
	b := newBridge(t, nil, a, stdioServer("later", "-exit-now=1"))
	discover(t, b)
	if got := toolNamesOf(b.Tools()); strings.Join(got, ",") != "tool_00" {
		t.Errorf("Tools() = %v, want [tool_00] (include, exclude wins)", got)
	}
	// Discover again: only the server that is not connected is retried.
	events, cancel := b.Subscribe()
	defer cancel()
	discover(t, b)
	var retried []string
	for e := range events {
		if e.Kind == EventServerState && e.State == Connecting {
			retried = append(retried, e.Server)
		}
		if e.Kind == EventDiscoveryCompleted {
			break
		}
	}
	if strings.Join(retried, ",") != "later" {
		t.Errorf("second Discover connected %v, want [later]", retried)
	}
	if err := b.Discover(context.Background()); errors.Is(err, ErrClosed) {
		t.Errorf("third Discover() = %v", err)
	}
}
