package mcpbridge_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	goldenfile "github.com/mcpgenai/bridge/internal/golden"
	"github.com/mcpgenai/bridge/mcpbridge"
)

// golden compares got with testdata/status/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", "status", name), got)
}

// The secrets used in statusFixture; none may appear in any output.
var fixtureSecrets = []string{
	"env-api-key-123", "svc-token-456", "flag-token-789", "inline-key-000",
	"url-pass", "url-user", "query-token-abc", "bearer-secret-xyz", "cookie-val-1",
	"stderr-token-9", "err-pass",
}

func statusFixture() mcpbridge.Status {
	python := mcpbridge.ServerConfig{
		Name: "pythonTools", Command: "python",
		Args:    []string{"-m", "my_mcp_server", "--port", "8080"},
		Cwd:     "./mcp-servers/python",
		Env:     map[string]string{"DATABASE_URL": "postgres://db/app", "API_KEY": "env-api-key-123"},
		Timeout: 15 * time.Second,
	}
	node := mcpbridge.ServerConfig{
		Name: "nodeServer", Command: "node",
		Args: []string{"dist/server.js", "--verbose"},
		Cwd:  "./mcp-servers/node", Trust: true,
	}
	docker := mcpbridge.ServerConfig{
		Name: "dockerizedServer", Command: "docker",
		Args: []string{"run", "-i", "--rm", "-e", "API_KEY", "-e", "SERVICE_TOKEN=svc-token-456", "my-mcp-server:latest"},
		Env:  map[string]string{"API_KEY": "svc-token-456"},
	}
	secrets := mcpbridge.ServerConfig{
		Name: "flags", Command: "/usr/local/bin/tool server",
		Args:        []string{"--token", "flag-token-789", "--api-key=inline-key-000", "svc-token-456", "--mode", "fast"},
		Env:         map[string]string{"SERVICE_TOKEN": "svc-token-456"},
		Description: "arguments with secrets",
	}
	sse := mcpbridge.ServerConfig{
		Name: "remote", URL: "https://url-user:url-pass@mcp.example.com/sse?token=query-token-abc&region=eu",
		Headers: map[string]string{"Authorization": "Bearer bearer-secret-xyz", "Cookie": "cookie-val-1"},
		Timeout: 30 * time.Second,
	}
	big := mcpbridge.ServerConfig{Name: "bigServer", HTTPURL: "http://localhost:3000/mcp", Description: "many tools"}
	broken := mcpbridge.ServerConfig{Name: "broken", Command: "./crash.sh", Env: map[string]string{"DB_PASSWORD": "err-pass"}}

	st := mcpbridge.Status{Discovered: true}
	add := func(cfg mcpbridge.ServerConfig, state mcpbridge.ServerState, tools []string, err, stderr string) {
		s := mcpbridge.NewServerStatus(cfg)
		s.State = state
		s.Tools = tools
		if len(tools) > 0 {
			s.ToolDescriptions = map[string]string{}
		}
		s.Error = mcpbridge.RedactText(cfg, err)
		s.Stderr = mcpbridge.RedactText(cfg, stderr)
		st.Servers = append(st.Servers, s)
	}
	add(python, mcpbridge.Connected, []string{"calculate_sum", "file_analyzer", "data_processor"}, "", "")
	add(node, mcpbridge.Disconnected, nil, "Connection refused", "")
	add(docker, mcpbridge.Connected, []string{"docker__deploy", "docker__status"}, "", "")
	add(secrets, mcpbridge.Connecting, nil, "", "")
	add(sse, mcpbridge.Connecting, nil, "", "")
	var many []string
	for i := range 40 {
		many = append(many, fmt.Sprintf("tool_%02d", i))
	}
	add(big, mcpbridge.Connected, many, "", "")
	describe(st.Servers[0], python,
		"calculate_sum", "Adds two numbers.",
		"file_analyzer", "Analyzes a file and reports its size, its type, its encoding and a summary of its contents.\n\nArguments:\n  path: the file to read, relative to the working directory.")
	describe(st.Servers[2], docker,
		"docker__deploy", "Deploys \x1b[31mthe\x1b[0m image\u202e to the\tcluster\r\nwith API key svc-token-456.",
		"docker__status", "Shows the status of one deployment: 健康, 準備中 or 停止; each state is explained in the documentation of the cluster.")
	describe(st.Servers[5], big, "tool_00", "numbered tool tool_00")
	add(broken, mcpbridge.Disconnected, nil,
		"connecting \"broken\": server exited: exit status 1\nlast request: postgres://app:err-pass@db",
		"starting\nusing --token=stderr-token-9 from DB_PASSWORD=err-pass\nline 3\nline 4\nline 5\npanic: boom\n\n")
	return st
}

