package mcpbridge

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/geminitest"
	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
)

// TestLoopWithOffers drives a host's loop on Declare with a real
// genai.Client against geminitest: a prompt fills the history, the
// servers' instructions (Declarations.SystemInstruction) reach the system
// instruction, and the progress of a call reaches WithProgress's callback
// in order.
func TestLoopWithOffers(t *testing.T) {
	cfg := serverFor(t, "p", TransportStdio, testserver.Options{Offers: true})
	cfg.Trust = true
	b := newBridge(t, &Options{OnProgress: func(Progress) { t.Error("Options.OnProgress called, want WithProgress's callback") }}, cfg)
	discover(t, b)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	history, err := b.GetPrompt(ctx, "p", "greeting", map[string]string{"name": "Ada"})
	if err != nil {
		t.Fatalf("GetPrompt() = %v", err)
	}

	var sawSystem, sawPrompt string
	srv := geminitest.New(t, nil,
		func(req *geminitest.Request) geminitest.Response {
			if si := req.Config.SystemInstruction; si != nil && len(si.Parts) == 2 {
				sawSystem = si.Parts[0].Text + "|" + si.Parts[1].Text
			}
			if len(req.Contents) > 0 && len(req.Contents[0].Parts) > 0 {
				sawPrompt = req.Contents[0].Role + ": " + req.Contents[0].Parts[0].Text
			}
			return geminitest.Response{Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{ID: "p1", Name: "progress", Args: map[string]any{"steps": 3}}}}}
		},
		geminitest.Text("Done."),
	)
	var log progressLog
	config := &genai.GenerateContentConfig{SystemInstruction: genai.NewContentFromText("Be brief.", genai.RoleUser)}
	res, err := hostLoop(WithProgress(ctx, log.add), b, srv.Client(ctx).Models, history, config, nil, true)
	if err != nil {
		t.Fatalf("hostLoop() = %v", err)
	}
	if res.Response.Text() != "Done." {
		t.Errorf("hostLoop() answer = %q, want Done.", res.Response.Text())
	}
	if want := "user: Greet Ada, casual."; sawPrompt != want {
		t.Errorf("first content sent = %q, want %q", sawPrompt, want)
	}
	if !strings.HasPrefix(sawSystem, "Be brief.|The MCP server \"p\" gave these instructions") || !strings.Contains(sawSystem, "test server p") {
		t.Errorf("system instruction sent = %q, want the host's part, then the server's instructions", sawSystem)
	}
	if diff := cmp.Diff(wantProgress("p1", 3), log.reports()); diff != "" {
		t.Errorf("progress reports (-want +got):\n%s", diff)
	}
	if len(config.SystemInstruction.Parts) != 1 {
		t.Errorf("the loop modified config's system instruction: %d parts", len(config.SystemInstruction.Parts))
	}
}
