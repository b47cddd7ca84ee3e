package mcpconn

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
)

// TestXSessionID talks to servers that issue their session id only in an
// X-Session-Id header and reject requests without it, whichever header they
// read it back from: listing, calling and list_changed (on the listening
// stream) all work.
func TestXSessionID(t *testing.T) {
	for _, accept := range []string{"Mcp-Session-Id", "X-Session-Id"} {
		t.Run("reads "+accept, func(t *testing.T) {
			h := testserver.ServeXSessionID(t, testserver.Options{}, accept)
			changed := make(chan struct{}, 10)
			c := dialT(t, Spec{Name: "xsession", Kind: StreamableHTTP, URL: h.URL, Timeout: 5 * time.Second,
				OnToolsChanged: func() { changed <- struct{}{} }})
			ctx := context.Background()
			tools, err := c.ListTools(ctx)
			if err != nil {
				t.Fatalf("ListTools() = %v, want nil", err)
			}
			if !slices.Contains(toolNames(tools), "echo") {
				t.Errorf("ListTools() = %v, want echo among them", toolNames(tools))
			}
			raw, err := c.CallTool(ctx, "echo", map[string]any{"text": "hi"})
			if err != nil || !strings.Contains(string(raw), `{\"text\":\"hi\"}`) {
				t.Errorf("CallTool(echo) = %s, %v; want the echoed arguments", raw, err)
			}
			addTool(t, c, h, "brand_new") // on the server, outside any request
			select {
			case <-changed:
			case <-time.After(fast):
				t.Fatalf("OnToolsChanged not called within %v: the listening stream lacks the session", fast)
			}
			ids := h.Header(accept)
			if len(ids) == 0 || slices.ContainsFunc(ids, func(id string) bool { return id != ids[0] }) {
				t.Errorf("%s headers received = %q, want one session id on every request after initialize", accept, ids)
			}
		})
	}
}

// TestXSessionIDServerIsStrict shows the failure sessionIDTransport
// prevents: mcp-go's client alone gets 400 "Missing session ID" from such a
// server for everything after the initialize request.
func TestXSessionIDServerIsStrict(t *testing.T) {
	h := testserver.ServeXSessionID(t, testserver.Options{}, "Mcp-Session-Id")
	cl, err := client.NewStreamableHttpClient(h.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cl.Close() }()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := cl.Start(ctx); err != nil {
		t.Fatal(err)
	}
	// The initialize request succeeds; the notification that follows it,
	// within Initialize, is the first request to need the session.
	_, err = cl.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{ProtocolVersion: ProtocolVersion}})
	if err == nil {
		_, err = cl.ListTools(ctx, mcp.ListToolsRequest{})
	}
	if err == nil || !strings.Contains(err.Error(), "Missing session ID") {
		t.Errorf("Initialize and ListTools without sessionIDTransport = %v, want 400 Missing session ID", err)
	}
}

// TestMcpSessionIDUnchanged checks that a server using Mcp-Session-Id sees
// no X-Session-Id. The server speaks only the legacy era: 2026-07-28 has no
// sessions.
func TestMcpSessionIDUnchanged(t *testing.T) {
	h := httpServer(t, StreamableHTTP, testserver.Options{Era: testserver.EraLegacy})
	c := dialT(t, h.spec)
	if _, err := c.ListTools(context.Background()); err != nil {
		t.Fatalf("ListTools() = %v, want nil", err)
	}
	if len(h.Header("Mcp-Session-Id")) == 0 {
		t.Errorf("no Mcp-Session-Id header received")
	}
	if got := h.Header("X-Session-Id"); len(got) != 0 {
		t.Errorf("X-Session-Id headers received = %q, want none", got)
	}
}
