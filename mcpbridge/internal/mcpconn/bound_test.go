package mcpconn

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
)

// TestDeepToolSkipped: a tool whose schema nests 5,000 deep (which mcp-go
// would drop with the whole answer) is skipped; its siblings are listed at
// once, with no wait for a timeout.
func TestDeepToolSkipped(t *testing.T) {
	s := stdioSpec("-handwritten=deep")
	s.Timeout = 20 * time.Second
	listsSiblingsAtOnce(t, dialT(t, s))
}

// listsSiblingsAtOnce asserts that c lists the deep test server's two
// usable tools, "after" and "before": the too-deep tool between them costs
// neither its siblings nor a wait for the timeout, which would end the
// request in an error instead of the list.
func listsSiblingsAtOnce(t *testing.T, c *Conn) {
	t.Helper()
	tools, err := c.ListTools(context.Background())
	if err != nil {
		t.Fatalf("ListTools() = %v", err)
	}
	if got := strings.Join(toolNames(tools), ","); got != "after,before" {
		t.Errorf("ListTools() = %s, want after,before", got)
	}
}

// TestEndlessLine: a stdio line that never ends fails the request and the
// connection with ErrMessageTooLarge at the limit; memory stays bounded.
func TestEndlessLine(t *testing.T) {
	s := stdioSpec("-handwritten=endless")
	s.MaxMessageBytes = 4 << 20
	c := dialT(t, s)
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	// Failing at the limit, not at the timeout: the error names the limit.
	_, err := c.ListTools(context.Background())
	if err == nil || !errors.Is(c.Err(), ErrMessageTooLarge) || !strings.Contains(err.Error(), "over 4194304 bytes") {
		t.Fatalf("ListTools() = %v, connection error %v; want ErrMessageTooLarge", err, c.Err())
	}
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if grown := after.TotalAlloc - before.TotalAlloc; grown > 64<<20 {
		t.Errorf("reading the endless line allocated %d MB, want about the 4 MB limit", grown>>20)
	}
}

func TestCutDeep(t *testing.T) {
	nest := func(n int) string { return strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n) }
	tests := []struct {
		name, in, want string
		err            bool
	}{
		{"shallow", `{"result":{"tools":[{"name":"x"}]}}`, `{"result":{"tools":[{"name":"x"}]}}`, false},
		{"deep entry replaced", `{"r":{"tools":[{"name":"ok"},{"name":"d\"x","s":` + nest(10) + `},{"name":"z"}]}}`,
			`{"r":{"tools":[{"name":"ok"},{"name":"d\"x","_mcpbridgeTooDeep":true},{"name":"z"}]}}`, false},
		{"strings do not count", `{"s":"` + strings.Repeat("{", 50) + `"}`, `{"s":"` + strings.Repeat("{", 50) + `"}`, false},
		{"deep outside arrays", nest(10), "", true},
		{"not JSON", `}}}`, `}}}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := cutDeep([]byte(tt.in), 8)
			if (err != nil) != tt.err || !tt.err && string(got) != tt.want {
				t.Errorf("cutDeep(%s) = %s, %v; want %s (error %v)", tt.in, got, err, tt.want, tt.err)
			}
		})
	}
}

// TestWithinDepth: the allocation-free pre-check counts brackets outside
// strings only, and a line it passes is one cutDeep leaves as it is.
func TestWithinDepth(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{`{"a":[1,2]}`, true},
		{`{"a":[[1]]}`, false},
		{`{"a":"[[[[{{{{"}`, true},
		{`{"a":"\"[[[["}`, true},
		{`{"a":"\\"}`, true},
		{`{"a":"\\","b":[[1]]}`, false},
		{`]]]{"a":{}}`, true},
		{`[[{}]]`, false},
		{`"[[[[`, true},
		{``, true},
	}
	for _, tt := range tests {
		if got := withinDepth([]byte(tt.in), 2); got != tt.want {
			t.Errorf("withinDepth(%s, 2) = %v, want %v", tt.in, got, tt.want)
		}
		if tt.want {
			if out, err := cutDeep([]byte(tt.in), 2); err != nil || string(out) != tt.in {
				t.Errorf("cutDeep(%s, 2) = %s, %v; want it unchanged", tt.in, out, err)
			}
		}
	}
}

