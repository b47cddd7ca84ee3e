package mcpbridge

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
)

// TestStatusAfterDiscovery checks the /mcp view of a discovered mix of
// states: connected over stdio and HTTP, failed, and without tools; secrets
// in args, env, headers and URLs never shown.
func TestStatusAfterDiscovery(t *testing.T) {
	good := stdioServer("good", "-tools=2", "--token", "tok-abcdef123")
	good.Env = map[string]string{"SERVICE_PASSWORD": "pw-987654"}
	good.Description = "a healthy server"
	web, _ := httpServer(t, "web", TransportHTTP, testserver.Options{Era: testserver.EraModern}) // 2026-only, so its era never depends on how fast it answers the probe
	web.Headers = map[string]string{"Authorization": "Bearer hdr-secret-42"}
	web.HTTPURL += "?api_key=url-secret-77"
	missing := ServerConfig{Name: "missing", Command: filepath.Join(t.TempDir(), "absent"), Args: []string{"--api-key=arg-secret-55"}}
	empty := stdioServer("empty", "-bare")
	empty.ExcludeTools = []string{"add_tool", "crash", "echo", "env", "raw", "sleep", "weird"}
	b := newBridge(t, nil, good, web, missing, empty)
	discover(t, b)
	st := b.Status()

	type row struct {
		Name  string
		State ServerState
		Tools int
		Err   bool
	}
	var got []row
	for _, s := range st.Servers {
		got = append(got, row{s.Name, s.State, len(s.Tools), s.Error != ""})
	}
	want := []row{
		{"good", Connected, 9, false},
		{"web", Connected, 6, false},
		{"missing", Disconnected, 0, true},
		{"empty", Disconnected, 0, true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Status() servers (-want +got):\n%s", diff)
	}
	if st.Discovering || !st.Discovered {
		t.Errorf("after Discover: Discovering = %v, Discovered = %v; want false, true", st.Discovering, st.Discovered)
	}
	// Web's tools clash with good's: they are listed under their registered
	// (prefixed) names, in the server's order.
	if tools := st.Servers[1].Tools; len(tools) == 0 || tools[0] != "web__add_tool" {
		t.Errorf("web tools = %v, want registered names such as web__add_tool first", tools)
	}

	text := st.String()
	for _, secret := range []string{"tok-abcdef123", "pw-987654", "hdr-secret-42", "url-secret-77", "arg-secret-55"} {
		if strings.Contains(text, secret) {
			t.Errorf("Status text shows secret %q:\n%s", secret, text)
		}
	}
	// Structure: a header, one block per server in configuration order,
	// the discovery state last.
	blocks := regexp.MustCompile(`(?m)^(📡|🔌|🔄) (\S+) \((\w+)\)$`).FindAllStringSubmatch(text, -1)
	var heads []string
	for _, m := range blocks {
		heads = append(heads, m[1]+" "+m[2]+" "+m[3])
	}
	wantHeads := []string{"📡 good CONNECTED", "📡 web CONNECTED", "🔌 missing DISCONNECTED", "🔌 empty DISCONNECTED"}
	if diff := cmp.Diff(wantHeads, heads); diff != "" {
		t.Errorf("status blocks (-want +got):\n%s\n%s", diff, text)
	}
	for _, line := range []string{
		"MCP Servers Status:\n\n📡 good (CONNECTED)\n  Description: a healthy server\n  Command: " + mcptest + " -tools=2 --token ***\n  Timeout: 10000ms\n  Tools: add_tool, crash, echo, env, raw, sleep, tool_00, tool_01, weird\n  Protocol: MCP ",
		"  Protocol: MCP 2026-07-28 over http\n",
		"  Error: mcp server \"empty\": " + errNoTools.Error() + "\n",
		"\nDiscovery State: COMPLETED\n",
	} {
		if !strings.Contains(text, line) {
			t.Errorf("Status text lacks %q:\n%s", line, text)
		}
	}

	enc, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	var back Status
	if err := json.Unmarshal(enc, &back); err != nil {
		t.Fatalf("json.Unmarshal(%s) = %v", enc, err)
	}
	if diff := cmp.Diff(st, back); diff != "" {
		t.Errorf("Status JSON round trip (-want +got):\n%s", diff)
	}
	if strings.Contains(string(enc), "secret") {
		t.Errorf("Status JSON shows a secret: %s", enc)
	}
}

// TestDiscoverParallel proves servers connect at once, not one by one:
// each of three servers serves only once all three processes started, so
// connecting them one after the other would leave the first waiting until
// its timeout.
func TestDiscoverParallel(t *testing.T) {
	peers := "-await-peers=" + t.TempDir() + ":3"
	b := newBridge(t, nil, stdioServer("a", peers), stdioServer("b", peers), stdioServer("c", peers))
	discover(t, b)
	for _, s := range b.Status().Servers {
		if s.State != Connected {
			t.Errorf("server %s = %v, want CONNECTED", s.Name, s.State)
		}
	}
}
