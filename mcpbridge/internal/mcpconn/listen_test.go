package mcpconn

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
)

// listenRefuser answers every subscriptions/listen with a JSON-RPC error,
// recording when each came; everything else goes to next.
type listenRefuser struct {
	next http.Handler
	mu   sync.Mutex
	at   []time.Time
}

func (l *listenRefuser) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost {
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(body, &m) == nil && m.Method == "subscriptions/listen" {
			l.mu.Lock()
			l.at = append(l.at, time.Now())
			l.mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":"not now"}}`, m.ID)
			return
		}
	}
	l.next.ServeHTTP(w, r)
}

// TestListenBackoff: on 2026-07-28, a subscriptions/listen the server
// ends before acknowledging it is sent again, after a pause that doubles
// each time (listenPause, then twice that); the connection keeps working.
func TestListenBackoff(t *testing.T) {
	mcpSrv := testserver.New(testserver.Options{})
	h := server.NewStreamableHTTPServer(mcpSrv)
	l := &listenRefuser{next: h}
	srv := httptest.NewServer(l)
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
		_ = h.Shutdown(context.Background())
	})
	c := dialT(t, Spec{Name: "refuses-listen", Kind: StreamableHTTP, URL: srv.URL + "/mcp", Timeout: testTimeout, Protocol: ProtocolModern})
	deadline := time.Now().Add(fast)
	var at []time.Time
	for len(at) < 3 {
		if time.Now().After(deadline) {
			t.Fatalf("%d subscriptions/listen requests within %v, want 3", len(at), fast)
		}
		time.Sleep(50 * time.Millisecond)
		l.mu.Lock()
		at = append(at[:0], l.at...)
		l.mu.Unlock()
	}
	// Lower bounds only: a loaded machine makes the pauses longer, never
	// shorter.
	if gap := at[1].Sub(at[0]); gap < listenPause-100*time.Millisecond {
		t.Errorf("second listen %v after the first, want at least %v", gap, listenPause)
	}
	if gap := at[2].Sub(at[1]); gap < 2*listenPause-100*time.Millisecond {
		t.Errorf("third listen %v after the second, want at least %v (doubled)", gap, 2*listenPause)
	}
	if _, err := c.ListTools(context.Background()); err != nil {
		t.Errorf("ListTools() = %v while listen is refused", err)
	}
}
