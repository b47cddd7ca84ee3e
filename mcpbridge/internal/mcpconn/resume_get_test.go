package mcpconn

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
)

// storeSpy is mcp-go's in-memory event store, telling which events it
// recorded.
type storeSpy struct {
	*server.InMemoryEventStore
	mu     sync.Mutex
	stored [][2]string // event id and message, in the order recorded
	signal chan struct{}
}

func (s *storeSpy) StoreEvent(ctx context.Context, session, stream string, msg json.RawMessage) (string, error) {
	id, err := s.InMemoryEventStore.StoreEvent(ctx, session, stream, msg)
	if err == nil {
		s.mu.Lock()
		s.stored = append(s.stored, [2]string{id, string(msg)})
		s.mu.Unlock()
		select {
		case s.signal <- struct{}{}:
		default:
		}
	}
	return id, err
}

// idOf returns the event id of the first recorded message containing
// text.
func (s *storeSpy) idOf(text string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.stored {
		if strings.Contains(e[1], text) {
			return e[0], true
		}
	}
	return "", false
}

// getCloser sits in front of mcp-go's streamable-HTTP server (with an
// event store, so it can replay) and does what SEP-1699 lets a server do
// with the standalone GET stream: the first one ends right after its
// first event with an id, having named a retry delay. A GET carrying
// Last-Event-ID is recorded and held until release is closed (so the test
// decides what the server sends while the client is away), or answered
// with refuse when that is set; then mcp-go replays what it recorded after
// the id and goes on live. Other GETs (a client opening a new stream
// without Last-Event-ID) are served as they are.
type getCloser struct {
	next    http.Handler
	retry   time.Duration
	release chan struct{}
	refuse  int // status for every GET with Last-Event-ID, when not 0
	closed  chan struct{}

	mu       sync.Mutex
	plain    int         // GETs without Last-Event-ID
	closedAt time.Time   // when the first GET stream ended
	endID    string      // the id of the event it ended after
	resumes  []time.Time // when each GET with Last-Event-ID came
	lastIDs  []string    // and its Last-Event-ID
}

func (g *getCloser) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		g.next.ServeHTTP(w, r)
		return
	}
	if last := r.Header.Get("Last-Event-ID"); last != "" {
		g.mu.Lock()
		g.resumes = append(g.resumes, time.Now())
		g.lastIDs = append(g.lastIDs, last)
		g.mu.Unlock()
		if g.refuse != 0 {
			http.Error(w, "not resumed", g.refuse)
			return
		}
		select {
		case <-g.release:
		case <-r.Context().Done():
			return
		}
		g.next.ServeHTTP(w, r)
		return
	}
	g.mu.Lock()
	g.plain++
	first := g.plain == 1
	g.mu.Unlock()
	if !first {
		g.next.ServeHTTP(w, r)
		return
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	cw := &closingWriter{ResponseWriter: w, retry: g.retry, end: cancel}
	g.next.ServeHTTP(cw, r.WithContext(ctx))
	g.mu.Lock()
	g.closedAt, g.endID = time.Now(), cw.id
	g.mu.Unlock()
	close(g.closed)
}

// closingWriter passes an SSE stream through until an event with an id is
// complete, then writes a retry field and ends the response (end ends
// the handler's request context); later writes fail, so mcp-go keeps
// their events recorded for the resumed stream.
type closingWriter struct {
	http.ResponseWriter
	retry time.Duration
	end   func()
	buf   []byte
	done  bool
	id    string // the id of the event the stream ended after
}

func (c *closingWriter) Write(p []byte) (int, error) {
	if c.done {
		return 0, errors.New("the test ended this stream")
	}
	n, err := c.ResponseWriter.Write(p)
	c.buf = append(c.buf, p[:n]...)
	if err == nil && bytes.Contains(c.buf, []byte("id: ")) && bytes.HasSuffix(c.buf, []byte("\n\n")) {
		for _, line := range strings.Split(string(c.buf), "\n") {
			if id, ok := strings.CutPrefix(line, "id: "); ok {
				c.id = strings.TrimSuffix(id, "\r")
			}
		}
		fmt.Fprintf(c.ResponseWriter, "retry: %d\n\n", c.retry.Milliseconds())
		c.ResponseWriter.(http.Flusher).Flush()
		c.done = true
		c.end()
	}
	return n, err
}

