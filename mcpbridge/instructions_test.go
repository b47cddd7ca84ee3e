package mcpbridge

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	mcpserver "github.com/mark3labs/mcp-go/server"
	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
)

// offersOnlyHTTP serves testserver.NewOffersOnly over streamable HTTP and
// returns its configuration.
func offersOnlyHTTP(t *testing.T, name string) ServerConfig {
	t.Helper()
	s := mcpserver.NewStreamableHTTPServer(testserver.NewOffersOnly())
	h := httptest.NewServer(s)
	t.Cleanup(func() {
		h.CloseClientConnections()
		h.Close()
	})
	return ServerConfig{Name: name, HTTPURL: h.URL + "/mcp", Timeout: 10 * time.Second}
}

func TestInstructions(t *testing.T) {
	web, _ := httpServer(t, "web", TransportHTTP, testserver.Options{Name: "webby"})
	b := newBridge(t, nil, stdioServer("cli", "-name=clia"), web, stdioServer("dumb", "-offers-only"), offersOnlyHTTP(t, "only"), stdioServer("bare", "-bare", "-tools=1"))
	discover(t, b)

	want := []serverInstructions{
		{Server: "cli", Text: "test server clia"},
		{Server: "web", Text: "test server webby"},
		{Server: "dumb", Text: "offers only"},
		{Server: "only", Text: "offers only"},
		{Server: "bare", Text: "test server mcptest"},
	}
	if diff := cmp.Diff(want, b.instructions()); diff != "" {
		t.Errorf("Instructions() (-want +got):\n%s", diff)
	}
	st := b.Status()
	for i, s := range st.Servers {
		if s.State != Connected {
			t.Errorf("server %s = %v (%s), want CONNECTED", s.Name, s.State, s.Error)
		}
		if s.Instructions != want[i].Text {
			t.Errorf("Status().Servers[%s].Instructions = %q, want %q", s.Name, s.Instructions, want[i].Text)
		}
	}
	if tools := st.Servers[2].Tools; len(tools) != 0 {
		t.Errorf("offers-only server has tools %v, want none", tools)
	}

	part := b.SystemInstruction()
	if part == nil {
		t.Fatal("SystemInstruction() = nil, want the servers' instructions")
	}
	for _, w := range want {
		block := "\"" + w.Server + "\" gave these instructions for using its tools, prompts and resources:\n<server-instructions>\n" + w.Text + "\n</server-instructions>"
		if !strings.Contains(part.Text, block) {
			t.Errorf("SystemInstruction() lacks %q:\n%s", block, part.Text)
		}
	}

	// Appended after the host's own system instruction, which is untouched.
	own := genai.NewContentFromText("Be brief.", genai.RoleUser)
	cfg := &genai.GenerateContentConfig{SystemInstruction: own}
	got := b.withSystemInstruction(cfg)
	if len(own.Parts) != 1 || cfg.SystemInstruction != own {
		t.Errorf("withSystemInstruction modified its input: %d parts", len(own.Parts))
	}
	if n := len(got.SystemInstruction.Parts); n != 2 || got.SystemInstruction.Parts[0].Text != "Be brief." || got.SystemInstruction.Parts[1].Text != part.Text {
		t.Errorf("withSystemInstruction() system instruction = %+v, want the host's part then the servers'", got.SystemInstruction.Parts)
	}
	if got := b.withSystemInstruction(nil); got == nil || got.SystemInstruction.Role != genai.RoleUser {
		t.Errorf("withSystemInstruction(nil) = %+v, want a user content", got)
	}
}

func TestSystemInstructionNone(t *testing.T) {
	b := newBridge(t, nil)
	discover(t, b)
	if p := b.SystemInstruction(); p != nil {
		t.Errorf("SystemInstruction() with no servers = %v, want nil", p)
	}
	cfg := &genai.GenerateContentConfig{}
	if got := b.withSystemInstruction(cfg); got != cfg {
		t.Errorf("withSystemInstruction() without instructions = %p, want its input %p", got, cfg)
	}
}
