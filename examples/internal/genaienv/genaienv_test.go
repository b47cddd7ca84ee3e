package genaienv

import (
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/mcpgenai/bridge/geminitest"
	"google.golang.org/genai"
)

// clearEnv unsets every variable NewClient and genai read, for the test.
func clearEnv(t *testing.T) {
	for _, v := range []string{"GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GEMINI_BASE_URL",
		"GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_GENAI_USE_ENTERPRISE",
		"GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION", "GOOGLE_APPLICATION_CREDENTIALS"} {
		t.Setenv(v, "") // restored when the test ends
		if err := os.Unsetenv(v); err != nil {
			t.Fatal(err)
		}
	}
}

// TestNewClientFromEnvironment checks that the client honours genai's own
// variables, the key and GOOGLE_GEMINI_BASE_URL, by reaching the fake.
func TestNewClientFromEnvironment(t *testing.T) {
	for _, key := range []string{"GEMINI_API_KEY", "GOOGLE_API_KEY"} {
		t.Run(key, func(t *testing.T) {
			clearEnv(t)
			srv := geminitest.New(t, &geminitest.Options{APIKey: "env-key"}, geminitest.Text("from the fake"))
			t.Setenv("GOOGLE_GEMINI_BASE_URL", srv.URL())
			t.Setenv(key, "env-key")
			t.Cleanup(http.DefaultTransport.(*http.Transport).CloseIdleConnections)
			client, err := NewClient(t.Context(), "")
			if err != nil {
				t.Fatalf("NewClient() = %v", err)
			}
			resp, err := client.Models.GenerateContent(t.Context(), "gemini-2.5-flash", genai.Text("hi"), nil)
			if err != nil || resp.Text() != "from the fake" {
				t.Fatalf("GenerateContent() = %v, %v; want the fake's answer", resp, err)
			}
			if got := srv.Requests()[0].Header.Get("x-goog-api-key"); got != "env-key" {
				t.Errorf("API key sent = %q, want %q", got, "env-key")
			}
		})
	}
}

func TestNewClientWithoutKey(t *testing.T) {
	tests := []struct{ hint, want string }{
		{"", "no API key: set GEMINI_API_KEY or GOOGLE_API_KEY"},
		{", or use -backend cli", "no API key: set GEMINI_API_KEY or GOOGLE_API_KEY, or use -backend cli"},
	}
	for _, tt := range tests {
		clearEnv(t)
		if _, err := NewClient(t.Context(), tt.hint); err == nil || err.Error() != tt.want {
			t.Errorf("NewClient(%q) without a key = %v, want %q", tt.hint, err, tt.want)
		}
	}
}

// TestNewClientErrorIsOneLine selects Vertex AI without a project or
// location, which genai refuses with a message NewClient must cut to one
// line.
func TestNewClientErrorIsOneLine(t *testing.T) {
	clearEnv(t)
	t.Setenv("GOOGLE_GENAI_USE_VERTEXAI", "true")
	_, err := NewClient(t.Context(), "")
	if err == nil {
		t.Skip("genai accepted Vertex AI without a project here (credentials found); nothing to cut")
	}
	t.Logf("NewClient(Vertex AI, no project) = %v", err)
	if msg := err.Error(); strings.Contains(msg, "\n") || !strings.HasPrefix(msg, "creating the genai client: ") || strings.Contains(msg, "ClientConfig:") {
		t.Errorf("NewClient(Vertex AI, no project) = %q, want one line starting %q without the configuration", msg, "creating the genai client: ")
	}
}
