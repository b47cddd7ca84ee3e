package mcpbridge

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	mcpserver "github.com/mark3labs/mcp-go/server"

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
	if diff := cmp.Diff(want, b.instructions(nil)); diff != "" {
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

	d, err := b.Declare(t.Context(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	part := d.SystemInstruction()
	if part == nil {
		t.Fatal("Declare().SystemInstruction = nil, want the servers' instructions")
	}
	for _, w := range want {
		block := "\"" + w.Server + "\" gave these instructions for using its tools, prompts and resources:\n<server-instructions>\n" + w.Text + "\n</server-instructions>"
		if !strings.Contains(part.Text, block) {
			t.Errorf("SystemInstruction lacks %q:\n%s", block, part.Text)
		}
	}
	if again := mustDeclare(t, b).SystemInstruction(); again == part || again.Text != part.Text {
		t.Errorf("a second Declare's SystemInstruction = %p %q, want a new part with the same text", again, again.Text)
	}
}

func TestSystemInstructionNone(t *testing.T) {
	b := newBridge(t, nil)
	discover(t, b)
	if p := mustDeclare(t, b).SystemInstruction(); p != nil {
		t.Errorf("SystemInstruction with no servers = %v, want nil", p)
	}
}
