package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mcpgenai/bridge/geminitest"
)

// seedTool is a tool as seed 002 (testdata/seed002.md) specifies it.
type seedTool struct {
	Name        string
	Description string
	InputSchema []byte // compact JSON, in the seed's key order
}

// seedTools reads the tools of seed 002: each "### N. `name`" heading, the
// description line under it and the JSON block under "#### Input Schema".
func seedTools(t *testing.T) []seedTool {
	t.Helper()
	b, err := os.ReadFile("testdata/seed002.md")
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile("(?s)### \\d+\\. `([^`]+)`\n\n([^\n]+)\n.*?#### Input Schema\n\n```json\n(.*?)\n```")
	var out []seedTool
	for _, m := range re.FindAllSubmatch(b, -1) {
		var schema bytes.Buffer
		if err := json.Compact(&schema, m[3]); err != nil {
			t.Fatalf("seed schema of %s: %v", m[1], err)
		}
		out = append(out, seedTool{Name: string(m[1]), Description: string(m[2]), InputSchema: schema.Bytes()})
	}
	if len(out) != 2 {
		t.Fatalf("found %d tools in the seed, want 2", len(out))
	}
	return out
}

// handleRaw sends one raw JSON-RPC message to s and returns the raw JSON of
// the answer's result.
func handleRaw(t *testing.T, b backend, w wording, msg string) json.RawMessage {
	t.Helper()
	resp := newServer(b, w).HandleMessage(t.Context(), json.RawMessage(msg))
	raw, err := json.Marshal(resp)
	if err != nil {
		t.Fatal(err)
	}
	var env struct {
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(raw, &env); err != nil || env.Error != nil {
		t.Fatalf("answer to %s = %s (%v), want a result", msg, raw, err)
	}
	return env.Result
}

func TestToolsMatchSeed(t *testing.T) {
	raw := handleRaw(t, newCLIBackend("", "", 0), original, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	var got struct {
		Tools []struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	want := seedTools(t)
	if len(got.Tools) != len(want) {
		t.Fatalf("tools/list = %s, want %d tools", raw, len(want))
	}
	for i, w := range want {
		t.Run(w.Name, func(t *testing.T) {
			g := got.Tools[i]
			if g.Name != w.Name || g.Description != w.Description {
				t.Errorf("tool %d = %q %q, want %q %q", i, g.Name, g.Description, w.Name, w.Description)
			}
			if !bytes.Equal(g.InputSchema, w.InputSchema) {
				t.Errorf("inputSchema of %s =\n%s\nwant (the seed's, byte for byte)\n%s", w.Name, g.InputSchema, w.InputSchema)
			}
		})
	}
}

// TestToolsInEnglish: by default the tools are described in English, and
// apart from the descriptions their schemas are the original documents'.
func TestToolsInEnglish(t *testing.T) {
	raw := handleRaw(t, newCLIBackend("", "", 0), english, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if hangul := regexp.MustCompile(`\p{Hangul}`); hangul.Match(raw) {
		t.Errorf("tools/list in English still has Korean: %s", hangul.FindAll(raw, -1))
	}
	var got struct {
		Tools []struct {
			Name        string         `json:"name"`
			Description string         `json:"description"`
			InputSchema map[string]any `json:"inputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	want := seedTools(t)
	if len(got.Tools) != len(want) {
		t.Fatalf("tools/list = %s, want %d tools", raw, len(want))
	}
	noDescriptions := cmp.FilterPath(func(p cmp.Path) bool {
		m, ok := p.Last().(cmp.MapIndex)
		return ok && m.Key().String() == "description"
	}, cmp.Ignore())
	for i, w := range want {
		var seed map[string]any
		if err := json.Unmarshal(w.InputSchema, &seed); err != nil {
			t.Fatal(err)
		}
		if got.Tools[i].Description == "" {
			t.Errorf("tool %s has no description", w.Name)
		}
		if diff := cmp.Diff(seed, got.Tools[i].InputSchema, noDescriptions); diff != "" {
			t.Errorf("inputSchema of %s differs from the original beyond descriptions (-want +got):\n%s", w.Name, diff)
		}
	}
	if !strings.Contains(string(raw), "without it, your latest session") {
		t.Errorf("chat-reply's sessionId is not described in English: %s", raw)
	}
}

func TestChatResultShape(t *testing.T) {
	b, _ := newTestAPIBackend(t, "", geminitest.Text("I'm Gemini."))
	raw := handleRaw(t, b, english, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"chat","arguments":{"prompt":"Hello, who are you?"}}}`)
	var got map[string]any
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	id, _ := got["_meta"].(map[string]any)["sessionId"].(string)
	if id == "" {
		t.Fatalf("chat result = %s, want _meta.sessionId", raw)
	}
	want := map[string]any{
		"content": []any{map[string]any{"type": "text", "text": "I'm Gemini."}},
		"_meta":   map[string]any{"sessionId": id},
		// Beyond the seed: the ID again where a model can read it.
		"structuredContent": map[string]any{"sessionId": id},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("chat result (-want +got):\n%s", diff)
	}
}

// newInProcessClient returns an initialized MCP client of a server answered
// by b.
func newInProcessClient(t *testing.T, b backend) *client.Client {
	t.Helper()
	c, err := client.NewInProcessClient(newServer(b, english))
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
	res, err := c.Initialize(t.Context(), init)
	if err != nil {
		t.Fatalf("Initialize: %v", err)
	}
	if res.ServerInfo.Name != "gemini-mcp-server" || res.ServerInfo.Version != "1.0.0" {
		t.Errorf("server info = %+v, want gemini-mcp-server 1.0.0", res.ServerInfo)
	}
	return c
}

// callTool calls the tool and returns its text, session ID and isError.
func callTool(t *testing.T, c *client.Client, name string, args map[string]any) (text, sessionID string, isError bool) {
	t.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.CallTool(t.Context(), req)
	if err != nil {
		t.Fatalf("CallTool(%s, %v) = %v, want a result", name, args, err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("CallTool(%s, %v) content = %+v, want one text", name, args, res.Content)
	}
	tc, ok := res.Content[0].(mcp.TextContent)
	if !ok {
		t.Fatalf("CallTool(%s, %v) content = %T, want text", name, args, res.Content[0])
	}
	if res.Meta != nil {
		sessionID, _ = res.Meta.AdditionalFields["sessionId"].(string)
	}
	return tc.Text, sessionID, res.IsError
}

func TestChatAndReplyThroughMCP(t *testing.T) {
	b, srv := newTestAPIBackend(t, "", geminitest.Text("first"), geminitest.Text("second"), geminitest.Text("third"))
	c := newInProcessClient(t, b)
	text, id, isErr := callTool(t, c, "chat", map[string]any{
		"prompt": "Hello", "model": "gemini-3-flash", "systemPrompt": "Be brief.", "cwd": "/ignored",
	})
	if text != "first" || id == "" || isErr {
		t.Fatalf("chat = %q, %q, isError %v, want %q with a session", text, id, isErr, "first")
	}
	text, id2, isErr := callTool(t, c, "chat-reply", map[string]any{"prompt": "And?", "sessionId": id})
	if text != "second" || id2 != id || isErr {
		t.Errorf("chat-reply = %q, %q, isError %v, want %q in session %q", text, id2, isErr, "second", id)
	}
	text, id3, isErr := callTool(t, c, "chat-reply", map[string]any{"prompt": "Latest?"})
	if text != "third" || id3 != id || isErr {
		t.Errorf("chat-reply without sessionId = %q, %q, isError %v, want %q in session %q", text, id3, isErr, "third", id)
	}
	last := srv.Requests()[2]
	want := []string{"user: Hello", "model: first", "user: And?", "model: second", "user: Latest?"}
	if diff := cmp.Diff(want, contents(last)); diff != "" {
		t.Errorf("contents of the third request (-want +got):\n%s", diff)
	}
	if last.Model != "gemini-3-flash" || systemInstruction(last) != "Be brief." {
		t.Errorf("third request: model %q, system %q, want gemini-3-flash and the chat's system prompt", last.Model, systemInstruction(last))
	}
}

func TestToolErrors(t *testing.T) {
	tests := []struct {
		name   string
		script []geminitest.Turn
		tool   string
		args   map[string]any
		want   string // the whole text, or its start when it ends with "..."
		also   string // a further substring of the text
	}{
		{name: "missing prompt", tool: "chat", args: map[string]any{"model": "m"},
			want: `Error executing gemini: argument "prompt" is required`},
		{name: "empty prompt", tool: "chat-reply", args: map[string]any{"prompt": ""},
			want: `Error executing gemini: argument "prompt" is required`},
		{name: "prompt not a string", tool: "chat", args: map[string]any{"prompt": 3},
			want: `Error executing gemini: argument "prompt" must be a string, got a number`},
		{name: "sessionId not a string", tool: "chat-reply", args: map[string]any{"prompt": "p", "sessionId": true},
			want: `Error executing gemini: argument "sessionId" must be a string, got a boolean`},
		{name: "no session yet", tool: "chat-reply", args: map[string]any{"prompt": "p"},
			want: `Error executing gemini: no session yet: call chat first`},
		{name: "unknown session", tool: "chat-reply", args: map[string]any{"prompt": "p", "sessionId": "a1b2c3d4-e5f6-7890-abcd-ef1234567890"},
			want: `Error executing gemini: unknown session "a1b2c3d4-e5f6-7890-abcd-ef1234567890" (sessions are kept in memory, at most 100)`},
		{name: "API failure", script: []geminitest.Turn{geminitest.Fail(http.StatusTooManyRequests, "Resource has been exhausted.")},
			tool: "chat", args: map[string]any{"prompt": "p"}, want: "Error executing gemini: model gemini-2.5-flash: ...", also: "Resource has been exhausted."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, _ := newTestAPIBackend(t, "", tt.script...)
			c := newInProcessClient(t, b)
			text, id, isErr := callTool(t, c, tt.tool, tt.args)
			if !isErr || id != "" {
				t.Errorf("CallTool(%s, %v): isError %v, sessionId %q, want an error without a session", tt.tool, tt.args, isErr, id)
			}
			if prefix, ok := strings.CutSuffix(tt.want, "..."); ok {
				if !strings.HasPrefix(text, prefix) {
					t.Errorf("CallTool(%s, %v) = %q, want it to start with %q", tt.tool, tt.args, text, prefix)
				}
			} else if text != tt.want {
				t.Errorf("CallTool(%s, %v) = %q, want %q", tt.tool, tt.args, text, tt.want)
			}
			if !strings.Contains(text, tt.also) {
				t.Errorf("CallTool(%s, %v) = %q, want it to contain %q", tt.tool, tt.args, text, tt.also)
			}
		})
	}
}

func TestCLIErrorThroughMCP(t *testing.T) {
	path, _ := fakeGemini(t, `echo 'Error: boom' >&2; exit 1`)
	c := newInProcessClient(t, newCLIBackend(path, "", 0))
	text, _, isErr := callTool(t, c, "chat", map[string]any{"prompt": "p"})
	want := "Error executing gemini: Command failed: exit status 1\nStderr: Error: boom"
	if !isErr || text != want {
		t.Errorf("chat with a failing CLI = %q, isError %v, want %q", text, isErr, want)
	}
}
