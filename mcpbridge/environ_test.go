package mcpbridge

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestChildEnvInheritSecrets: Config.InheritSecretEnv decides whether a
// secret-looking parent variable reaches the server; the configured env
// always does.
func TestChildEnvInheritSecrets(t *testing.T) {
	parent := []string{"PATH=/usr/bin", "GITHUB_TOKEN=gh-secret"}
	cfg := ServerConfig{Name: "s", Command: "x", Env: map[string]string{"API_KEY": "given"}}
	tests := []struct {
		name           string
		inheritSecrets bool
		want           []string
	}{
		{"withhold (zero value)", false, []string{"API_KEY=given", "PATH=/usr/bin"}},
		{"inherit", true, []string{"API_KEY=given", "GITHUB_TOKEN=gh-secret", "PATH=/usr/bin"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, cfg.childEnv(parent, tt.inheritSecrets)); diff != "" {
				t.Errorf("childEnv(inheritSecrets=%v) (-want +got):\n%s", tt.inheritSecrets, diff)
			}
		})
	}
}