// TestEndlessSSEEvent: an SSE stream whose event never ends fails the
// connection at the limit instead of growing without bound.
func TestEndlessSSEEvent(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			w.WriteHeader(http.StatusAccepted) // the answer would come on the stream
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "event: endpoint\ndata: /msg\n\nevent: message\n")
		line := "data: " + strings.Repeat("x", 1<<14) + "\n"
		for r.Context().Err() == nil {
			if _, err := fmt.Fprint(w, line); err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	s := Spec{Name: "sse", Kind: SSE, URL: srv.URL + "/sse", Timeout: 5 * time.Second, MaxMessageBytes: 1 << 20}
	// The 5s timeout would fail the dial too, but with an error that does
	// not name the limit.
	c, err := Dial(context.Background(), s)
	if err == nil {
		_ = c.Close()
		t.Fatalf("Dial() = nil error, want the endless event to fail the connection")
	}
	if !errors.Is(err, ErrMessageTooLarge) || !strings.Contains(err.Error(), "an SSE event over 1048576 bytes") {
		t.Errorf("Dial() = %v, want ErrMessageTooLarge naming the SSE event", err)
	}
}

// TestHeadersStayWithOrigin: a configured header reaches the configured
// origin but not another origin the server redirects to.
func TestHeadersStayWithOrigin(t *testing.T) {
	seen := make(chan string, 10)
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen <- "other:" + r.Header.Get("X-Api-Key")
		http.Error(w, "nothing here", http.StatusNotFound)
	}))
	defer other.Close()
	home := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen <- "home:" + r.Header.Get("X-Api-Key")
		http.Redirect(w, r, other.URL+"/mcp", http.StatusTemporaryRedirect)
	}))
	defer home.Close()
	s := Spec{Name: "h", Kind: StreamableHTTP, URL: home.URL + "/mcp", Timeout: 3 * time.Second,
		Headers: map[string]string{"X-Api-Key": "k3y-value"}}
	if c, err := Dial(context.Background(), s); err == nil {
		_ = c.Close()
	}
	close(seen)
	var got []string
	for s := range seen {
		got = append(got, s)
	}
	if len(got) < 2 || got[0] != "home:k3y-value" || !strings.HasPrefix(got[1], "other:") {
		t.Fatalf("requests = %q, want home then other", got)
	}
	for _, g := range got[1:] {
		if strings.HasPrefix(g, "other:") && g != "other:" {
			t.Errorf("the redirected request carried the configured header: %q", g)
		}
	}
}

// TestListChangedFlood: a server flooding notifications/tools/list_changed
// for a second and a half costs a handful of re-lists, and the last change
// is still seen.
func TestListChangedFlood(t *testing.T) {
	h := httpServer(t, StreamableHTTP, testserver.Options{Tools: 500})
	var mu sync.Mutex
	calls := 0
	s := h.spec
	var c *Conn
	s.OnToolsChanged = func() {
		mu.Lock()
		calls++
		mu.Unlock()
		_, _ = c.ListTools(context.Background())
	}
	c = dialT(t, s)
	if !c.Subscribed(context.Background()) {
		t.Fatal("Subscribed() = false, want the subscription to list_changed acknowledged")
	}
	sent := 0
	for end := time.Now().Add(1500 * time.Millisecond); time.Now().Before(end); sent++ {
		h.MCP.SendNotificationToAllClients("notifications/tools/list_changed", nil)
		time.Sleep(time.Millisecond)
	}
	time.Sleep(time.Second) // the last burst's call
	mu.Lock()
	defer mu.Unlock()
	if calls == 0 || calls > 6 {
		t.Errorf("%d notifications gave %d re-lists, want between 1 and 6", sent, calls)
	}
	t.Logf("%d notifications, %d re-lists", sent, calls)
}
