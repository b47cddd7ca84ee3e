package mcpbridge

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
)

// TestExecuteCyclicArgs: host code that hands Execute arguments containing
// themselves gets an invalid-arguments result, not a stack overflow.
func TestExecuteCyclicArgs(t *testing.T) {
	cfg := stdioServer("s")
	cfg.Trust = true
	b := newBridge(t, nil, cfg)
	discover(t, b)
	m := map[string]any{"text": "hi"}
	m["again"] = m
	s := []any{"x", nil}
	s[1] = s
	for name, args := range map[string]map[string]any{"map": m, "slice": {"text": s}} {
		r := b.Execute(context.Background(), &genai.FunctionCall{Name: "echo", Args: args})
		if !errors.Is(r.Err, ErrInvalidArguments) || !strings.Contains(r.Err.Error(), "contains itself") {
			t.Errorf("Execute(cyclic %s) Err = %v, want ErrInvalidArguments naming the cycle", name, r.Err)
		}
	}
}

// TestExecuteAmbiguousAndInvalid: arguments whose union choice is
// ambiguous and that are also invalid below it reach the model as one
// error naming both, and the server is not called.
func TestExecuteAmbiguousAndInvalid(t *testing.T) {
	cfg := serverFor(t, "p", TransportStdio, testserver.Options{Offers: true})
	cfg.Trust = true
	b := newBridge(t, nil, cfg)
	discover(t, b)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tests := []struct {
		name     string
		args     map[string]any
		wantErr  bool
		contains []string
	}{
		{"ambiguous and invalid below", map[string]any{"v": map[string]any{"n": "1", "m": 3}}, true, []string{
			`invalid arguments for function "tied": `,
			`at '/v': fits anyOf[0] and anyOf[1] equally, which restore it differently: restored by anyOf[0]`,
			`at '/v/m': minimum: got 3, want 10`,
		}},
		{"ambiguous only: the call runs", map[string]any{"v": map[string]any{"n": "1", "m": 30}}, false, []string{
			`{"v":{"m":30,"n":1}}`,
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := b.Execute(ctx, &genai.FunctionCall{Name: "tied", Args: tc.args})
			if got := errors.Is(r.Err, ErrInvalidArguments); got != tc.wantErr {
				t.Fatalf("Execute(tied, %v).Err = %v, want invalid arguments: %v", tc.args, r.Err, tc.wantErr)
			}
			resp := responseOf(r)
			msg, _ := resp["output"].(string)
			if tc.wantErr {
				msg, _ = resp["error"].(string)
			}
			for _, want := range tc.contains {
				if !strings.Contains(msg, want) {
					t.Errorf("Execute(tied, %v) response = %v, want it to contain %q", tc.args, resp, want)
				}
			}
		})
	}
}
