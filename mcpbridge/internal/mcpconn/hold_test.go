package mcpconn

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
)

// TestQuestionHoldsTimeout: a person answering a server's question during
// a call takes longer than the call's Timeout, and the call still
// succeeds, over stdio and streamable HTTP in both eras (elicitation/create
// before 2026-07-28, an input request from then on); a call that merely
// goes silent still ends at Timeout, with or without progress asked.
func TestQuestionHoldsTimeout(t *testing.T) {
	const timeout = 1500 * time.Millisecond
	targets := []struct {
		kind Kind
		era  testserver.Era
	}{
		{Stdio, testserver.EraModern},
		{Stdio, testserver.EraLegacy},
		{StreamableHTTP, testserver.EraModern},
		{StreamableHTTP, testserver.EraLegacy},
	}
	for _, tg := range targets {
		t.Run(tg.kind.String()+"/"+tg.era.String(), func(t *testing.T) {
			t.Parallel()
			var s Spec
			if tg.kind == Stdio {
				s = stdioSpec("-ask", "-era="+tg.era.String())
			} else {
				s = httpServer(t, tg.kind, testserver.Options{Era: tg.era, Ask: true}).spec
			}
			asked := make(chan time.Duration, 1)
			s.Elicit = func(ctx context.Context, _ mcp.ElicitationParams) (mcp.ElicitationResponse, error) {
				dl, _ := ctx.Deadline()
				asked <- time.Until(dl)
				// The person thinks for well over the call's Timeout.
				select {
				case <-time.After(3 * timeout):
				case <-ctx.Done():
					return mcp.ElicitationResponse{}, ctx.Err()
				}
				return mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept, Content: map[string]any{"value": "blue"}}, nil
			}
			// Connect with the generous timeout, then bound the calls:
			// starting the server is not what is timed here (a start on a
			// starved core took longer than 1.5 s).
			c := dialT(t, s)
			c.spec.Timeout = timeout
			raw, err := c.CallTool(context.Background(), "ask", map[string]any{"question": "favourite colour?"})
			if err != nil {
				t.Fatalf("CallTool(ask) with a slow answer = %v, want the answer", err)
			}
			var res struct {
				Content []struct{ Text string } `json:"content"`
			}
			if err := json.Unmarshal(raw, &res); err != nil || len(res.Content) == 0 || res.Content[0].Text != `got {"value":"blue"}` {
				t.Fatalf("CallTool(ask) = %s (%v), want the answer", raw, err)
			}
			// mcp-go's streamable HTTP client gives a server's request 30 s
			// at most (see clock); otherwise MaxCallTime bounds the answer.
			want := DefaultMaxCallTime - time.Minute
			if tg.kind == StreamableHTTP && tg.era == testserver.EraLegacy {
				want = 25 * time.Second
			}
			if left := <-asked; left < want {
				t.Errorf("the question's deadline was %v away, want at least %v", left, want)
			}
			// Silence is still bounded, once the question is answered.
			for _, progress := range []bool{false, true} {
				ctx := context.Background()
				if progress {
					ctx = WithProgress(ctx, func(float64, float64, string) {})
				}
				start := time.Now()
				_, err = c.CallTool(ctx, "sleep", map[string]any{"ms": 60000})
				if err == nil || !strings.Contains(err.Error(), "no answer") {
					t.Errorf("CallTool(sleep 60s, progress %v) = %v, want a timeout for silence", progress, err)
				}
				if took := time.Since(start); took > 20*timeout {
					t.Errorf("CallTool(sleep 60s, progress %v) took %v, want about %v", progress, took, timeout)
				}
			}
		})
	}
}
