package mcpbridge

import "time"

// The helpers below let the tests of package mcpbridge_test reach
// unexported mechanics; they are compiled only into tests.

// NewServerStatus is newServerStatus.
var NewServerStatus = newServerStatus

// Transport is transport.
func (s ServerConfig) Transport() Transport { return s.transport() }

// AllowsHTTPFallback is allowsHTTPFallback.
func (s ServerConfig) AllowsHTTPFallback() bool { return s.allowsHTTPFallback() }

// Endpoint is endpoint.
func (s ServerConfig) Endpoint() string { return s.endpoint() }

// EffectiveTimeout is effectiveTimeout.
func (s ServerConfig) EffectiveTimeout() time.Duration { return s.effectiveTimeout() }

// AllowsTool is allowsTool.
func (s ServerConfig) AllowsTool(name string) bool { return s.allowsTool(name) }

// RedactText returns s redacted as the Bridge redacts the text it writes
// about the server cfg (errors, stderr, descriptions).
func RedactText(cfg ServerConfig, s string) string {
	return redactorFor(cfg).Text(s)
}
