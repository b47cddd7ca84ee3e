package mcpbridge

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/geminitest"
)

// TestEditedDeclarationsStayLocal edits what Declare returns and what
// one request carried; the next request is unchanged.
func TestEditedDeclarationsStayLocal(t *testing.T) {
	main := mcptestExec("main")
	main.IncludeTools = []string{"lookup"}
	b := newBridge(t, nil, main)
	discover(t, b)
	ctx := context.Background()

	decl, err := b.Declare(ctx, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := decl.Tools[0].FunctionDeclarations[0]
	d.Description = "edited by the host"
	d.Parameters.Properties["name"].Description = "edited too"
	d.Parameters.Required = append(d.Parameters.Required[:0], "nobody")

	srv := geminitest.New(t, nil, geminitest.Calls(geminitest.Call{Name: "lookup", Args: map[string]any{"name": "ann"}}), geminitest.Text("ok"))
	models := srv.Client(ctx).Models
	// A middleware that edits the declarations of the first request it
	// forwards, as a host might.
	first := true
	gen := generatorFunc(func(ctx context.Context, model string, contents []*genai.Content, cfg *genai.GenerateContentConfig) (*genai.GenerateContentResponse, error) {
		if first {
			first = false
			for _, tool := range cfg.Tools {
				for _, fd := range tool.FunctionDeclarations {
					fd.Description = "edited in flight"
					fd.Parameters.Properties["name"].Type = genai.TypeInteger
				}
			}
		}
		return models.GenerateContent(ctx, model, contents, cfg)
	})
	if _, err := hostLoop(ctx, b, gen, prompt(), nil, nil, false); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("sent %d requests, want 2", len(reqs))
	}
	if got := reqs[0].Declaration("lookup").Description; got != "edited in flight" {
		t.Errorf("first request's description = %q, want the middleware's edit", got)
	}
	second := reqs[1].Declaration("lookup")
	want, _ := b.Tool("lookup")
	if second.Description != want.Description || second.Parameters.Properties["name"].Type != "STRING" ||
		!cmp.Equal(second.Parameters.Required, []string{"name"}) {
		t.Errorf("second request's declaration = %q %v %v, want the tool's own", second.Description,
			second.Parameters.Properties["name"].Type, second.Parameters.Required)
	}
	if again, _ := b.Declare(ctx, nil, nil); again.Tools[0].FunctionDeclarations[0].Description != want.Description {
		t.Errorf("Declare() after edits = %q, want %q", again.Tools[0].FunctionDeclarations[0].Description, want.Description)
	}
}

func TestStructuredContent(t *testing.T) {
	raw := `{"content":[{"type":"text","text":"42 items"}],"structuredContent":{"count":42,"items":["a"]}}`
	r, err := convertResult(json.RawMessage(raw), convertOptions{Name: "n", Tool: "n", TextLimit: 5})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"count": json.Number("42"), "items": []any{"a"}}
	got := r.StructuredContent()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("StructuredContent() mismatch (-want +got):\n%s", diff)
	}
	got.(map[string]any)["items"].([]any)[0] = "edited"
	if diff := cmp.Diff(want, r.StructuredContent()); diff != "" {
		t.Errorf("StructuredContent() after editing a copy (-want +got):\n%s", diff)
	}
	if (&CallResult{}).StructuredContent() != nil || (*CallResult)(nil).StructuredContent() != nil {
		t.Error("StructuredContent() of a result without it is not nil")
	}
}
