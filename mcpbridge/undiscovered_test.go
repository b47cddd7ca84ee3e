package mcpbridge

import (
	"context"
	"errors"
	"testing"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/geminitest"
)

// TestNotDiscovered: a Bridge with servers that never discovered says so
// from Declare (a host's loop on it) and Execute, instead of offering the model no tools;
// no request reaches the model. After Discover the same calls work, and a
// Bridge without servers needs no discovery.
func TestNotDiscovered(t *testing.T) {
	ctx := context.Background()
	b := newBridge(t, nil, mcptestExec("main"))
	srv := geminitest.New(t, nil, geminitest.Text("unused"))
	history := []*genai.Content{genai.NewContentFromText("hi", genai.RoleUser)}

	if _, err := hostLoop(ctx, b, srv.Client(ctx).Models, history, nil, nil, false); !errors.Is(err, ErrNotDiscovered) {
		t.Errorf("a loop before Discover = %v, want ErrNotDiscovered", err)
	}
	if got := len(srv.Requests()); got != 0 {
		t.Errorf("a loop before Discover sent %d requests, want 0", got)
	}
	if d, err := b.Declare(ctx, history, nil); !errors.Is(err, ErrNotDiscovered) || d != nil {
		t.Errorf("Declare before Discover = %v, %v, want nil, ErrNotDiscovered", d, err)
	}
	if r := b.Execute(ctx, &genai.FunctionCall{Name: "echo", Args: map[string]any{"text": "x"}}); !errors.Is(r.Err, ErrNotDiscovered) || !errors.Is(r.Err, ErrUnknownTool) {
		t.Errorf("Execute before Discover: Err = %v, want ErrUnknownTool and ErrNotDiscovered", r.Err)
	}

	discover(t, b)
	if d, err := b.Declare(ctx, history, nil); err != nil || len(d.Tools) == 0 {
		t.Errorf("Declare after Discover = %v, %v, want the tools", d, err)
	}
	if r := b.Execute(ctx, &genai.FunctionCall{Name: "nope"}); errors.Is(r.Err, ErrNotDiscovered) {
		t.Errorf("Execute(unknown) after Discover: Err = %v, want no ErrNotDiscovered", r.Err)
	}

	empty := newBridge(t, nil)
	if d, err := empty.Declare(ctx, history, nil); err != nil || d.Tools != nil {
		t.Errorf("Declare of a Bridge without servers = %v, %v, want no tools and nil", d, err)
	}
}
