package mcpbridge

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/geminitest"
	"github.com/mcpgenai/bridge/mcpbridge/sampling"
)

// TestNPMSampling: the pinned server-everything offers its sampling tools
// only to a client that declares sampling (and sampling as a task), and
// its trigger-sampling-request and trigger-sampling-request-async get
// Gemini's answer, the latter through a task it polls on the client.
func TestNPMSampling(t *testing.T) {
	everything := npmBin(t, "mcp-server-everything")
	cfg := ServerConfig{Name: "everything", Command: everything, Args: []string{"stdio"}, Timeout: nodeTimeout, Trust: true}

	off := newBridge(t, nil, cfg)
	discover(t, off)
	for _, tool := range off.Tools() {
		if strings.HasPrefix(tool.ServerTool, "trigger-sampling") {
			t.Errorf("without sampling the server offers %s", tool.ServerTool)
		}
	}

	srv := geminitest.New(t, nil, geminitest.Text("Sync answer."), geminitest.Text("Async answer."))
	rv := &reviews{}
	b := newBridge(t, &Options{Client: &ClientFeatures{Sampling: &Sampling{
		Sampler: sampling.Gemini(srv.Client(context.Background()).Models, "gemini-2.5-flash"),
		Review:  rv.review,
	}}}, cfg)
	discover(t, b)
	names := map[string]string{}
	for _, tool := range b.Tools() {
		names[tool.ServerTool] = tool.Name
	}
	for _, tc := range []struct {
		tool string
		want []string
	}{
		{"trigger-sampling-request", []string{"LLM sampling result", `"text": "Sync answer."`, `"model": "gemini-2.5-flash"`}},
		{"trigger-sampling-request-async", []string{"[COMPLETED] Async sampling completed!", "Task created: ", `"text": "Async answer."`, "io.modelcontextprotocol/related-task"}},
	} {
		name, ok := names[tc.tool]
		if !ok {
			t.Fatalf("server-everything offers no %s; tools %v", tc.tool, slices.Sorted(func(yield func(string) bool) {
				for k := range names {
					if !yield(k) {
						return
					}
				}
			}))
		}
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		r := b.Execute(ctx, &genai.FunctionCall{Name: name, Args: map[string]any{"prompt": "Say something.", "maxTokens": 50}})
		cancel()
		if r.Err != nil {
			t.Errorf("Execute(%s) = %v", tc.tool, r.Err)
			continue
		}
		t.Logf("%s: %s", tc.tool, r.ReturnDisplay)
		for _, w := range tc.want {
			if !strings.Contains(r.ReturnDisplay, w) {
				t.Errorf("Execute(%s) = %q, want it to contain %q", tc.tool, r.ReturnDisplay, w)
			}
		}
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("Gemini got %d requests, want 2", len(reqs))
	}
	for _, req := range reqs {
		if req.Config.MaxOutputTokens != 50 || req.Config.SystemInstruction == nil || req.Config.SystemInstruction.Parts[0].Text != "You are a helpful test server." {
			t.Errorf("Gemini request config = %s, want maxOutputTokens 50 and the server's system prompt", jsonOf(req.Config))
		}
	}
	rv.mu.Lock()
	defer rv.mu.Unlock()
	if len(rv.before) != 2 || rv.before[0].Server != "everything" {
		t.Errorf("reviews before = %+v, want two of server everything", rv.before)
	}
}
