package mcpconn

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
)

// TestCancelReachesServer: cancelling a call's context, or its timeout,
// ends the call at once and the server's handler sees the cancellation,
// on every transport and in both eras.
func TestCancelReachesServer(t *testing.T) {
	for _, tc := range []struct {
		kind   Kind
		era    testserver.Era
		modern bool
	}{
		{Stdio, testserver.EraModern, true},
		{Stdio, testserver.EraLegacy, false},
		{SSE, testserver.EraBoth, true},
		{SSE, testserver.EraLegacy, false},
		{StreamableHTTP, testserver.EraModern, true},
		{StreamableHTTP, testserver.EraLegacy, false},
	} {
		for _, how := range []string{"cancel", "timeout"} {
			t.Run(tc.kind.String()+"/"+tc.era.String()+"/"+how, func(t *testing.T) {
				t.Parallel()
				seen := make(chan struct{}, 1)
				var s Spec
				if tc.kind == Stdio {
					s = stdioSpec("-era=" + tc.era.String())
				} else {
					h := testserver.ServeHTTP(t, testserver.Options{Era: tc.era, OnSleepCancelled: func() {
						select {
						case seen <- struct{}{}:
						default:
						}
					}}, tc.kind == SSE)
					s = Spec{Name: "cancel", Kind: tc.kind, URL: h.URL, Timeout: 10 * time.Second}
				}
				if how == "timeout" {
					s.Timeout = time.Second
				}
				c := dialT(t, s)
				if IsModern(c.ProtocolVersion()) != tc.modern {
					t.Fatalf("ProtocolVersion() = %q, want modern %v", c.ProtocolVersion(), tc.modern)
				}
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				if how == "cancel" {
					time.AfterFunc(200*time.Millisecond, cancel)
				}
				// Ignoring the cancellation or the timeout would let the
				// 30s sleep succeed; each must end the call with its own
				// error.
				_, err := c.CallTool(ctx, "sleep", map[string]any{"ms": 30000})
				if err == nil {
					t.Fatalf("CallTool(sleep) = nil error, want cancelled or timed out")
				}
				if how == "cancel" && (!errors.Is(err, context.Canceled) || strings.Contains(err.Error(), "timed out")) {
					t.Errorf("CallTool(sleep) = %v, want context.Canceled", err)
				}
				if how == "timeout" && !strings.Contains(err.Error(), "timed out after 1s") {
					t.Errorf("CallTool(sleep) = %v, want the 1s timeout", err)
				}
				deadline := time.After(5 * time.Second)
				for {
					if tc.kind == Stdio && strings.Contains(c.Stderr(), "sleep cancelled") {
						return
					}
					select {
					case <-seen:
						return
					case <-deadline:
						t.Fatalf("the server's handler never saw the cancellation (stderr %q)", c.Stderr())
					case <-time.After(20 * time.Millisecond):
					}
				}
			})
		}
	}
}