// describe sets the descriptions of s's tools from name, description
// pairs, redacted as [mcpbridge.Bridge.Status] does.
func describe(s mcpbridge.ServerStatus, cfg mcpbridge.ServerConfig, pairs ...string) {
	for i := 0; i < len(pairs); i += 2 {
		s.ToolDescriptions[pairs[i]] = mcpbridge.RedactText(cfg, pairs[i+1])
	}
}

func TestStatusText(t *testing.T) {
	st := statusFixture()
	text := st.String()
	golden(t, "all.golden", []byte(text))
	var b bytes.Buffer
	if err := st.WriteText(&b, nil); err != nil || b.String() != text {
		t.Errorf("WriteText = %q, %v; want String() and no error", b.String(), err)
	}
	for _, s := range fixtureSecrets {
		if strings.Contains(text, s) {
			t.Errorf("status text holds secret %q", s)
		}
	}
}

func TestStatusTextDescriptions(t *testing.T) {
	st := statusFixture()
	tests := []struct {
		golden string
		opts   *mcpbridge.TextOptions
	}{
		{"desc.golden", &mcpbridge.TextOptions{Descriptions: true}},
		{"desc_40.golden", &mcpbridge.TextOptions{Descriptions: true, DescriptionLimit: 40}},
		{"desc_full.golden", &mcpbridge.TextOptions{Descriptions: true, DescriptionLimit: -1}},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			var b bytes.Buffer
			if err := st.WriteText(&b, tt.opts); err != nil {
				t.Fatal(err)
			}
			golden(t, tt.golden, b.Bytes())
			for _, s := range fixtureSecrets {
				if strings.Contains(b.String(), s) {
					t.Errorf("status text holds secret %q", s)
				}
			}
			if strings.ContainsAny(b.String(), "\x1b\r\t\u202e") {
				t.Errorf("status text holds a control character:\n%q", b.String())
			}
		})
	}
	for _, opts := range []*mcpbridge.TextOptions{nil, {}, {DescriptionLimit: 10}} {
		var b bytes.Buffer
		if err := st.WriteText(&b, opts); err != nil || b.String() != st.String() {
			t.Errorf("WriteText(%+v) = %v and a text other than String(); want the same text", opts, err)
		}
	}
}

func TestStatusJSON(t *testing.T) {
	st := statusFixture()
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "all.json.golden", append(data, '\n'))
	for _, s := range fixtureSecrets {
		if bytes.Contains(data, []byte(s)) {
			t.Errorf("status JSON holds secret %q", s)
		}
	}
	var back mcpbridge.Status
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(st, back); diff != "" {
		t.Errorf("JSON round trip (-want +got):\n%s", diff)
	}
}

// TestStatusTextSeed checks the layout against the /mcp output of Gemini
// CLI's MCP guide, character for character.
func TestStatusTextSeed(t *testing.T) {
	python := mcpbridge.NewServerStatus(mcpbridge.ServerConfig{
		Name: "pythonTools", Command: "python", Args: []string{"-m", "my_mcp_server", "--port", "8080"},
		Cwd: "./mcp-servers/python", Timeout: 15000 * time.Millisecond,
	})
	python.State = mcpbridge.Connected
	python.Tools = []string{"calculate_sum", "file_analyzer", "data_processor"}
	node := mcpbridge.NewServerStatus(mcpbridge.ServerConfig{Name: "nodeServer", Command: "node", Args: []string{"dist/server.js", "--verbose"}})
	node.Error = "Connection refused"
	st := mcpbridge.Status{Servers: []mcpbridge.ServerStatus{python, node}, Discovered: true}
	want := `MCP Servers Status:

📡 pythonTools (CONNECTED)
  Command: python -m my_mcp_server --port 8080
  Working Directory: ./mcp-servers/python
  Timeout: 15000ms
  Tools: calculate_sum, file_analyzer, data_processor

🔌 nodeServer (DISCONNECTED)
  Command: node dist/server.js --verbose
  Error: Connection refused

Discovery State: COMPLETED
`
	if diff := cmp.Diff(want, st.String()); diff != "" {
		t.Errorf("Status.String() (-want +got):\n%s", diff)
	}
}

func TestStatusTextEmpty(t *testing.T) {
	want := "MCP Servers Status:\n\nNo MCP servers configured.\n\nDiscovery State: NOT_STARTED\n"
	if got := (mcpbridge.Status{}).String(); got != want {
		t.Errorf("Status{}.String() = %q, want %q", got, want)
	}
}

