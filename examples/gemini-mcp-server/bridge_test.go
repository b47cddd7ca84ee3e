package main

import (
	"log/slog"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/geminitest"
	"github.com/mcpgenai/bridge/mcpbridge"
	"github.com/mcpgenai/bridge/mcpbridge/agent"
	"github.com/mcpgenai/bridge/schema"
)

// These tests put the bridge on the other side of this server: an
// mcpbridge.Bridge starts the built program over stdio, as a host program
// configured with it would, so Gemini (the outer model) reaches Gemini (the
// inner model behind the server) through MCP.

// newBridge starts a Bridge for target whose only server, "gemini", is this
// program over stdio with its genai client pointed at inner, and discovers
// its tools.
func newBridge(t *testing.T, inner *geminitest.Server, target schema.Target) *mcpbridge.Bridge {
	t.Helper()
	env := map[string]string{}
	for _, kv := range fakeEnv(inner) {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	cfg := &mcpbridge.Config{Servers: []mcpbridge.ServerConfig{{
		Name:    "gemini",
		Command: program(t),
		Env:     env,
		Timeout: 30 * time.Second,
		Trust:   true,
	}}}
	logger := slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))
	b, err := mcpbridge.New(cfg, &mcpbridge.Options{Target: target, Logger: logger})
	if err != nil {
		t.Fatalf("mcpbridge.New: %v", err)
	}
	t.Cleanup(func() {
		if err := b.Close(); err != nil {
			t.Errorf("Bridge.Close: %v", err)
		}
	})
	if err := b.Discover(t.Context()); err != nil {
		t.Fatalf("Discover: %v", err)
	}
	return b
}

func TestBridgeDiscoversChatTools(t *testing.T) {
	inner := geminitest.New(t, nil)
	for _, target := range []schema.Target{schema.Gemini, schema.Vertex, schema.JSONSchema} {
		t.Run(target.String(), func(t *testing.T) {
			b := newBridge(t, inner, target)
			st := b.Status()
			if len(st.Servers) != 1 || st.Servers[0].State != mcpbridge.Connected || !st.Discovered {
				t.Fatalf("status:\n%s", st)
			}
			var names []string
			for _, tool := range b.Tools() {
				names = append(names, tool.Name+" = "+tool.Server+"/"+tool.ServerTool)
				if v := schema.CheckDeclaration(tool.Declaration, target); len(v) > 0 {
					t.Errorf("declaration %s breaks the %s rules: %v", tool.Name, target, v)
				}
			}
			if diff := cmp.Diff([]string{"chat = gemini/chat", "chat-reply = gemini/chat-reply"}, names); diff != "" {
				t.Errorf("registered tools (-want +got):\n%s", diff)
			}
		})
	}
	if n := len(inner.Requests()); n != 0 {
		t.Errorf("discovery sent %d requests to the inner model, want 0", n)
	}
}

// funcResponse returns a turn that checks the single function response the
// outer model receives against want, then answers with next.
func funcResponse(t *testing.T, want map[string]any, next geminitest.Turn) geminitest.Turn {
	return func(req *geminitest.Request) geminitest.Response {
		frs := req.FunctionResponses()
		if len(frs) != 1 {
			t.Errorf("the outer model got %d function responses, want 1", len(frs))
			return next(req)
		}
		if diff := cmp.Diff(want, frs[0].Response); diff != "" {
			t.Errorf("function response of %s (-want +got):\n%s", frs[0].Name, diff)
		}
		return next(req)
	}
}

// sessionResponse checks that the outer model's only function response is a
// chat answer: the inner model's text and, in structured content, a session
// ID, stored in *id when id is not nil.
func sessionResponse(t *testing.T, text string, id *string, next geminitest.Turn) geminitest.Turn {
	return func(req *geminitest.Request) geminitest.Response {
		frs := req.FunctionResponses()
		if len(frs) != 1 {
			t.Errorf("the outer model got %d function responses, want 1", len(frs))
			return next(req)
		}
		out, _ := frs[0].Response["output"].(map[string]any)
		sc, _ := out["structuredContent"].(map[string]any)
		sid, _ := sc["sessionId"].(string)
		if out["text"] != text || sid == "" || len(sc) != 1 || len(out) != 2 {
			t.Errorf("function response of %s = %v, want output {text: %q, structuredContent: {sessionId}}", frs[0].Name, frs[0].Response, text)
		}
		if id != nil {
			*id = sid
		}
		return next(req)
	}
}

