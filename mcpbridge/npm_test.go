package mcpbridge

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
	"github.com/mcpgenai/bridge/schema"
)

// npmBin returns the absolute path of an installed npm server program
// (see testserver.NPMBin).
func npmBin(t *testing.T, name string) string {
	t.Helper()
	return testserver.NPMBin(t, filepath.Join("testdata", "npm"), name)
}

// startHTTPServer runs an npm server that listens on the port in $PORT and
// returns its base URL once it accepts connections. It is stopped at the
// test's end.
func startHTTPServer(t *testing.T, bin string, args ...string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	_ = l.Close()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	deadline := time.Now().Add(nodeTimeout)
	for {
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err == nil {
			_ = c.Close()
			return "http://" + addr
		}
		select {
		case <-exited:
			t.Fatalf("%s %v exited before listening on %s", bin, args, addr)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s %v not listening on %s within %v", bin, args, addr, nodeTimeout)
		}
	}
}

// nodeTimeout is the Timeout of the Node servers in the tests. For a stdio
// server it bounds the start of the process too, which no test here times:
// on a loaded 2-core machine karakeep-mcp took 12 s to answer its first
// request (niced onto one core), and a start under load ran past 20 s.
const nodeTimeout = time.Minute

// TestNPMServers discovers the pinned third-party servers all at once and
// checks that every tool of every one converts, for every target, into a
// declaration the checker accepts.
func TestNPMServers(t *testing.T) {
	everything := npmBin(t, "mcp-server-everything")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "hello.txt"), []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	servers := []ServerConfig{
		{Name: "everything", Command: everything, Args: []string{"stdio"}},
		{Name: "everything-sse", URL: startHTTPServer(t, everything, "sse") + "/sse", Type: "sse"},
		{Name: "everything-http", HTTPURL: startHTTPServer(t, everything, "streamableHttp") + "/mcp"},
		{Name: "filesystem", Command: npmBin(t, "mcp-server-filesystem"), Args: []string{dir}},
		{Name: "memory", Command: npmBin(t, "mcp-server-memory"), Env: map[string]string{"MEMORY_FILE_PATH": filepath.Join(dir, "memory.jsonl")}},
		{Name: "thinking", Command: npmBin(t, "mcp-server-sequential-thinking")},
		{Name: "playwright", Command: npmBin(t, "playwright-mcp"), Args: []string{"--headless", "--isolated"}},
	}
	for i := range servers {
		servers[i].Timeout = nodeTimeout
	}
	// One tool each server is known to offer (by its original name).
	known := map[string]string{
		"everything": "echo", "everything-sse": "echo", "everything-http": "echo",
		"filesystem": "list_directory", "memory": "create_entities",
		"thinking": "sequentialthinking", "playwright": "browser_navigate",
	}
	b := newBridge(t, nil, servers...)
	start := time.Now()
	discover(t, b)
	t.Logf("discovered %d tools of %d npm servers in %v", len(b.Tools()), len(servers), time.Since(start))

	for _, s := range b.Status().Servers {
		if s.State != Connected {
			t.Errorf("%s = %v (%s), want CONNECTED; stderr:\n%s", s.Name, s.State, s.Error, s.Stderr)
		}
	}
	byServer := map[string][]*Tool{}
	for _, tool := range b.Tools() {
		byServer[tool.Server] = append(byServer[tool.Server], tool)
	}
	for _, s := range servers {
		tools := byServer[s.Name]
		if !slices.ContainsFunc(tools, func(tool *Tool) bool { return tool.ServerTool == known[s.Name] }) {
			t.Errorf("%s: tools %v lack %q", s.Name, toolNamesOf(tools), known[s.Name])
		}
		t.Logf("%s: %d tools", s.Name, len(tools))
	}
	// The three modes of server-everything offer the same tools.
	if a, b2, c := len(byServer["everything"]), len(byServer["everything-sse"]), len(byServer["everything-http"]); a == 0 || a != b2 || a != c {
		t.Errorf("server-everything tools: stdio %d, sse %d, http %d, want the same non-zero count", a, b2, c)
	}

	checked := 0
	for _, tool := range b.Tools() {
		for _, target := range []schema.Target{schema.Gemini, schema.Vertex, schema.JSONSchema} {
			res, err := schema.Convert(tool.InputSchema(), &schema.Options{Target: target})
			if err != nil {
				t.Errorf("Convert(%s/%s, %v) = %v", tool.Server, tool.ServerTool, target, err)
				continue
			}
			if vs := schema.CheckDeclaration(res.Declaration(tool.Name, tool.Description), target); len(vs) > 0 {
				t.Errorf("CheckDeclaration(%s/%s, %v) = %v\nschema: %s", tool.Server, tool.ServerTool, target, vs, tool.InputSchema())
			}
			checked++
		}
		if vs := schema.CheckDeclaration(tool.Declaration, schema.Gemini); len(vs) > 0 {
			t.Errorf("CheckDeclaration(%s declaration) = %v", tool.Name, vs)
		}
	}
	t.Logf("%d declarations checked", checked)

	for _, server := range []string{"everything", "everything-sse", "everything-http"} {
		got, err := call(t, b, server, "echo", map[string]any{"message": "hi from " + server})
		if err != nil || !strings.Contains(got, "hi from "+server) {
			t.Errorf("callTool(%s, echo) = %q, %v, want the message echoed", server, got, err)
		}
	}
	got, err := call(t, b, "filesystem", "list_directory", map[string]any{"path": dir})
	if err != nil || !strings.Contains(got, "hello.txt") {
		t.Errorf("callTool(filesystem, list_directory) = %q, %v, want hello.txt listed", got, err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := b.ListResources(ctx, "everything")
	if err != nil || len(res) == 0 {
		t.Fatalf("ListResources(everything) = %d resources, %v, want some", len(res), err)
	}
	parts, err := b.ReadResource(ctx, "everything", res[0].URI)
	if err != nil || len(parts) == 0 || (parts[0].Text == "" && parts[0].InlineData == nil) {
		t.Errorf("ReadResource(everything, %s) = %v, %v, want content", res[0].URI, parts, err)
	}
}
