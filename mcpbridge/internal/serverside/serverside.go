// Package serverside decides whether the Gemini API can call an MCP server
// itself (server-side MCP, genai.Tool.MCPServers) instead of the host
// bridging its tools, and builds the API's description of such a server.
//
// The API reaches the server on its own, with the settings it is given,
// and runs the tools it chooses without asking anyone. So only a server
// that the API can reach and use exactly as the host would qualifies:
//
//	if reason := serverside.Reason(s, vertex); reason == "" {
//		tool.MCPServers = append(tool.MCPServers, serverside.Build(s))
//	}
package serverside

import (
	"maps"
	"time"

	"google.golang.org/genai"
)

// Server is what the decision needs to know of one configured server.
type Server struct {
	Name string
	// URL is the endpoint; HTTP reports whether it is known to be
	// streamable HTTP (httpUrl, or type "http"); Stdio whether the server
	// is a local process.
	URL   string
	HTTP  bool
	Stdio bool
	// Headers are the static headers sent with every request.
	Headers map[string]string
	// Timeout bounds each request; zero leaves the API's default.
	Timeout time.Duration
	// Trusted reports whether the host runs the server's tools without
	// asking (the API never asks).
	Trusted bool
	// OAuth reports an OAuth configuration, or a login the server asked
	// for; AuthProvider a credentials provider (Google credentials,
	// impersonation): both need the host's tokens.
	OAuth        bool
	AuthProvider string
	// Filtered reports includeTools or excludeTools: the API would offer
	// every tool.
	Filtered bool
}

// Reason returns why s must stay client-side, or "" when the Gemini API
// can call it itself. vertex reports a Vertex AI target, which does not
// support server-side MCP.
func Reason(s Server, vertex bool) string {
	switch {
	case vertex:
		return "Vertex AI does not call MCP servers itself"
	case s.Stdio:
		return "a local (stdio) server cannot be reached by the Gemini API"
	case !s.HTTP:
		return "not configured as streamable HTTP (httpUrl or type \"http\")"
	case !s.Trusted:
		return "its calls need confirmation, which the Gemini API cannot ask for"
	case s.OAuth:
		return "it needs an OAuth login"
	case s.AuthProvider != "":
		return "its credentials come from " + s.AuthProvider
	case s.Filtered:
		return "includeTools/excludeTools would not apply"
	}
	return ""
}

// Build returns the API's description of s: its name, URL, headers (a
// copy) and timeout. It does not check eligibility (see Reason).
func Build(s Server) *genai.MCPServer {
	return &genai.MCPServer{
		Name: s.Name,
		StreamableHTTPTransport: &genai.StreamableHTTPTransport{
			URL:     s.URL,
			Headers: maps.Clone(s.Headers),
			Timeout: s.Timeout,
		},
	}
}
