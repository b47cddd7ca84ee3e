package mcpbridge

import (
	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/mcpbridge/auth"
	"github.com/mcpgenai/bridge/mcpbridge/internal/serverside"
	"github.com/mcpgenai/bridge/schema"
)

// serverSideLocked returns why s stays client-side ("" when the Gemini
// API calls it itself). The caller holds b.mu.
func (b *Bridge) serverSideLocked(s *server) string {
	c := s.cfg
	t := c.transport()
	in := serverside.Server{
		Name: c.Name, URL: c.endpoint(), Headers: c.Headers, Timeout: c.Timeout,
		HTTP:  c.HTTPURL != "" || c.Type == TransportHTTP,
		Stdio: t == TransportStdio, Trusted: c.Trust,
		OAuth:        (c.OAuth != nil && c.OAuth.Enabled) || s.authState() != auth.StateNone,
		AuthProvider: string(c.AuthProviderType),
		Filtered:     c.IncludeTools != nil || len(c.ExcludeTools) > 0,
	}
	return serverside.Reason(in, b.target == schema.Vertex)
}

// serverSideTools returns, with Options.ServerSideMCP, the servers the
// Gemini API calls itself: their names, and one genai.Tool describing
// them (nil when there are none). Without the option both are nil.
func (b *Bridge) serverSideTools() (map[string]bool, *genai.Tool) {
	if !b.serverSide {
		return nil, nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	var names map[string]bool
	var tool *genai.Tool
	for _, s := range b.servers {
		if b.serverSideLocked(s) != "" {
			continue
		}
		if names == nil {
			names, tool = map[string]bool{}, &genai.Tool{}
		}
		names[s.cfg.Name] = true
		c := s.cfg
		tool.MCPServers = append(tool.MCPServers, serverside.Build(serverside.Server{
			Name: c.Name, URL: c.endpoint(), Headers: c.Headers, Timeout: c.Timeout,
		}))
	}
	return names, tool
}
