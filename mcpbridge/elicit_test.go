package mcpbridge

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgenai/bridge/mcpbridge/elicit"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/mcp"
	"google.golang.org/genai"
)

// TestElicit: a tool that asks the user for input reaches the host's
// Options.Elicit through Execute, in both protocol eras, and the call resumes with
// its answer; without Options.Elicit the call fails instead of reading as
// a decline nobody gave.
func TestElicit(t *testing.T) {
	for _, era := range []string{"modern", "legacy"} {
		t.Run(era, func(t *testing.T) {
			var mu sync.Mutex
			var asked []elicit.Request
			answer := elicit.Response{Action: elicit.Accept, Content: map[string]any{"value": "blue"}}
			el := func(_ context.Context, e elicit.Request) (elicit.Response, error) {
				mu.Lock()
				defer mu.Unlock()
				asked = append(asked, e)
				return answer, nil
			}
			srv := stdioServer("s", "-ask", "-era="+era)
			srv.Trust = true
			b := newBridge(t, &Options{Client: &ClientFeatures{Elicit: el}}, srv)
			discover(t, b)
			run := func(b *Bridge, tool string) *CallResult {
				t.Helper()
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				return b.Execute(ctx, &genai.FunctionCall{Name: tool, Args: map[string]any{"question": "colour?"}})
			}
			for _, tc := range []struct {
				tool   string
				answer elicit.Response
				want   string
			}{
				{"ask", elicit.Response{Action: elicit.Accept, Content: map[string]any{"value": "blue"}}, `got {"value":"blue"}`},
				{"ask", elicit.Response{Action: elicit.Decline}, "declined"},
				{"ask", elicit.Response{Action: elicit.Cancel}, "cancelled"},
				{"ask_url", elicit.Response{Action: elicit.Accept}, "visited"},
			} {
				mu.Lock()
				asked, answer = nil, tc.answer
				mu.Unlock()
				r := run(b, tc.tool)
				if r.Err != nil || r.ReturnDisplay != tc.want {
					t.Errorf("Execute(%s) answered %v = %q, %v; want %q", tc.tool, tc.answer.Action, r.ReturnDisplay, r.Err, tc.want)
				}
				mu.Lock()
				if len(asked) != 1 {
					t.Fatalf("Elicit asked %d times, want once", len(asked))
				}
				got := asked[0]
				mu.Unlock()
				want := elicit.Request{Server: "s", ServerTool: tc.tool, Message: "colour?",
					Schema: json.RawMessage(`{"type":"object","properties":{"value":{"type":"string"}},"required":["value"]}`)}
				if era == "legacy" {
					want.ServerTool = "" // asked outside the call
				}
				if tc.tool == "ask_url" {
					want.Message, want.Schema, want.URL, want.ID = "please consent", nil, "https://example.com/consent", "consent-1"
				}
				if (got.Completed != nil) != (tc.tool == "ask_url") {
					t.Errorf("elicit.Request.Completed = %v, want a channel for a URL only", got.Completed)
				}
				got.Completed = nil
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("elicit.Request (-want +got):\n%s", diff)
				}
			}

			// Without Elicit nobody is asked, and nothing reads as if
			// someone had declined: the call fails.
			bare := newBridge(t, nil, srv)
			discover(t, bare)
			r := run(bare, "ask")
			if r.Err == nil || strings.Contains(r.ReturnDisplay, "declined") {
				t.Fatalf("Execute(ask) without Options.Elicit = %q, %v; want an error, not a decline", r.ReturnDisplay, r.Err)
			}
		})
	}
}

// TestElicitError: an Elicit func that cannot answer fails the call with
// its error (2026-07-28), or lets the server say it got no answer (legacy):
// either way the call ends, with no hang and no panic.
func TestElicitError(t *testing.T) {
	for _, era := range []string{"modern", "legacy"} {
		t.Run(era, func(t *testing.T) {
			el := func(context.Context, elicit.Request) (elicit.Response, error) {
				return elicit.Response{}, errors.New("nobody at the keyboard")
			}
			srv := stdioServer("s", "-ask", "-era="+era)
			srv.Trust = true
			b := newBridge(t, &Options{Client: &ClientFeatures{Elicit: el}}, srv)
			discover(t, b)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			r := b.Execute(ctx, &genai.FunctionCall{Name: "ask", Args: map[string]any{"question": "colour?"}})
			if r.Err == nil {
				t.Fatalf("Execute(ask) = %q, nil error; want the call to fail", r.ReturnDisplay)
			}
			if era == "modern" && !strings.Contains(r.Err.Error(), "nobody at the keyboard") {
				t.Errorf("Execute(ask) error = %v, want Elicit's error", r.Err)
			}
			t.Logf("%s: %v", era, r.Err)
		})
	}
}

// TestElicitURLWithoutURL: a URL-mode question without a URL is refused
// with an error instead of reaching Options.Elicit as an empty form.
func TestElicitURLWithoutURL(t *testing.T) {
	asked := false
	hook := elicitFor("s", func(context.Context, elicit.Request) (elicit.Response, error) {
		asked = true
		return elicit.Response{Action: elicit.Accept}, nil
	})
	_, err := hook(context.Background(), mcp.ElicitationParams{Mode: mcp.ElicitationModeURL, Message: "visit"})
	if err == nil || asked {
		t.Errorf("URL elicitation without a URL: err %v, asked %v; want an error and no question", err, asked)
	}
}
