package mcpbridge

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/confirm"
	"github.com/mcpgenai/bridge/geminitest"
	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
)

// resourceBridge connects an offers-only stdio server ("docs"), a
// streamable-HTTP test server with a blob ("web") and a stdio server
// without resources ("bare"), with the built-in resource tools. All three
// are trusted, so what they answer is not marked as untrusted data.
func resourceBridge(t *testing.T, policy *confirm.Policy) *Bridge {
	t.Helper()
	web, _ := httpServer(t, "web", TransportHTTP, testserver.Options{Blob: true})
	docs, bare := stdioServer("docs", "-offers-only"), stdioServer("bare", "-bare")
	docs.Trust, web.Trust, bare.Trust = true, true, true
	b := newBridge(t, &Options{ResourceTools: true, Policy: policy}, docs, web, bare)
	discover(t, b)
	return b
}

func TestResourceTools(t *testing.T) {
	b := resourceBridge(t, &confirm.Policy{AutoAllowReadOnly: true})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	for _, name := range []string{listResourcesTool, readResourceTool} {
		tool, ok := b.Tool(name)
		if !ok {
			t.Fatalf("Tool(%s) not registered", name)
		}
		if tool.Server != resourceToolsServer || tool.Annotations.ReadOnlyHint == nil || !*tool.Annotations.ReadOnlyHint {
			t.Errorf("Tool(%s) = server %q, read-only %v; want %q, read-only", name, tool.Server, tool.Annotations.ReadOnlyHint, resourceToolsServer)
		}
	}

	r := b.Execute(ctx, &genai.FunctionCall{Name: listResourcesTool})
	if r.Err != nil {
		t.Fatalf("Execute(%s) = %v", listResourcesTool, r.Err)
	}
	want := map[string]any{
		"resources": []any{
			map[string]any{"server": "docs", "uri": "test://hello", "name": "hello", "mimeType": "text/plain"},
			map[string]any{"server": "web", "uri": "test://blob", "name": "blob", "mimeType": "image/png"},
			map[string]any{"server": "web", "uri": "test://hello", "name": "hello", "mimeType": "text/plain"},
		},
		"resourceTemplates": []any{
			map[string]any{"server": "docs", "uriTemplate": "test://greet/{name}", "name": "greet"},
		},
	}
	if diff := cmp.Diff(want, jsonValue(t, r.FunctionResponse().Response["output"])); diff != "" {
		t.Errorf("Execute(%s) output (-want +got):\n%s", listResourcesTool, diff)
	}
	r = b.Execute(ctx, &genai.FunctionCall{Name: listResourcesTool, Args: map[string]any{"server": "docs"}})
	if got := jsonValue(t, r.FunctionResponse().Response["output"]).(map[string]any)["resources"]; len(got.([]any)) != 1 {
		t.Errorf("Execute(%s, docs) resources = %v, want docs' one", listResourcesTool, got)
	}

	for _, tc := range []struct {
		server, uri string
		want        []*genai.Part
	}{
		{"docs", "test://hello", []*genai.Part{{Text: "hello world"}}},
		{"docs", "test://greet/ada", []*genai.Part{{Text: "greetings from test://greet/ada"}}},
		{"web", "test://blob", []*genai.Part{{InlineData: &genai.Blob{MIMEType: "image/png", Data: []byte("\x89PNG\r\n")}}}},
	} {
		r := b.Execute(ctx, &genai.FunctionCall{Name: readResourceTool, Args: map[string]any{"server": tc.server, "uri": tc.uri}})
		if r.Err != nil {
			t.Errorf("Execute(%s, %s) = %v", readResourceTool, tc.uri, r.Err)
			continue
		}
		if diff := cmp.Diff(tc.want, r.LLMContent); diff != "" {
			t.Errorf("Execute(%s, %s) content (-want +got):\n%s", readResourceTool, tc.uri, diff)
		}
	}

	for _, tc := range []struct {
		name     string
		call     *genai.FunctionCall
		wantText string
	}{
		{"unknown server", &genai.FunctionCall{Name: listResourcesTool, Args: map[string]any{"server": "nobody"}}, `unknown server "nobody"; the servers are: docs, web, bare`},
		{"missing resource", &genai.FunctionCall{Name: readResourceTool, Args: map[string]any{"server": "docs", "uri": "test://missing"}}, "test://missing"},
		{"missing uri", &genai.FunctionCall{Name: readResourceTool, Args: map[string]any{"server": "docs"}}, "uri"},
	} {
		r := b.Execute(ctx, tc.call)
		if !errors.Is(r.Err, ErrToolError) && !errors.Is(r.Err, ErrInvalidArguments) {
			t.Errorf("%s: Execute() = %v, want an error the model reads", tc.name, r.Err)
			continue
		}
		if !strings.Contains(r.Err.Error(), tc.wantText) {
			t.Errorf("%s: Execute() = %v, want it to say %q", tc.name, r.Err, tc.wantText)
		}
	}
}

