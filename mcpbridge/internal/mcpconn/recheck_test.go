package mcpconn

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
)

// gapServer is a 2026-07-28 streamable-HTTP server whose tools can change
// in the gap a list_changed subscription cannot cover: it holds each
// subscriptions/listen request until release is called, and when change
// is set, reveals the tool "late" just before passing the request on,
// without any notification. It counts the tools/list requests it answers.
type gapServer struct {
	url     string
	lists   atomic.Int32
	listen  atomic.Int32
	release func()
}

func newGapServer(t *testing.T, change bool) *gapServer {
	t.Helper()
	released := make(chan struct{})
	var once sync.Once
	g := &gapServer{release: func() { once.Do(func() { close(released) }) }}
	t.Cleanup(g.release)
	var revealed atomic.Bool
	srv := server.NewMCPServer("gap", "1.0",
		server.WithToolCapabilities(true),
		server.WithToolFilter(func(_ context.Context, tools []mcp.Tool) []mcp.Tool {
			if revealed.Load() {
				return tools
			}
			return slices.DeleteFunc(slices.Clone(tools), func(tl mcp.Tool) bool { return tl.Name == "late" })
		}))
	for _, name := range []string{"early", "late"} {
		srv.AddTool(mcp.NewTool(name), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(name), nil
		})
	}
	h := server.NewStreamableHTTPServer(srv)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			switch {
			case bytes.Contains(body, []byte(`"method":"tools/list"`)):
				g.lists.Add(1)
			case bytes.Contains(body, []byte(`"method":"subscriptions/listen"`)):
				g.listen.Add(1)
				select {
				case <-released:
				case <-r.Context().Done():
					return
				}
				if change {
					revealed.Store(true)
				}
			}
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		hs.CloseClientConnections()
		hs.Close()
		_ = h.Shutdown(context.Background())
	})
	g.url = hs.URL
	return g
}

// TestRecheck: Dial does not wait for the subscription's acknowledgement;
// a tools/list that ran before it is read again afterwards, and a change
// made in the gap, which no notification reports, still reaches
// OnToolsChanged. When nothing changed, the second reading stays silent.
func TestRecheck(t *testing.T) {
	for _, change := range []bool{true, false} {
		t.Run(map[bool]string{true: "changed", false: "unchanged"}[change], func(t *testing.T) {
			g := newGapServer(t, change)
			var mu sync.Mutex
			changed := 0
			s := Spec{Name: "gap", Kind: StreamableHTTP, URL: g.url, Timeout: testTimeout,
				OnToolsChanged: func() { mu.Lock(); changed++; mu.Unlock() }}
			c := dialT(t, s)
			if !IsModern(c.ProtocolVersion()) {
				t.Fatalf("ProtocolVersion() = %q, want 2026-07-28", c.ProtocolVersion())
			}
			tools, err := c.ListTools(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if got := toolNames(tools); !slices.Equal(got, []string{"early"}) {
				t.Fatalf("first ListTools() = %v, want [early]: it must run before the held subscription", got)
			}
			g.release()
			// The second reading comes after the acknowledgement and
			// recheckDelay.
			deadline := time.Now().Add(10 * time.Second)
			for g.lists.Load() < 2 && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
			if n := g.lists.Load(); n != 2 {
				t.Fatalf("server answered %d tools/list requests, want 2 (the first and the second reading)", n)
			}
			// A reported change reaches OnToolsChanged after the
			// coalescing window; an unreported one never does.
			count := func() int {
				mu.Lock()
				defer mu.Unlock()
				return changed
			}
			want := map[bool]int{true: 1, false: 0}[change]
			wait := time.Now().Add(listChangedWindow + 300*time.Millisecond)
			if change {
				wait = time.Now().Add(10 * time.Second)
			}
			for count() < want && time.Now().Before(wait) {
				time.Sleep(10 * time.Millisecond)
			}
			if !change {
				time.Sleep(time.Until(wait))
			}
			if got := count(); got != want {
				t.Fatalf("OnToolsChanged ran %d times, want %d", got, want)
			}
			if change {
				tools, err := c.ListTools(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				if got := toolNames(tools); !slices.Equal(got, []string{"early", "late"}) {
					t.Fatalf("ListTools() after the change = %v, want [early late]", got)
				}
			}
			if n := g.listen.Load(); n != 1 {
				t.Errorf("server got %d subscriptions/listen requests, want 1", n)
			}
		})
	}
}

// TestRecheckAfterAck: a list requested after the acknowledgement is not
// read again.
func TestRecheckAfterAck(t *testing.T) {
	g := newGapServer(t, false)
	g.release()
	s := Spec{Name: "gap", Kind: StreamableHTTP, URL: g.url, Timeout: testTimeout}
	c := dialT(t, s)
	select {
	case <-c.acked:
	case <-time.After(10 * time.Second):
		t.Fatal("no acknowledgement of subscriptions/listen")
	}
	if _, err := c.ListTools(context.Background()); err != nil {
		t.Fatal(err)
	}
	time.Sleep(recheckDelay + 300*time.Millisecond)
	if n := g.lists.Load(); n != 1 {
		t.Fatalf("server answered %d tools/list requests, want 1", n)
	}
}

// heldServer starts a 2026-07-28 test server that holds each
// subscriptions/listen request until release is called (arrived is closed
// when the first comes), and gives it a spec whose OnToolsChanged sends on
// changed.
func heldServer(t *testing.T) (h testHTTP, arrived <-chan struct{}, release func(), changed <-chan struct{}) {
	t.Helper()
	h = httpServer(t, StreamableHTTP, testserver.Options{Era: testserver.EraModern})
	arrived, release = h.Hold(string(mcp.MethodSubscriptionsListen))
	t.Cleanup(release)
	ch := make(chan struct{}, 1)
	h.spec.OnToolsChanged = func() {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
	return h, arrived, release, ch
}

// TestSubscribed: Subscribed returns once the server has acknowledged the
// subscription, and from then on a change is announced; it gives up when
// the server refuses the subscription or ctx ends, and has nothing to wait
// for on a connection that keeps no listen stream.
func TestSubscribed(t *testing.T) {
	t.Run("acknowledged", func(t *testing.T) {
		h, arrived, release, changed := heldServer(t)
		c := dialT(t, h.spec)
		got := make(chan bool, 1)
		go func() { got <- c.Subscribed(context.Background()) }()
		select {
		case <-arrived:
		case <-time.After(fast):
			t.Fatal("no subscriptions/listen reached the server")
		}
		select {
		case ok := <-got:
			t.Fatalf("Subscribed() = %v while the server held the subscription, want it to wait", ok)
		default:
		}
		release()
		if ok := <-got; !ok {
			t.Fatal("Subscribed() = false after the acknowledgement, want true")
		}
		h.MCP.AddTool(mcp.NewTool("late"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("late"), nil
		})
		select {
		case <-changed:
		case <-time.After(fast):
			t.Fatal("a tool added after Subscribed() never reached OnToolsChanged")
		}
	})
	t.Run("refused", func(t *testing.T) {
		srv := testserver.New(testserver.Options{})
		mcpHTTP := server.NewStreamableHTTPServer(srv)
		hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get(mcp.HeaderMethod) == string(mcp.MethodSubscriptionsListen) {
				var req struct {
					ID json.RawMessage `json:"id"`
				}
				_ = json.NewDecoder(r.Body).Decode(&req)
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no subscriptions here"}}`, req.ID)
				return
			}
			mcpHTTP.ServeHTTP(w, r)
		}))
		t.Cleanup(func() {
			hs.CloseClientConnections()
			hs.Close()
			_ = mcpHTTP.Shutdown(context.Background())
		})
		c := dialT(t, Spec{Name: "refusing", Kind: StreamableHTTP, URL: hs.URL, Timeout: testTimeout})
		if !IsModern(c.ProtocolVersion()) {
			t.Fatalf("ProtocolVersion() = %q, want 2026-07-28", c.ProtocolVersion())
		}
		if c.Subscribed(context.Background()) {
			t.Fatal("Subscribed() = true for a refused subscription, want false")
		}
		if !isClosed(c.unheard) {
			t.Error("Subscribed() gave up before the refusal, want it to end with the refusal")
		}
	})
	t.Run("context ended", func(t *testing.T) {
		h := httpServer(t, StreamableHTTP, testserver.Options{Era: testserver.EraModern})
		_, release := h.Hold(string(mcp.MethodSubscriptionsListen))
		defer release()
		c := dialT(t, h.spec)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if c.Subscribed(ctx) {
			t.Fatal("Subscribed() = true with the subscription held and ctx ended, want false")
		}
	})
	t.Run("no listen stream", func(t *testing.T) {
		h := httpServer(t, StreamableHTTP, testserver.Options{})
		h.spec.Protocol = ProtocolLegacy
		c := dialT(t, h.spec)
		if !c.Subscribed(context.Background()) {
			t.Fatal("Subscribed() = false on a legacy connection, want true (nothing to wait for)")
		}
	})
}

