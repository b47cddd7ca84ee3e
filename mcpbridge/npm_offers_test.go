package mcpbridge

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/confirm"
	"github.com/mcpgenai/bridge/mcpbridge/internal/result"
)

// TestNPMEverythingOffers checks instructions, prompts, resources through
// the built-in tools, and progress against @modelcontextprotocol's
// server-everything over stdio.
func TestNPMEverythingOffers(t *testing.T) {
	everything := npmBin(t, "mcp-server-everything")
	var log progressLog
	b := newBridge(t, &Options{ResourceTools: true, Policy: &confirm.Policy{AutoAllowReadOnly: true}, OnProgress: log.add},
		ServerConfig{Name: "everything", Command: everything, Args: []string{"stdio"}, Timeout: nodeTimeout, Trust: true})
	discover(t, b)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	if ins := b.instructions(nil); len(ins) != 1 || !strings.Contains(ins[0].Text, "Server instructions are working") {
		t.Errorf("Instructions() = %.200v, want server-everything's", ins)
	}

	contents, err := b.GetPrompt(ctx, "everything", "args-prompt", map[string]string{"city": "Oslo"})
	if err != nil {
		t.Fatalf("GetPrompt(args-prompt) = %v", err)
	}
	if len(contents) == 0 || contents[0].Role != genai.RoleUser || !strings.Contains(contents[0].Parts[0].Text, "Oslo") {
		t.Errorf("GetPrompt(args-prompt) = %+v, want a user message naming Oslo", contents)
	}
	if _, err := b.GetPrompt(ctx, "everything", "args-prompt", nil); !errors.Is(err, ErrInvalidArguments) {
		t.Errorf("GetPrompt(args-prompt) without city = %v, want ErrInvalidArguments", err)
	}

	r := b.Execute(ctx, &genai.FunctionCall{Name: listResourcesTool, Args: map[string]any{"server": "everything"}})
	if r.Err != nil || !strings.Contains(result.JoinText(r.LLMContent)+r.ReturnDisplay, "demo://resource/dynamic/text/{resourceId}") {
		t.Errorf("Execute(%s) = %v, %.300s; want the dynamic text template", listResourcesTool, r.Err, r.ReturnDisplay)
	}
	r = b.Execute(ctx, &genai.FunctionCall{Name: readResourceTool, Args: map[string]any{"server": "everything", "uri": "demo://resource/dynamic/text/1"}})
	if r.Err != nil || len(r.LLMContent) == 0 || r.LLMContent[0].Text == "" {
		t.Errorf("Execute(%s, dynamic text 1) = %v, %v; want its text", readResourceTool, r.LLMContent, r.Err)
	}

	r = b.Execute(ctx, &genai.FunctionCall{ID: "long-1", Name: "trigger-long-running-operation", Args: map[string]any{"duration": 1, "steps": 3}})
	if r.Err != nil {
		t.Fatalf("Execute(trigger-long-running-operation) = %v", r.Err)
	}
	got := log.reports()
	if len(got) != 3 {
		t.Fatalf("progress reports = %+v, want 3", got)
	}
	for i, p := range got {
		if p.ID != "long-1" || p.Server != "everything" || p.Progress != float64(i+1) || p.Total != 3 {
			t.Errorf("progress report %d = %+v, want %d of 3 for call long-1", i, p, i+1)
		}
	}
}