// TestStatusTextDiscovery: the last line names the discovery state as
// Gemini CLI does; a Discover retrying after a completed one is in
// progress.
func TestStatusTextDiscovery(t *testing.T) {
	tests := []struct {
		name                    string
		discovering, discovered bool
		want                    string
	}{
		{"not started", false, false, "NOT_STARTED"},
		{"first discovery", true, false, "IN_PROGRESS"},
		{"completed", false, true, "COMPLETED"},
		{"retrying", true, true, "IN_PROGRESS"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := mcpbridge.Status{Discovering: tt.discovering, Discovered: tt.discovered}
			want := "Discovery State: " + tt.want + "\n"
			if got := st.String(); !strings.HasSuffix(got, want) {
				t.Errorf("Status{Discovering: %v, Discovered: %v}.String() = %q, want it to end in %q", tt.discovering, tt.discovered, got, want)
			}
		})
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestStatusWriteTextError(t *testing.T) {
	if err := (mcpbridge.Status{}).WriteText(failWriter{}, nil); err == nil || err.Error() != "disk full" {
		t.Errorf("WriteText(failing writer) = %v, want disk full", err)
	}
}

func TestNewServerStatus(t *testing.T) {
	got := mcpbridge.NewServerStatus(mcpbridge.ServerConfig{
		Name: "s", URL: "https://h/sse?key=k1", Type: "http", Timeout: -time.Second,
		Description: "d", Trust: true, Cwd: "/tmp",
	})
	want := mcpbridge.ServerStatus{
		Name: "s", State: mcpbridge.Disconnected, Transport: mcpbridge.TransportHTTP,
		URL: "https://h/sse?key=***", Cwd: "/tmp", Description: "d", Trust: true,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("NewServerStatus (-want +got):\n%s", diff)
	}
}

func TestStateText(t *testing.T) {
	tests := []struct {
		v    interface{ MarshalText() ([]byte, error) }
		want string
	}{
		{mcpbridge.Disconnected, "DISCONNECTED"},
		{mcpbridge.Connecting, "CONNECTING"},
		{mcpbridge.Connected, "CONNECTED"},
	}
	for _, tt := range tests {
		b, err := tt.v.MarshalText()
		if err != nil || string(b) != tt.want || fmt.Sprint(tt.v) != tt.want {
			t.Errorf("MarshalText(%d) = %q, %v; want %q", tt.v, b, err, tt.want)
		}
	}
	var s mcpbridge.ServerState
	if err := s.UnmarshalText([]byte("CONNECTING")); err != nil || s != mcpbridge.Connecting {
		t.Errorf(`UnmarshalText("CONNECTING") = %v, %v`, s, err)
	}
	if err := s.UnmarshalText([]byte("UP")); err == nil {
		t.Errorf(`UnmarshalText("UP") = nil, want an error`)
	}
	if got := mcpbridge.ServerState(9).String(); got != "ServerState(9)" {
		t.Errorf("ServerState(9).String() = %q", got)
	}
	if _, err := mcpbridge.ServerState(9).MarshalText(); err == nil {
		t.Errorf("ServerState(9).MarshalText() = nil error, want one")
	}
}

func ExampleStatus() {
	cfg := &mcpbridge.Config{Servers: []mcpbridge.ServerConfig{
		{
			Name:    "github",
			Command: "github-mcp-server",
			Args:    []string{"stdio", "--token", "ghp_not_shown"},
			Timeout: 30 * time.Second,
		},
		{Name: "remote", URL: "https://mcp.example.com/sse?api_key=not_shown"},
	}}
	bridge, err := mcpbridge.New(cfg, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer bridge.Close()
	// Before discovery the status has every server's static fields; here
	// the states, tools and error a discovery would add are filled in.
	st := bridge.Status()
	st.Discovered = true
	st.Servers[0].State = mcpbridge.Connected
	st.Servers[0].Tools = []string{"search_issues", "create_issue"}
	st.Servers[1].Error = "connection refused"
	fmt.Print(st)
	// Output:
	// MCP Servers Status:
	//
	// 📡 github (CONNECTED)
	//   Command: github-mcp-server stdio --token ***
	//   Timeout: 30000ms
	//   Tools: search_issues, create_issue
	//
	// 🔌 remote (DISCONNECTED)
	//   URL: https://mcp.example.com/sse?api_key=***
	//   Error: connection refused
	//
	// Discovery State: COMPLETED
}

func ExampleStatus_WriteText() {
	bridge, err := mcpbridge.New(&mcpbridge.Config{Servers: []mcpbridge.ServerConfig{
		{Name: "tracker", HTTPURL: "https://mcp.example.com/mcp"},
	}}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer bridge.Close()
	st := bridge.Status()
	st.Discovered = true
	s := &st.Servers[0]
	s.State = mcpbridge.Connected
	s.Tools = []string{"search_issues", "set_priority", "export"}
	s.ToolDescriptions = map[string]string{
		"search_issues": "Searches issues by text, label and state.",
		"export":        "Exports every issue of a project, with its comments, attachments and history, as one JSON document.",
	}
	_ = st.WriteText(os.Stdout, &mcpbridge.TextOptions{Descriptions: true, DescriptionLimit: 60})
	// Output:
	// MCP Servers Status:
	//
	// 📡 tracker (CONNECTED)
	//   URL: https://mcp.example.com/mcp
	//   Tools:
	//     - search_issues: Searches issues by text, label and state.
	//     - set_priority
	//     - export: Exports every issue of a project, with its comments,…
	//
	// Discovery State: COMPLETED
}
