package mcpbridge

import (
	"context"
	"errors"
	"testing"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/geminitest"
)

// TestNotDiscovered: a Bridge with servers that never discovered says so
// from Run, GenAITools and Execute, instead of offering the model no tools;
// no request reaches the model. After Discover the same calls work, and a
// Bridge without servers needs no discovery.
func TestNotDiscovered(t *testing.T) {
	ctx := context.Background()
	b := newBridge(t, nil, mcptestExec("main"))
	srv := geminitest.New(t, nil, geminitest.Text("unused"))
	history := []*genai.Content{genai.NewContentFromText("hi", genai.RoleUser)}

	if _, err := b.Run(ctx, srv.Client(ctx).Models, e2eModel, history, nil, nil); !errors.Is(err, ErrNotDiscovered) {
		t.Errorf("Run before Discover = %v, want ErrNotDiscovered", err)
	}
	if got := len(srv.Requests()); got != 0 {
		t.Errorf("Run before Discover sent %d requests, want 0", got)
	}
	if tools, err := b.GenAITools(); !errors.Is(err, ErrNotDiscovered) || tools != nil {
		t.Errorf("GenAITools before Discover = %v, %v, want nil, ErrNotDiscovered", tools, err)
	}
	for _, r := range b.ExecuteAll(ctx, []*genai.FunctionCall{{Name: "echo", Args: map[string]any{"text": "x"}}}) {
		if !errors.Is(r.Err, ErrNotDiscovered) || !errors.Is(r.Err, ErrUnknownTool) {
			t.Errorf("ExecuteAll before Discover: Err = %v, want ErrUnknownTool and ErrNotDiscovered", r.Err)
		}
	}

	discover(t, b)
	if tools, err := b.GenAITools(); err != nil || len(tools) == 0 {
		t.Errorf("GenAITools after Discover = %v, %v, want the tools", tools, err)
	}
	if r := b.Execute(ctx, &genai.FunctionCall{Name: "nope"}); errors.Is(r.Err, ErrNotDiscovered) {
		t.Errorf("Execute(unknown) after Discover: Err = %v, want no ErrNotDiscovered", r.Err)
	}

	empty := newBridge(t, nil)
	if _, err := empty.GenAITools(); err != nil {
		t.Errorf("GenAITools of a Bridge without servers = %v, want nil", err)
	}
}
