package mcpbridge

import (
	"context"
	"slices"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/geminitest"
	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
	"github.com/mcpgenai/bridge/schema"
)

// TestServerSideMCP: an eligible server (streamable HTTP, static headers,
// trusted) goes to the Gemini API as an MCP server, its tools undeclared;
// the stdio server is bridged; the status says which path each takes.
func TestServerSideMCP(t *testing.T) {
	remote, _ := httpServer(t, "docs", TransportHTTP, testserver.Options{})
	remote.Trust, remote.Headers = true, map[string]string{"X-Team": "blue"}
	untrusted, _ := httpServer(t, "wiki", TransportHTTP, testserver.Options{})
	b := newBridge(t, &Options{ServerSideMCP: true}, remote, untrusted, mcptestExec("main"))
	discover(t, b)
	ctx := context.Background()
	srv := geminitest.New(t, nil, func(req *geminitest.Request) geminitest.Response {
		return geminitest.Text("ok")(req)
	})
	res, err := hostLoop(ctx, b, srv.Client(ctx).Models, prompt(), nil, nil, false)
	if err != nil || res.Response.Text() != "ok" {
		t.Fatalf("hostLoop() = %v", err)
	}
	report := res.Requests[0]
	req := srv.Requests()[0]
	var servers []*genai.MCPServer
	for _, tool := range req.Config.Tools {
		servers = append(servers, tool.MCPServers...)
	}
	if len(servers) != 1 || servers[0].Name != "docs" || servers[0].StreamableHTTPTransport.URL != remote.HTTPURL ||
		servers[0].StreamableHTTPTransport.Headers["X-Team"] != "blue" {
		t.Fatalf("the request's MCP servers = %+v, want docs with its URL and headers", servers)
	}
	for _, d := range req.Declarations() {
		if tool, ok := b.Tool(d.Name); ok && tool.Server == "docs" {
			t.Errorf("the request declares %q of the server-side server", d.Name)
		}
	}
	if req.Declaration("lookup") == nil || req.Declaration("wiki__echo") == nil && req.Declaration("echo") == nil {
		t.Errorf("the bridged servers' tools are missing")
	}
	if !slices.Equal(report.ServerSide, []string{"docs"}) {
		t.Errorf("RequestReport.ServerSide = %v, want [docs]", report.ServerSide)
	}
	st := b.Status()
	if !st.Servers[0].ServerSide || st.Servers[1].ServerSide || !strings.Contains(st.Servers[1].ClientSide, "confirmation") ||
		!strings.Contains(st.Servers[2].ClientSide, "stdio") {
		t.Errorf("status paths = %+v / %q / %q", st.Servers[0].ServerSide, st.Servers[1].ClientSide, st.Servers[2].ClientSide)
	}
	text := st.String()
	for _, want := range []string{"MCP calls: made by the Gemini API (server-side MCP)", "MCP calls: bridged by this program: a local (stdio) server"} {
		if !strings.Contains(text, want) {
			t.Errorf("status text lacks %q:\n%s", want, text)
		}
	}
	d, err := b.Declare(ctx, nil, nil)
	if err != nil || len(d.Tools) != 2 || len(d.Tools[1].MCPServers) != 1 {
		t.Errorf("Declare() = %d tools, %v; want the declarations then the MCP servers", len(d.Tools), err)
	}
	// ClientSide (a Live session) bridges every server.
	client, err := b.Declare(ctx, nil, &DeclareOptions{ClientSide: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range client.Tools {
		if len(tool.MCPServers) > 0 {
			t.Error("Declare(ClientSide) lists MCP servers")
		}
	}
	if len(client.Report.ServerSide) != 0 || client.Report.Declared != d.Report.Declared+len(b.Status().Servers[0].Tools) {
		t.Errorf("Declare(ClientSide) report = %+v, want every server's tools declared", client.Report)
	}
}

func TestServerSideMCPVertex(t *testing.T) {
	remote, _ := httpServer(t, "docs", TransportHTTP, testserver.Options{})
	remote.Trust = true
	b := newBridge(t, &Options{ServerSideMCP: true, Target: schema.Vertex}, remote)
	discover(t, b)
	st := b.Status().Servers[0]
	if st.ServerSide || !strings.Contains(st.ClientSide, "Vertex AI") {
		t.Errorf("on Vertex AI: ServerSide %v, ClientSide %q; want bridged, saying why", st.ServerSide, st.ClientSide)
	}
	ctx := context.Background()
	d, err := b.Declare(ctx, nil, nil)
	if err != nil || len(d.Tools) != 1 || len(d.Tools[0].MCPServers) != 0 || len(d.Tools[0].FunctionDeclarations) == 0 {
		t.Errorf("Declare() on Vertex AI = %+v, %v; want declarations only", d, err)
	}
	// Against a Vertex AI endpoint, which refuses MCP servers, the loop
	// bridges the server's tools.
	srv := geminitest.New(t, &geminitest.Options{VertexAI: true}, geminitest.Calls(geminitest.Call{Name: "echo", Args: map[string]any{"text": "hi"}}), geminitest.Text("ok"))
	res, err := hostLoop(ctx, b, srv.Client(ctx).Models, prompt(), nil, nil, false)
	if err != nil || res.Response.Text() != "ok" || len(res.Results) != 1 || res.Results[0].Err != nil {
		t.Fatalf("hostLoop() on Vertex AI = %v, want the bridged echo call and the answer", err)
	}
	if rep := res.Requests[0]; len(rep.ServerSide) != 0 {
		t.Errorf("RequestReport.ServerSide = %v on Vertex AI", rep.ServerSide)
	}
}