// TestRecheckLateAck: when the acknowledgement takes longer than
// listenAckWait, the list is read again without it, and once more when it
// comes: a change made between the two (a tool added while the server
// holds the subscription, so that its notification reaches nobody) still
// reaches OnToolsChanged.
func TestRecheckLateAck(t *testing.T) {
	h, arrived, release, changed := heldServer(t)
	// A reading counts once its span ended: its answer was read.
	exp := tracetest.NewInMemoryExporter()
	read := make(chan struct{}, 16)
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp), sdktrace.WithSpanProcessor(endSignal{name: string(mcp.MethodToolsList), ch: read}))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	h.spec.Tracer = tp.Tracer("test")
	lists := func() int {
		return len(slices.DeleteFunc(exp.GetSpans(), func(s tracetest.SpanStub) bool { return s.Name != string(mcp.MethodToolsList) }))
	}
	c := dialT(t, h.spec)
	if _, err := c.ListTools(context.Background()); err != nil {
		t.Fatal(err)
	}
	select {
	case <-arrived:
	case <-time.After(fast):
		t.Fatal("no subscriptions/listen reached the server")
	}
	// The second reading comes after listenAckWait, unacknowledged.
	for range 2 {
		select {
		case <-read:
		case <-time.After(fast):
		}
	}
	if n := lists(); n != 2 {
		t.Fatalf("%d tools/list answered, want 2 (the first reading and the one after listenAckWait)", n)
	}
	h.MCP.AddTool(mcp.NewTool("late"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("late"), nil
	})
	release()
	select {
	case <-changed:
	case <-time.After(fast):
		t.Fatal("a tool added before the late acknowledgement never reached OnToolsChanged")
	}
}

// endSignal is a span processor that sends on ch (without blocking) when
// a span named name ends.
type endSignal struct {
	name string
	ch   chan<- struct{}
}

func (e endSignal) OnStart(context.Context, sdktrace.ReadWriteSpan) {}
func (e endSignal) OnEnd(s sdktrace.ReadOnlySpan) {
	if s.Name() == e.name {
		select {
		case e.ch <- struct{}{}:
		default:
		}
	}
}
func (e endSignal) Shutdown(context.Context) error   { return nil }
func (e endSignal) ForceFlush(context.Context) error { return nil }
