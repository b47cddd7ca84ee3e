package geminitest

import (
	"context"
	"net/http"
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