func TestBridgeRunsGeminiThroughMCP(t *testing.T) {
	inner := geminitest.New(t, nil,
		geminitest.Text("Paris is the capital of France."),
		geminitest.Text("Madrid is the capital of Spain."),
		geminitest.Text("About 2.1 million people."),
	)
	b := newBridge(t, inner, schema.Gemini)

	// The outer model starts two sessions, then continues the first one by
	// the ID the bridge passed it (structuredContent), not the latest.
	var france string // the first session's ID, as the outer model read it
	outer := geminitest.New(t, nil,
		geminitest.Calls(geminitest.Call{Name: "chat", Args: map[string]any{"prompt": "What is the capital of France?"}}),
		sessionResponse(t, "Paris is the capital of France.", &france,
			geminitest.Calls(geminitest.Call{Name: "chat", Args: map[string]any{"prompt": "What is the capital of Spain?"}})),
		sessionResponse(t, "Madrid is the capital of Spain.", nil, func(req *geminitest.Request) geminitest.Response {
			return geminitest.Calls(geminitest.Call{Name: "chat-reply", Args: map[string]any{"prompt": "How many people live there?", "sessionId": france}})(req)
		}),
		sessionResponse(t, "About 2.1 million people.", nil,
			geminitest.Calls(geminitest.Call{Name: "chat-reply", Args: map[string]any{"prompt": "And now?", "sessionId": "gone"}})),
		funcResponse(t, map[string]any{"error": `Error executing gemini: unknown session "gone" (sessions are kept in memory, at most 100)`},
			geminitest.Text("Paris, with about 2.1 million people.")),
	)
	gen := outer.Client(t.Context()).Models
	history := []*genai.Content{genai.NewContentFromText("Ask Gemini about Paris.", genai.RoleUser)}
	a := agent.New(b, nil)
	defer a.Close()
	res, err := a.Run(t.Context(), gen, "gemini-3-pro", history, nil)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if got, want := res.Response.Text(), "Paris, with about 2.1 million people."; got != want {
		t.Errorf("final answer = %q, want %q", got, want)
	}
	// A person sees the answer, then the session ID as pretty JSON; the
	// IDs are random, so they are replaced by a marker.
	sessionJSON := regexp.MustCompile(`"sessionId": "[0-9a-f-]{36}"`)
	var shown []string
	for _, r := range res.Results {
		shown = append(shown, r.Name+": "+sessionJSON.ReplaceAllString(r.ReturnDisplay, `"sessionId": "ID"`))
	}
	idBlock := "\n```json\n{\n  \"sessionId\": \"ID\"\n}\n```"
	want := []string{
		"chat: Paris is the capital of France." + idBlock,
		"chat: Madrid is the capital of Spain." + idBlock,
		"chat-reply: About 2.1 million people." + idBlock,
		`chat-reply: Error: MCP tool 'chat-reply' reported an error.` + "\n" +
			`Error executing gemini: unknown session "gone" (sessions are kept in memory, at most 100)`,
	}
	if diff := cmp.Diff(want, shown); diff != "" {
		t.Errorf("return displays (-want +got):\n%s", diff)
	}
	if outer.Remaining() != 0 {
		t.Errorf("%d outer turns left", outer.Remaining())
	}

	// The reply continued the first session, not the latest one.
	reqs := inner.Requests()
	if len(reqs) != 3 {
		t.Fatalf("the inner model got %d requests, want 3", len(reqs))
	}
	wantContents := []string{
		"user: What is the capital of France?",
		"model: Paris is the capital of France.",
		"user: How many people live there?",
	}
	if diff := cmp.Diff(wantContents, contents(reqs[2])); diff != "" {
		t.Errorf("contents of the inner reply request (-want +got):\n%s", diff)
	}
	for _, r := range reqs {
		if r.Model != "gemini-2.5-flash" || len(r.Config.Tools) != 0 {
			t.Errorf("inner request for %q with %d tools, want gemini-2.5-flash without tools", r.Model, len(r.Config.Tools))
		}
	}
}
