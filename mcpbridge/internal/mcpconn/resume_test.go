package mcpconn

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// resumeServer is a legacy streamable-HTTP server (the conformance suite's
// sse-retry scenario) whose tools/call stream sends only a priming event
// (an id and a retry delay) and closes: the answer comes on the GET stream
// the client opens to resume it, with Last-Event-ID. It also answers
// server/discover, like any unknown method, with an empty result.
type resumeServer struct {
	retry time.Duration

	mu      sync.Mutex
	pending json.RawMessage // the id of the tools/call to answer
	closed  time.Time       // when the tools/call stream closed
	resumed time.Time       // when the GET naming its event came
}

func (s *resumeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Mcp-Session-Id", "resume-1")
	if r.Method == http.MethodGet {
		s.get(w, r)
		return
	}
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	_ = json.Unmarshal(body, &m)
	reply := func(result string) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, result)
	}
	switch {
	case len(m.ID) == 0:
		w.WriteHeader(http.StatusAccepted)
	case m.Method == "initialize":
		reply(`{"protocolVersion":"2025-03-26","serverInfo":{"name":"resume","version":"1"},"capabilities":{"tools":{}}}`)
	case m.Method == "tools/call":
		s.mu.Lock()
		s.pending = m.ID
		s.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "id: call-1\nretry: %d\ndata: \n\n", s.retry.Milliseconds())
		w.(http.Flusher).Flush()
		s.mu.Lock()
		s.closed = time.Now()
		s.mu.Unlock()
	default:
		reply(`{}`)
	}
}

func (s *resumeServer) get(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/event-stream")
	last := r.Header.Get("Last-Event-ID")
	s.mu.Lock()
	var answer string
	if last == "call-1" && s.pending != nil {
		s.resumed = time.Now()
		answer = fmt.Sprintf("event: message\nid: get-2\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"resumed\"}]}}\n\n", s.pending)
		s.pending = nil
	}
	s.mu.Unlock()
	fmt.Fprintf(w, "id: get-1\nretry: %d\ndata: \n\n%s", s.retry.Milliseconds(), answer)
	w.(http.Flusher).Flush()
	<-r.Context().Done()
}

// TestResumeStream: a tools/call whose stream closes before the answer is
// resumed on a GET with Last-Event-ID, no sooner than the server's retry
// delay, and the call gets its answer (mcp-go does this; a GET stream that
// closes is opened again after a second, without Last-Event-ID); a server/discover answered with
// an empty result does not make the server a 2026-07-28 one (which would
// open no GET stream).
func TestResumeStream(t *testing.T) {
	rs := &resumeServer{retry: 300 * time.Millisecond}
	srv := httptest.NewServer(rs)
	defer srv.Close()
	defer srv.CloseClientConnections()
	c := dialT(t, Spec{Name: "resume", Kind: StreamableHTTP, URL: srv.URL, Timeout: testTimeout})
	if v := c.ProtocolVersion(); v != "2025-03-26" {
		t.Fatalf("ProtocolVersion() = %q, want the handshake's 2025-03-26", v)
	}
	raw, err := c.CallTool(t.Context(), "test_reconnection", nil)
	if err != nil || !strings.Contains(string(raw), "resumed") {
		t.Fatalf("CallTool = %s, %v; want the answer from the resumed stream", raw, err)
	}
	_ = c.Close()
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if wait := rs.resumed.Sub(rs.closed); wait < rs.retry-50*time.Millisecond {
		t.Errorf("resumed %v after the stream closed, want at least the retry delay %v", wait, rs.retry)
	}
}