func (c *closingWriter) Flush() {
	if !c.done {
		c.ResponseWriter.(http.Flusher).Flush()
	}
}

// resumableServer starts the test server (legacy era) behind getCloser.
func resumableServer(t *testing.T, retry time.Duration, refuse int) (*getCloser, *storeSpy, *server.MCPServer, string) {
	t.Helper()
	mcpSrv := testserver.New(testserver.Options{Era: testserver.EraLegacy})
	spy := &storeSpy{InMemoryEventStore: server.NewInMemoryEventStore(), signal: make(chan struct{}, 1)}
	h := server.NewStreamableHTTPServer(mcpSrv, server.WithEventStore(spy))
	g := &getCloser{next: h, retry: retry, refuse: refuse, release: make(chan struct{}), closed: make(chan struct{})}
	srv := httptest.NewServer(g)
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
		_ = h.Shutdown(context.Background())
	})
	return g, spy, mcpSrv, srv.URL + "/mcp"
}

// logs collects the data of the log messages a connection receives.
type logs struct {
	mu     sync.Mutex
	got    []string
	signal chan struct{}
}

func (l *logs) add(_ mcp.LoggingLevel, _ string, data any) {
	l.mu.Lock()
	l.got = append(l.got, fmt.Sprint(data))
	l.mu.Unlock()
	select {
	case l.signal <- struct{}{}:
	default:
	}
}

// await waits (at most fast) until a message whose data contains want
// came.
func (l *logs) await(t *testing.T, want string) {
	t.Helper()
	deadline := time.After(fast)
	for {
		l.mu.Lock()
		got := strings.Join(l.got, ",")
		l.mu.Unlock()
		if strings.Contains(got, want) {
			return
		}
		select {
		case <-l.signal:
		case <-deadline:
			t.Fatalf("log message %q not received within %v (got %q)", want, fast, got)
		}
	}
}

// broadcast sends a log message with data to every client of srv, off
// any request: it goes on the standalone GET stream.
func broadcast(srv *server.MCPServer, data string) {
	srv.SendNotificationToAllClients(string(mcp.MethodNotificationMessage), map[string]any{"level": "info", "data": data})
}

// awaitStored waits until spy recorded a message containing text.
func awaitStored(t *testing.T, spy *storeSpy, text string) string {
	t.Helper()
	deadline := time.After(fast)
	for {
		if id, ok := spy.idOf(text); ok {
			return id
		}
		select {
		case <-spy.signal:
		case <-time.After(50 * time.Millisecond):
		case <-deadline:
			t.Fatalf("the server never recorded %q", text)
		}
	}
}

