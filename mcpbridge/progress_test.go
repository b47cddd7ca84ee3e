package mcpbridge

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
)

// progressLog records progress reports.
type progressLog struct {
	mu  sync.Mutex
	got []Progress
}

func (l *progressLog) add(p Progress) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.got = append(l.got, p)
}

func (l *progressLog) reports() []Progress {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.got
}

func wantProgress(id string, steps int) []Progress {
	var out []Progress
	for i := 1; i <= steps; i++ {
		out = append(out, Progress{Name: "progress", ID: id, Server: "p", ServerTool: "progress",
			Progress: float64(i), Total: float64(steps), Message: "step " + string(rune('0'+i))})
	}
	return out
}

func TestProgress(t *testing.T) {
	for _, tr := range transports {
		t.Run(string(tr), func(t *testing.T) {
			var log progressLog
			cfg := serverFor(t, "p", tr, testserver.Options{Offers: true})
			cfg.Trust = true
			b := newBridge(t, &Options{OnProgress: log.add}, cfg)
			discover(t, b)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			r := b.Execute(ctx, &genai.FunctionCall{ID: "c1", Name: "progress", Args: map[string]any{"steps": 5}})
			if r.Err != nil {
				t.Fatalf("Execute(progress) = %v", r.Err)
			}
			if got := r.LLMContent[0].Text; got != "done, token sent: true" {
				t.Errorf("Execute(progress) text = %q, want the server to have seen a token", got)
			}
			got, want := log.reports(), wantProgress("c1", 5)
			if tr == TransportHTTP {
				// mcp-go's streamable-HTTP server hands a session's
				// notifications to whichever of its streams (the call's
				// POST, the listening GET) reads first, so they may
				// overtake each other: the overtaken ones are dropped, and
				// what arrives is a growing part of the whole.
				want = slices.DeleteFunc(want, func(p Progress) bool {
					return !slices.Contains(got, p)
				})
				if len(got) == 0 {
					t.Error("no progress reports, want some")
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("progress reports (-want +got):\n%s", diff)
			}
		})
	}
}

func TestProgressOff(t *testing.T) {
	cfg := serverFor(t, "p", TransportStdio, testserver.Options{Offers: true})
	cfg.Trust = true
	b := newBridge(t, nil, cfg)
	discover(t, b)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r := b.Execute(ctx, &genai.FunctionCall{Name: "progress"})
	if r.Err != nil || r.LLMContent[0].Text != "done, token sent: false" {
		t.Errorf("Execute(progress) without a callback = %v, %v; want no token sent", r.LLMContent, r.Err)
	}
}