// jsonValue returns v as plain JSON values (json.Number and typed maps
// become float64 and map[string]any).
func jsonValue(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestResourceToolsWithProgress: a built-in tool runs with a progress
// callback set (it belongs to no configured server).
func TestResourceToolsWithProgress(t *testing.T) {
	docs := stdioServer("docs", "-offers-only")
	docs.Trust = true // its answer unmarked
	b := newBridge(t, &Options{ResourceTools: true, Policy: &confirm.Policy{AutoAllowReadOnly: true}, OnProgress: func(Progress) {}}, docs)
	discover(t, b)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r := b.Execute(ctx, &genai.FunctionCall{Name: readResourceTool, Args: map[string]any{"server": "docs", "uri": "test://hello"}})
	if r.Err != nil || len(r.LLMContent) != 1 || r.LLMContent[0].Text != "hello world" {
		t.Errorf("Execute(%s) with OnProgress = %v, %v; want hello world", readResourceTool, r.LLMContent, r.Err)
	}
}

func TestResourceToolsConfirmation(t *testing.T) {
	b := resourceBridge(t, nil) // the zero policy asks, and nobody answers
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r := b.Execute(ctx, &genai.FunctionCall{Name: readResourceTool, Args: map[string]any{"server": "docs", "uri": "test://hello"}})
	if !errors.Is(r.Err, ErrDenied) {
		t.Errorf("Execute(%s) with the zero policy = %v, want ErrDenied", readResourceTool, r.Err)
	}
}

func TestResourceToolsOff(t *testing.T) {
	b := newBridge(t, nil, stdioServer("docs", "-offers-only"))
	discover(t, b)
	if _, ok := b.Tool(listResourcesTool); ok {
		t.Errorf("Tool(%s) registered without Options.ResourceTools", listResourcesTool)
	}
	_, err := New(&Config{Servers: []ServerConfig{stdioServer(resourceToolsServer)}}, &Options{ResourceTools: true})
	var ce *ConfigError
	if !errors.As(err, &ce) {
		t.Errorf("New() with a server named %q = %v, want a ConfigError", resourceToolsServer, err)
	}
}

// TestLoopResourceTools: the model lists the resources, then reads one,
// through a real genai.Client against the strict fake.
func TestLoopResourceTools(t *testing.T) {
	b := resourceBridge(t, &confirm.Policy{AutoAllowReadOnly: true})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var listed, read string
	srv := geminitest.New(t, nil,
		geminitest.Calls(geminitest.Call{Name: listResourcesTool}),
		func(req *geminitest.Request) geminitest.Response {
			if rs := req.FunctionResponses(); len(rs) == 1 {
				out, _ := rs[0].Response["output"].(map[string]any)
				if res, _ := out["resources"].([]any); len(res) > 0 {
					first, _ := res[0].(map[string]any)
					listed, _ = first["uri"].(string)
				}
			}
			return geminitest.Response{Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{Name: readResourceTool,
				Args: map[string]any{"server": "docs", "uri": listed}}}}}
		},
		func(req *geminitest.Request) geminitest.Response {
			if rs := req.FunctionResponses(); len(rs) == 1 {
				read, _ = rs[0].Response["output"].(string)
			}
			return geminitest.Response{Parts: []*genai.Part{{Text: "It says " + read + "."}}}
		},
	)
	res, err := hostLoop(ctx, b, srv.Client(ctx).Models, []*genai.Content{genai.NewContentFromText("What does hello say?", genai.RoleUser)}, nil, nil, false)
	if err != nil {
		t.Fatalf("hostLoop() = %v", err)
	}
	if listed != "test://hello" || res.Response.Text() != "It says hello world." {
		t.Errorf("hostLoop(): listed %q, answered %q; want test://hello, then its text", listed, res.Response.Text())
	}
}
