package mcpbridge

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
)

var wantPrompts = []Prompt{
	{Server: "p", Name: "greeting", Description: "greets someone", Arguments: []PromptArgument{
		{Name: "name", Description: "who to greet", Required: true},
		{Name: "style", Description: "formal or casual"},
	}},
	{Server: "p", Name: "plain", Description: "no arguments"},
}

func TestPrompts(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.String(), func(t *testing.T) {
			b := newBridge(t, nil, serverFor(t, "p", tr, testserver.Options{Offers: true}))
			discover(t, b)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			got, err := b.ListPrompts(ctx, "p")
			if err != nil {
				t.Fatalf("ListPrompts(p) = %v", err)
			}
			if diff := cmp.Diff(wantPrompts, got); diff != "" {
				t.Errorf("ListPrompts(p) (-want +got):\n%s", diff)
			}
			contents, err := b.GetPrompt(ctx, "p", "greeting", map[string]string{"name": "Ada", "style": "formal"})
			if err != nil {
				t.Fatalf("GetPrompt(greeting) = %v", err)
			}
			want := []*genai.Content{
				{Role: genai.RoleUser, Parts: []*genai.Part{{Text: "Greet Ada, formal."}}},
				{Role: genai.RoleModel, Parts: []*genai.Part{{Text: "Hello, Ada!"}}},
				{Role: genai.RoleUser, Parts: []*genai.Part{{Text: "hello world"}}},
			}
			if diff := cmp.Diff(want, contents); diff != "" {
				t.Errorf("GetPrompt(greeting) (-want +got):\n%s", diff)
			}
		})
	}
}

func TestGetPromptErrors(t *testing.T) {
	b := newBridge(t, nil, serverFor(t, "p", TransportStdio, testserver.Options{Offers: true}), stdioServer("bare", "-bare"))
	discover(t, b)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tests := []struct {
		name, server, prompt string
		args                 map[string]string
		want                 error
		wantText             string
	}{
		{"missing required", "p", "greeting", map[string]string{"style": "x"}, ErrPromptArguments, "missing required name"},
		{"unknown argument", "p", "plain", map[string]string{"b": "1", "a": "2"}, ErrPromptArguments, "unknown a, b"},
		{"both", "p", "greeting", map[string]string{"x": "1"}, ErrPromptArguments, "missing required name; unknown x"},
		{"unknown prompt", "p", "nope", nil, ErrUnknownPrompt, `unknown prompt "nope"`},
		{"server without prompts", "bare", "plain", nil, ErrUnknownPrompt, `unknown prompt "plain"`},
		{"unknown server", "nobody", "plain", nil, ErrUnknownServer, "nobody"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := b.GetPrompt(ctx, tc.server, tc.prompt, tc.args)
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.wantText) {
				t.Errorf("GetPrompt(%s, %s, %v) = %v, %v; want an error wrapping %v saying %q", tc.server, tc.prompt, tc.args, got, err, tc.want, tc.wantText)
			}
		})
	}
}

func TestPromptsAllServers(t *testing.T) {
	b := newBridge(t, nil, stdioServer("bare", "-bare"), stdioServer("only", "-offers-only"), serverFor(t, "p", TransportSSE, testserver.Options{Offers: true}))
	discover(t, b)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	got, err := b.Prompts(ctx)
	if err != nil {
		t.Fatalf("Prompts() = %v", err)
	}
	var names []string
	for _, p := range got {
		names = append(names, p.Server+"/"+p.Name)
	}
	if diff := cmp.Diff([]string{"only/greeting", "only/plain", "p/greeting", "p/plain"}, names); diff != "" {
		t.Errorf("Prompts() (-want +got):\n%s", diff)
	}
}

func TestPromptContents(t *testing.T) {
	tests := []struct {
		name    string
		raw     string
		want    []*genai.Content
		wantErr bool
	}{
		{"image and link", `{"messages":[{"role":"user","content":{"type":"image","mimeType":"image/png","data":"AAE="}},{"role":"assistant","content":{"type":"resource_link","uri":"u://x","name":"x"}}]}`,
			[]*genai.Content{
				{Role: genai.RoleUser, Parts: []*genai.Part{{InlineData: &genai.Blob{MIMEType: "image/png", Data: []byte{0, 1}}}}},
				{Role: genai.RoleModel, Parts: []*genai.Part{{Text: "Resource Link: x at u://x"}}},
			}, false},
		{"unknown content type is a note", `{"messages":[{"role":"user","content":{"type":"hologram"}}]}`,
			[]*genai.Content{{Role: genai.RoleUser, Parts: []*genai.Part{{Text: `[content of unknown type "hologram" dropped]`}}}}, false},
		{"no messages", `{}`, []*genai.Content{}, false},
		{"unknown role", `{"messages":[{"role":"system","content":{"type":"text","text":"x"}}]}`, nil, true},
		{"not an object", `[]`, nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := promptContents([]byte(tc.raw), 100)
			if (err != nil) != tc.wantErr {
				t.Fatalf("promptContents(%s) error = %v, want error %v", tc.raw, err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("promptContents(%s) (-want +got):\n%s", tc.raw, diff)
			}
		})
	}
}