// TestResumeGETStream: a standalone GET stream that the server ends after
// an event with an id and a retry delay is resumed with that id as
// Last-Event-ID, no sooner than the delay, and the message the server
// sent while the stream was closed arrives, replayed (mcp-go alone opens
// a new stream after a second without Last-Event-ID, and the message is
// lost).
func TestResumeGETStream(t *testing.T) {
	const retry = 300 * time.Millisecond
	g, spy, srv, url := resumableServer(t, retry, 0)
	l := &logs{signal: make(chan struct{}, 1)}
	dialT(t, Spec{Name: "resume-get", Kind: StreamableHTTP, URL: url, Timeout: testTimeout, Protocol: ProtocolLegacy, OnLog: l.add})

	// The first message ends the stream; send one until the stream is
	// open to carry it (it opens beside the handshake, at its own pace).
	for i := 0; ; i++ {
		broadcast(srv, fmt.Sprint("before ", i))
		select {
		case <-g.closed:
		case <-time.After(100 * time.Millisecond):
			continue
		}
		break
	}
	l.await(t, "before")
	// Several messages may have been recorded before the stream opened:
	// the resume must name the last one the stream carried.
	awaitStored(t, spy, `"before `)
	// Sent while the stream is closed: recorded, and delivered only if the
	// client resumes from firstID.
	broadcast(srv, "while away")
	awaitStored(t, spy, `"while away"`)
	close(g.release)
	l.await(t, "while away")

	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.lastIDs) == 0 {
		t.Fatal("no GET with Last-Event-ID")
	}
	if g.endID == "" || g.lastIDs[0] != g.endID {
		t.Errorf("Last-Event-ID = %q, want %q (the id of the last event before the end)", g.lastIDs[0], g.endID)
	}
	if wait := g.resumes[0].Sub(g.closedAt); wait < retry-50*time.Millisecond {
		t.Errorf("resumed %v after the stream ended, want at least the retry delay %v", wait, retry)
	}
	if g.plain != 1 {
		t.Errorf("%d GETs without Last-Event-ID, want 1 (the stream was resumed, not opened again)", g.plain)
	}
}

// TestResumeGETStreamRefused: a server that refuses Last-Event-ID (a 4xx)
// is asked once; one that fails (a 5xx) is asked again with backoff, at
// most maxResumeFailures times. Then the stream is handed back to mcp-go
// as ended, which opens a new one without Last-Event-ID, and the
// connection keeps working.
func TestResumeGETStreamRefused(t *testing.T) {
	for _, tc := range []struct {
		status int
		tries  int
	}{
		{http.StatusBadRequest, 1},
		{http.StatusServiceUnavailable, maxResumeFailures},
	} {
		t.Run(fmt.Sprint(tc.status), func(t *testing.T) {
			g, _, srv, url := resumableServer(t, 20*time.Millisecond, tc.status)
			l := &logs{signal: make(chan struct{}, 1)}
			c := dialT(t, Spec{Name: "resume-get", Kind: StreamableHTTP, URL: url, Timeout: testTimeout, Protocol: ProtocolLegacy, OnLog: l.add})
			for i := 0; ; i++ {
				broadcast(srv, fmt.Sprint("before ", i))
				select {
				case <-g.closed:
				case <-time.After(100 * time.Millisecond):
					continue
				}
				break
			}
			// The new stream opens once the resumptions gave up: a message
			// sent then arrives (sent again until the stream is there).
			deadline := time.After(fast)
			for {
				g.mu.Lock()
				plain := g.plain
				g.mu.Unlock()
				if plain >= 2 {
					break
				}
				select {
				case <-time.After(50 * time.Millisecond):
				case <-deadline:
					t.Fatal("no new GET stream after the resumptions failed")
				}
			}
			for i := 0; ; i++ {
				broadcast(srv, fmt.Sprint("after ", i))
				l.mu.Lock()
				got := strings.Join(l.got, ",")
				l.mu.Unlock()
				if strings.Contains(got, "after") {
					break
				}
				select {
				case <-l.signal:
				case <-time.After(100 * time.Millisecond):
				case <-deadline:
					t.Fatalf("no message on the new stream (got %q)", got)
				}
			}
			if _, err := c.ListTools(context.Background()); err != nil {
				t.Errorf("ListTools() = %v after the resumptions failed", err)
			}
			g.mu.Lock()
			defer g.mu.Unlock()
			if len(g.resumes) != tc.tries {
				t.Errorf("%d GETs with Last-Event-ID, want %d", len(g.resumes), tc.tries)
			}
			// Each failure doubles the wait: the last gap is at least
			// 2^(tries-1) times the first delay.
			if n := len(g.resumes); n > 1 {
				if gap, want := g.resumes[n-1].Sub(g.resumes[n-2]), minResumeDelay<<(n-1); gap < want-20*time.Millisecond {
					t.Errorf("last retry %v after the one before, want at least %v (backoff)", gap, want)
				}
			}
		})
	}
}
