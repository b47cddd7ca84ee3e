package mcpconn

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
)

// codeError is an error with a JSON-RPC code.
type codeError struct{ code int }

func (e codeError) Error() string { return "User rejected sampling request" }
func (e codeError) RPCCode() int  { return e.code }

// TestSampling: a server's sampling request reaches Spec.Sample with its
// params over every transport that can carry it, in both eras; the answer
// resumes the call, and an RPCCoder's code reaches a legacy server. Over
// SSE only the 2026-07-28 round trip exists (mcp-go's SSE client takes no
// request from the server).
func TestSampling(t *testing.T) {
	targets := []struct {
		kind Kind
		era  testserver.Era
	}{
		{Stdio, testserver.EraModern},
		{Stdio, testserver.EraLegacy},
		{SSE, testserver.EraBoth},
		{StreamableHTTP, testserver.EraModern},
		{StreamableHTTP, testserver.EraLegacy},
	}
	for _, tg := range targets {
		t.Run(tg.kind.String()+"/"+tg.era.String(), func(t *testing.T) {
			var s Spec
			if tg.kind == Stdio {
				s = stdioSpec("-sample", "-era="+tg.era.String())
			} else {
				s = httpServer(t, tg.kind, testserver.Options{Era: tg.era, Sample: true}).spec
			}
			var mu sync.Mutex
			var got []string
			refuse := false
			s.Sample = func(_ context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
				mu.Lock()
				defer mu.Unlock()
				got = append(got, method+" "+string(params))
				if refuse {
					return nil, codeError{-1}
				}
				return json.RawMessage(`{"role":"assistant","content":{"type":"text","text":"pong"},"model":"m1","stopReason":"endTurn"}`), nil
			}
			c := dialT(t, s)
			raw, err := c.CallTool(context.Background(), "sample", map[string]any{"prompt": "ping"})
			if err != nil {
				t.Fatalf("CallTool(sample) = %v", err)
			}
			if want := `sampled by m1 (endTurn): [{\"text\":\"pong\",\"type\":\"text\"}]`; !strings.Contains(string(raw), want) {
				t.Errorf("CallTool(sample) = %s, want %s", raw, want)
			}
			mu.Lock()
			if len(got) != 1 || !strings.HasPrefix(got[0], "sampling/createMessage ") || !strings.Contains(got[0], `"text":"ping"`) || !strings.Contains(got[0], `"systemPrompt":"You are a test."`) {
				t.Errorf("Sample got %q, want one sampling/createMessage with the prompt", got)
			}
			refuse = true
			mu.Unlock()
			raw, err = c.CallTool(context.Background(), "sample", map[string]any{"prompt": "ping"})
			text := string(raw)
			if err != nil {
				text = err.Error()
			}
			if !strings.Contains(text, "User rejected sampling request") {
				t.Errorf("CallTool(sample) refused = %s, %v; want the refusal", raw, err)
			}
		})
	}
}
