package mcpbridge

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestEnvPolicyString(t *testing.T) {
	for p, want := range map[EnvPolicy]string{EnvWithholdSecrets: "withhold-secrets", EnvPassAll: "pass-all", 7: "EnvPolicy(7)"} {
		if got := p.String(); got != want {
			t.Errorf("EnvPolicy(%d).String() = %q, want %q", int(p), got, want)
		}
	}
}

// TestChildEnvPolicy: the policy decides whether a secret-looking parent
// variable reaches the server; the configured env always does.
func TestChildEnvPolicy(t *testing.T) {
	parent := []string{"PATH=/usr/bin", "GITHUB_TOKEN=gh-secret"}
	cfg := ServerConfig{Name: "s", Command: "x", Env: map[string]string{"API_KEY": "given"}}
	tests := []struct {
		policy EnvPolicy
		want   []string
	}{
		{EnvWithholdSecrets, []string{"API_KEY=given", "PATH=/usr/bin"}},
		{EnvPassAll, []string{"API_KEY=given", "GITHUB_TOKEN=gh-secret", "PATH=/usr/bin"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, cfg.childEnv(parent, tt.policy)); diff != "" {
			t.Errorf("childEnv(%v) (-want +got):\n%s", tt.policy, diff)
		}
	}
}
