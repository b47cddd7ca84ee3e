package geminitest

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/genai"
)

func TestMCPServers(t *testing.T) {
	ctx := context.Background()
	good := &genai.MCPServer{Name: "docs", StreamableHTTPTransport: &genai.StreamableHTTPTransport{
		URL: "https://mcp.example.com/mcp", Headers: map[string]string{"X-Key": "k"}, Timeout: 30 * time.Second}}
	tests := []struct {
		name    string
		servers []*genai.MCPServer
		want    string // "" means accepted
	}{
		{"accepted", []*genai.MCPServer{good}, ""},
		{"no name", []*genai.MCPServer{{StreamableHTTPTransport: good.StreamableHTTPTransport}}, "mcp_servers[0].name: name is required"},
		{"duplicate", []*genai.MCPServer{good, good}, "Duplicate MCP server name: docs"},
		{"no transport", []*genai.MCPServer{{Name: "x"}}, "required one_of 'transport'"},
		{"bad url", []*genai.MCPServer{{Name: "x", StreamableHTTPTransport: &genai.StreamableHTTPTransport{URL: "stdio:foo"}}}, "invalid URL"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := New(t, nil, Text("ok"))
			cfg := &genai.GenerateContentConfig{Tools: []*genai.Tool{{MCPServers: tc.servers}}}
			_, err := srv.Client(ctx).Models.GenerateContent(ctx, model, []*genai.Content{userText("hi")}, cfg)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("GenerateContent() = %v, want accepted", err)
				}
				got := srv.Requests()[0].Config.Tools[0].MCPServers[0]
				if got.StreamableHTTPTransport.Timeout != 30*time.Second || got.StreamableHTTPTransport.Headers["X-Key"] != "k" {
					t.Errorf("the server received %+v", got.StreamableHTTPTransport)
				}
				return
			}
			if apiErr := asAPIError(t, err); apiErr.Code != http.StatusBadRequest || !strings.Contains(apiErr.Message, tc.want) {
				t.Errorf("GenerateContent(%s) = %v, want a 400 with %q", tc.name, err, tc.want)
			}
		})
	}
}

// TestVertexAI: a Vertex AI fake answers a Vertex client, checks Vertex
// AI's limit, and refuses server-side MCP, which Vertex AI lacks.
func TestVertexAI(t *testing.T) {
	ctx := context.Background()
	srv := New(t, &Options{VertexAI: true}, Text("ok"), Text("never"))
	client := srv.Client(ctx)
	decl := &genai.Tool{FunctionDeclarations: []*genai.FunctionDeclaration{{Name: "f"}}}
	resp, err := client.Models.GenerateContent(ctx, model, []*genai.Content{userText("hi")}, &genai.GenerateContentConfig{Tools: []*genai.Tool{decl}})
	if err != nil || resp.Text() != "ok" {
		t.Fatalf("GenerateContent() on Vertex AI = %v", err)
	}
	// genai itself refuses an MCP server's name and transport for Vertex
	// AI; an empty server reaches the API, which refuses MCP servers.
	remote := &genai.Tool{MCPServers: []*genai.MCPServer{{}}}
	_, err = client.Models.GenerateContent(ctx, model, []*genai.Content{userText("hi")}, &genai.GenerateContentConfig{Tools: []*genai.Tool{remote}})
	if apiErr := asAPIError(t, err); apiErr.Code != http.StatusBadRequest || !strings.Contains(apiErr.Message, "not supported in Vertex AI") {
		t.Errorf("mcpServers on Vertex AI = %v, want a 400", err)
	}
	many := &genai.Tool{}
	for i := range 129 {
		many.FunctionDeclarations = append(many.FunctionDeclarations, &genai.FunctionDeclaration{Name: "f" + strconv.Itoa(i)})
	}
	_, err = client.Models.GenerateContent(ctx, model, []*genai.Content{userText("hi")}, &genai.GenerateContentConfig{Tools: []*genai.Tool{many}})
	if apiErr := asAPIError(t, err); !strings.Contains(apiErr.Message, "At most 128") {
		t.Errorf("129 declarations on Vertex AI = %v, want the limit of 128", err)
	}
	if reqs := srv.Requests(); len(reqs) != 3 || reqs[0].Rejection != "" {
		t.Errorf("Requests() = %d, want 3 with the first accepted", len(reqs))
	}
}
