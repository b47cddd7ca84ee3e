package egress

import (
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestOrigin(t *testing.T) {
	tests := []struct{ in, want string }{
		{"http://Example.com/mcp", "http://example.com:80"},
		{"https://example.com:443/a?b", "https://example.com:443"},
		{"https://example.com/a", "https://example.com:443"},
		{"http://127.0.0.1:8080/sse", "http://127.0.0.1:8080"},
		{"http://127.0.0.2:8080/sse", "http://127.0.0.2:8080"},
		{"http://[::1]:9/x", "http://[::1]:9"},
		{"http://user:pass@host:1/", "http://host:1"},
		{"/relative", ""},
		{"::not a url", ""},
	}
	for _, tt := range tests {
		if got := Origin(tt.in); got != tt.want {
			t.Errorf("Origin(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	// Origins that differ in one part only are different.
	base := Origin("http://127.0.0.1:8080/mcp")
	for _, other := range []string{"https://127.0.0.1:8080/mcp", "http://127.0.0.1:8081/mcp", "http://127.0.0.2:8080/mcp", "http://localhost:8080/mcp"} {
		if Origin(other) == base {
			t.Errorf("Origin(%q) = Origin of http://127.0.0.1:8080/mcp, want them different", other)
		}
	}
}
