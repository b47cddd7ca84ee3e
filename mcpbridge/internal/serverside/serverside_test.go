package serverside

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"
)

func TestReason(t *testing.T) {
	ok := Server{Name: "docs", URL: "https://mcp.example.com/mcp", HTTP: true, Trusted: true, Headers: map[string]string{"X-Key": "k"}}
	tests := []struct {
		name   string
		edit   func(*Server)
		vertex bool
		want   string // part of the reason; "" means eligible
	}{
		{"eligible", func(*Server) {}, false, ""},
		{"vertex", func(*Server) {}, true, "Vertex AI"},
		{"stdio", func(s *Server) { s.Stdio, s.HTTP = true, false }, false, "stdio"},
		{"sse", func(s *Server) { s.HTTP = false }, false, "streamable HTTP"},
		{"untrusted", func(s *Server) { s.Trusted = false }, false, "confirmation"},
		{"oauth", func(s *Server) { s.OAuth = true }, false, "OAuth"},
		{"google credentials", func(s *Server) { s.AuthProvider = "google_credentials" }, false, "google_credentials"},
		{"filtered", func(s *Server) { s.Filtered = true }, false, "includeTools"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := ok
			tc.edit(&s)
			got := Reason(s, tc.vertex)
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Errorf("Reason(%s) = %q, want %q", tc.name, got, tc.want)
			}
		})
	}
}

func TestBuild(t *testing.T) {
	s := Server{Name: "docs", URL: "https://mcp.example.com/mcp", HTTP: true, Headers: map[string]string{"X-Key": "k"}, Timeout: 30 * time.Second}
	got := Build(s)
	want := &genai.MCPServer{Name: "docs", StreamableHTTPTransport: &genai.StreamableHTTPTransport{
		URL: "https://mcp.example.com/mcp", Headers: map[string]string{"X-Key": "k"}, Timeout: 30 * time.Second}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Build() mismatch (-want +got):\n%s", diff)
	}
	got.StreamableHTTPTransport.Headers["X-Key"] = "changed"
	if s.Headers["X-Key"] != "k" {
		t.Error("Build shares the headers map")
	}
}
