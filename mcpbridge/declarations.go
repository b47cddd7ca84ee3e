package mcpbridge

import (
	"fmt"
	"slices"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/mcpbridge/internal/clone"
)

// GenAITools returns the tools to put in a request's
// [genai.GenerateContentConfig.Tools]: one [genai.Tool] holding the
// declaration of every registered tool, sorted by name. With no tools
// registered it returns nil and no error, since the API rejects an empty
// list of declarations. With more tools than the target's limit
// ([schema.Target.MaxDeclarations]: 512, or 128 for Vertex AI) it returns an error
// wrapping [ErrTooManyTools] that names the count; [Bridge.Run] selects
// the tools of each request instead (see [Selection]).
//
// Tools the API rejected in a [Bridge.Run] are left out (see
// [DroppedTool]). Everything returned is new on each call, declarations
// and their schemas included: the caller may modify it, and no later
// request sees the change. After [Bridge.Close] it returns [ErrClosed].
//
// With [Options.ServerSideMCP], the tools of the servers the Gemini API
// calls itself are not declared; a last genai.Tool lists those servers in
// MCPServers.
func (b *Bridge) GenAITools() ([]*genai.Tool, error) {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil, ErrClosed
	}
	if err := b.undiscoveredLocked(); err != nil {
		b.mu.Unlock()
		return nil, err
	}
	tools := make([]*Tool, 0, len(b.sorted))
	for _, t := range b.sorted {
		if !b.isRejectedLocked(t) {
			tools = append(tools, t)
		}
	}
	b.mu.Unlock()
	remote, remoteTool := b.serverSideTools()
	if len(remote) > 0 {
		tools = slices.DeleteFunc(tools, func(t *Tool) bool { return remote[t.Server] })
	}

	var out []*genai.Tool
	if remoteTool != nil {
		out = []*genai.Tool{remoteTool}
	}
	switch n := len(tools); {
	case n == 0:
		return out, nil
	case n > b.target.MaxDeclarations():
		return nil, fmt.Errorf("%w: %d tools are registered, at most %d fit in one request; "+
			"narrow the servers' tools with includeTools or excludeTools, or let Run select them", ErrTooManyTools, n, b.target.MaxDeclarations())
	}
	decls := make([]*genai.FunctionDeclaration, len(tools))
	for i, t := range tools {
		decls[i] = clone.Declaration(t.Declaration)
	}
	return append([]*genai.Tool{{FunctionDeclarations: decls}}, out...), nil
}
