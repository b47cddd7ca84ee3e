package mcpbridge

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/mark3labs/mcp-go/mcp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
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
		t.Run(string(tr), func(t *testing.T) {
			// Pages of one prompt: the list kept at discovery is read to
			// the last page.
			b := newBridge(t, nil, serverFor(t, "p", tr, testserver.Options{Offers: true, PageSize: 1}))
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
		{"missing required", "p", "greeting", map[string]string{"style": "x"}, ErrInvalidArguments, "missing required name"},
		{"unknown argument", "p", "plain", map[string]string{"b": "1", "a": "2"}, ErrInvalidArguments, "unknown a, b"},
		{"both", "p", "greeting", map[string]string{"x": "1"}, ErrInvalidArguments, "missing required name; unknown x"},
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
	got, err := b.ListPrompts(ctx, "")
	if err != nil {
		t.Fatalf("ListPrompts(\"\") = %v", err)
	}
	var names []string
	for _, p := range got {
		names = append(names, p.Server+"/"+p.Name)
	}
	if diff := cmp.Diff([]string{"only/greeting", "only/plain", "p/greeting", "p/plain"}, names); diff != "" {
		t.Errorf("ListPrompts(\"\") (-want +got):\n%s", diff)
	}
}

// TestPromptsListChanged: the prompt list is read once at discovery and
// served from then on without a request per call; a prompt the server adds
// at run time (announced by prompts/list_changed) is read again and seen
// by ListPrompts and GetPrompt's argument check. Requests are
// counted by their client spans, in the trace of the caller's context:
// the connection may list again in the background, on the notification
// and, when discovery listed before the server acknowledged the
// subscription to changes, to check what it read then.
func TestPromptsListChanged(t *testing.T) {
	for _, tc := range []struct {
		name     string
		tr       Transport
		protocol string // "" detects the era: 2026-07-28 with the test server
		// held: the server holds the subscriptions/listen request until
		// the prompt is added, so that its notification is lost and only
		// the check of the list read at discovery finds the change.
		held bool
	}{
		{"stdio", TransportStdio, "", false},
		{"stdio legacy", TransportStdio, "legacy", false},
		{"sse", TransportSSE, "", false},
		{"http", TransportHTTP, "", false},
		{"http legacy", TransportHTTP, "legacy", false},
		{"http subscription held", TransportHTTP, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			exp := tracetest.NewInMemoryExporter()
			tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
			t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
			release := func() {}
			var cfg ServerConfig
			if tc.held {
				var h *testserver.HTTP
				cfg, h = httpServer(t, "p", tc.tr, testserver.Options{Offers: true})
				_, release = h.Hold(string(mcp.MethodSubscriptionsListen))
				defer release()
			} else {
				cfg = serverFor(t, "p", tc.tr, testserver.Options{Offers: true})
			}
			cfg.Protocol = tc.protocol
			b := newBridge(t, &Options{TracerProvider: tp}, cfg)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			// traced returns a context in a trace of its own, and a count of
			// the requests named name sent in that trace.
			traced := func(ctx context.Context, phase string) (context.Context, func(name string) int) {
				ctx, span := tp.Tracer("test").Start(ctx, phase)
				span.End()
				id := span.SpanContext().TraceID()
				return ctx, func(name string) int {
					n := 0
					for _, s := range exp.GetSpans() {
						if s.Name == name && s.SpanContext.TraceID() == id {
							n++
						}
					}
					return n
				}
			}
			dctx, cancelDiscovery := context.WithTimeout(context.Background(), time.Minute) // as discover(t, b)
			defer cancelDiscovery()
			dctx, discovery := traced(dctx, "discover")
			if err := b.Discover(dctx); err != nil {
				t.Fatalf("Discover() = %v", err)
			}
			if got := discovery("prompts/list"); got != 1 {
				t.Fatalf("prompts/list requests of discovery = %d, want 1", got)
			}
			uctx, uses := traced(ctx, "uses")
			for range 3 {
				if got, err := b.ListPrompts(uctx, "p"); err != nil || len(got) != 2 {
					t.Fatalf("ListPrompts(p) = %v, %v; want 2 prompts", got, err)
				}
				if _, err := b.ListPrompts(uctx, ""); err != nil {
					t.Fatalf("ListPrompts(\"\") = %v", err)
				}
				if _, err := b.GetPrompt(uctx, "p", "plain", nil); err != nil {
					t.Fatalf("GetPrompt(plain) = %v", err)
				}
			}
			if got := uses("prompts/list"); got != 0 {
				t.Errorf("prompts/list requests of 9 uses = %d, want 0 (served from the list read at discovery)", got)
			}

			if _, err := call(t, b, "p", "add_prompt", map[string]any{"name": "fresh"}); err != nil {
				t.Fatalf("add_prompt(fresh) = %v", err)
			}
			release()
			// The re-read follows the notification on its own; wait for it
			// (each ListPrompts is served from the kept list).
			for {
				got, err := b.ListPrompts(ctx, "p")
				if err != nil {
					t.Fatalf("ListPrompts(p) = %v", err)
				}
				if slices.ContainsFunc(got, func(p Prompt) bool { return p.Name == "fresh" }) {
					break
				}
				select {
				case <-ctx.Done():
					t.Fatalf("ListPrompts(p) = %v after prompts/list_changed, want fresh among them", got)
				case <-time.After(10 * time.Millisecond):
				}
			}
			all, err := b.ListPrompts(ctx, "")
			if err != nil {
				t.Fatalf("ListPrompts(\"\") = %v", err)
			}
			want := append(slices.Clone(wantPrompts), Prompt{Server: "p", Name: "fresh", Description: "added at run time",
				Arguments: []PromptArgument{{Name: "topic"}}})
			sortPrompts := cmpopts.SortSlices(func(a, b Prompt) bool { return a.Name < b.Name })
			if diff := cmp.Diff(want, all, sortPrompts); diff != "" {
				t.Errorf("ListPrompts(\"\") after add_prompt (-want +got):\n%s", diff)
			}
			gctx, gets := traced(ctx, "gets")
			if _, err := b.GetPrompt(gctx, "p", "fresh", map[string]string{"bogus": "1"}); !errors.Is(err, ErrInvalidArguments) {
				t.Errorf("GetPrompt(fresh, bogus) = %v, want an error wrapping ErrInvalidArguments", err)
			}
			contents, err := b.GetPrompt(gctx, "p", "fresh", map[string]string{"topic": "x"})
			if err != nil || len(contents) != 1 || contents[0].Parts[0].Text != "prompt fresh" {
				t.Errorf("GetPrompt(fresh) = %v, %v; want the text \"prompt fresh\"", contents, err)
			}
			if got := gets("prompts/get fresh"); got != 1 {
				t.Errorf("prompts/get fresh requests = %d, want 1 (the bad arguments are refused without one)", got)
			}
		})
	}
}

// BenchmarkGetPrompt compares GetPrompt served from the kept list with the
// same call when the list must be read first (as before the list was
// kept: one prompts/list more per call), over stdio.
func BenchmarkGetPrompt(b *testing.B) {
	ctx := context.Background()
	br, err := New(&Config{Servers: []ServerConfig{stdioServer("p", "-name=p", "-offers")}}, &Options{Logger: quiet()})
	if err != nil {
		b.Fatalf("New() error: %v", err)
	}
	b.Cleanup(func() { _ = br.Close() })
	if err := br.Discover(ctx); err != nil {
		b.Fatalf("Discover() error: %v", err)
	}
	s := br.byName["p"]
	args := map[string]string{"name": "Ada"}
	for _, bc := range []struct {
		name   string
		before func()
	}{
		{"kept", func() {}},
		{"read each call", s.prompts.changed},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				bc.before()
				if _, err := br.GetPrompt(ctx, "p", "greeting", args); err != nil {
					b.Fatalf("GetPrompt() error: %v", err)
				}
			}
		})
	}
}
