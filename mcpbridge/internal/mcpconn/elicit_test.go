package mcpconn

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
)

// TestElicitation: a tool that asks for input reaches Spec.Elicit over
// every transport in both eras (elicitation/create before 2026-07-28, an
// input_required result from then on), and its answer resumes the call.
func TestElicitation(t *testing.T) {
	targets := []struct {
		kind   Kind
		era    testserver.Era
		modern bool
	}{
		{Stdio, testserver.EraModern, true},
		{Stdio, testserver.EraLegacy, false},
		// mcp-go's SSE server cannot send elicitation/create, so over SSE
		// only the 2026-07-28 round trip is tried.
		{SSE, testserver.EraBoth, true},
		{StreamableHTTP, testserver.EraModern, true},
		{StreamableHTTP, testserver.EraLegacy, false},
	}
	answers := []struct {
		name   string
		tool   string
		answer mcp.ElicitationResponse
		want   string
	}{
		{"accept", "ask", mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept, Content: map[string]any{"value": "blue"}}, `got {"value":"blue"}`},
		{"decline", "ask", mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionDecline}, "declined"},
		{"cancel", "ask", mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionCancel, Content: map[string]any{"value": "dropped"}}, "cancelled"},
		{"url accept", "ask_url", mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept}, "visited"},
	}
	for _, tg := range targets {
		t.Run(tg.kind.String()+"/"+tg.era.String(), func(t *testing.T) {
			var s Spec
			if tg.kind == Stdio {
				s = stdioSpec("-ask", "-era="+tg.era.String())
			} else {
				s = httpServer(t, tg.kind, testserver.Options{Era: tg.era, Ask: true}).spec
			}
			var mu sync.Mutex
			var asked []mcp.ElicitationParams
			var answer mcp.ElicitationResponse
			handler := func(_ context.Context, p mcp.ElicitationParams) (mcp.ElicitationResponse, error) {
				mu.Lock()
				defer mu.Unlock()
				asked = append(asked, p)
				return answer, nil
			}
			s.Elicit = handler
			c := dialT(t, s)
			if IsModern(c.ProtocolVersion()) != tg.modern {
				t.Fatalf("ProtocolVersion() = %q, want modern %v", c.ProtocolVersion(), tg.modern)
			}
			for _, a := range answers {
				t.Run(a.name, func(t *testing.T) {
					mu.Lock()
					asked, answer = nil, a.answer
					mu.Unlock()
					raw, err := c.CallTool(context.Background(), a.tool, map[string]any{"question": "favourite colour?"})
					if err != nil {
						t.Fatalf("CallTool(%s) = %v", a.tool, err)
					}
					var res struct {
						Content []struct{ Text string } `json:"content"`
					}
					if err := json.Unmarshal(raw, &res); err != nil || len(res.Content) == 0 {
						t.Fatalf("CallTool(%s) = %s (%v), want text content", a.tool, raw, err)
					}
					if got := res.Content[0].Text; got != a.want {
						t.Errorf("CallTool(%s) text = %q, want %q", a.tool, got, a.want)
					}
					if strings.Contains(string(raw), "input_required") {
						t.Errorf("CallTool(%s) = %s: the input_required round trip leaked out", a.tool, raw)
					}
					mu.Lock()
					defer mu.Unlock()
					if len(asked) != 1 {
						t.Fatalf("handler asked %d times, want once", len(asked))
					}
					want := mcp.ElicitationParams{Mode: mcp.ElicitationModeURL, Message: "please consent", URL: "https://example.com/consent", ElicitationID: "consent-1"}
					if a.tool == "ask" {
						want = mcp.ElicitationParams{Mode: mcp.ElicitationModeForm, Message: "favourite colour?", RequestedSchema: map[string]any{
							"type": "object", "properties": map[string]any{"value": map[string]any{"type": "string"}}, "required": []any{"value"},
						}}
					}
					if diff := cmp.Diff(want, asked[0]); diff != "" {
						t.Errorf("elicitation (-want +got):\n%s", diff)
					}
				})
			}
		})
	}
}
