package mcpbridge

import (
	"github.com/mcpgenai/bridge/mcpbridge/internal/secrets"
)

// childEnv returns the environment for the server's process, as
// "NAME=value" entries sorted by name, given the parent's environment (as
// from [os.Environ]): the parent's variables, minus those that look secret
// unless inheritSecrets is set, plus s.Env, which always wins (the rule is
// documented on [Config.InheritSecretEnv]). parent is not modified.
func (s ServerConfig) childEnv(parent []string, inheritSecrets bool) []string {
	return secrets.ChildEnv(parent, s.Env, !inheritSecrets)
}
