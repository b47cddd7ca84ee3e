package main

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpgenai/bridge/geminitest"
)

// httpClient returns an initialized MCP client of url over streamable HTTP:
// an MCP session of its own.
func httpClient(t *testing.T, url string) *client.Client {
	t.Helper()
	c, err := client.NewStreamableHttpClient(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	if err := c.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "test", Version: "0"}
	if _, err := c.Initialize(t.Context(), init); err != nil {
		t.Fatalf("Initialize: %v", err)
	}
	return c
}

// TestSessionsPerClient: over streamable HTTP, two clients of one server
// keep their sessions apart: chat-reply without an ID continues the
// caller's own latest session, never another client's, and another
// client's session ID is unknown to it.
func TestSessionsPerClient(t *testing.T) {
	b, srv := newTestAPIBackend(t, "", geminitest.Text("a1"), geminitest.Text("a2"), geminitest.Text("b1"))
	hs := httptest.NewServer(server.NewStreamableHTTPServer(newServer(b, english)))
	t.Cleanup(hs.Close)
	alice, bob := httpClient(t, hs.URL), httpClient(t, hs.URL)

	_, aliceID, isErr := callTool(t, alice, "chat", map[string]any{"prompt": "A"})
	if isErr || aliceID == "" {
		t.Fatalf("alice's chat: isError %t, session %q", isErr, aliceID)
	}
	text, _, isErr := callTool(t, bob, "chat-reply", map[string]any{"prompt": "whose?"})
	if !isErr || !strings.Contains(text, "no session yet") {
		t.Errorf("bob's chat-reply without an ID = %q (isError %t), want no session yet", text, isErr)
	}
	text, _, isErr = callTool(t, bob, "chat-reply", map[string]any{"prompt": "peek", "sessionId": aliceID})
	if !isErr || !strings.Contains(text, "unknown session") {
		t.Errorf("bob's chat-reply to alice's session = %q (isError %t), want unknown session", text, isErr)
	}
	if _, id, isErr := callTool(t, alice, "chat-reply", map[string]any{"prompt": "again"}); isErr || id != aliceID {
		t.Errorf("alice's chat-reply without an ID continued %q (isError %t), want %q", id, isErr, aliceID)
	}
	if _, id, isErr := callTool(t, bob, "chat", map[string]any{"prompt": "B"}); isErr || id == aliceID {
		t.Errorf("bob's chat = session %q (isError %t), want a new one", id, isErr)
	}
	if n := len(srv.Requests()); n != 3 {
		t.Errorf("the model got %d requests, want 3 (bob's refused replies send none)", n)
	}
}
