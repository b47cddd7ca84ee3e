package mcpbridge

import (
	"fmt"
	"strings"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/mcpbridge/internal/mcpconn"
)

// serverInstructions are the instructions one server gave about itself
// when it connected: how to use its tools, prompts and resources. Hosts
// read them in [ServerStatus.Instructions].
type serverInstructions struct {
	// Server is the configured server name.
	Server string
	// Text is the server's text, redacted (see the package documentation).
	Text string
}

// instructions returns the instructions of every server that gave some, in
// configuration order. A server's instructions are those of its last
// connection; they stay when it disconnects. The slice is the caller's.
func (b *Bridge) instructions(u *userState) []serverInstructions {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []serverInstructions
	for _, s := range b.servers {
		if u != nil && b.perUserLocked(s) {
			if s = u.inst[s]; s == nil {
				continue // u has not connected to it (or has left)
			}
		}
		if strings.TrimSpace(s.instructions) == "" {
			continue
		}
		out = append(out, serverInstructions{Server: s.cfg.Name, Text: s.redac.Text(s.instructions)})
	}
	return out
}

// systemInstruction returns the instructions of every server that gave
// some, in configuration order, as one text part (see
// [Declarations.SystemInstruction]): each server's text in a block that
// names the server and marks where the text begins and ends. It returns
// nil when no server gave instructions.
func (b *Bridge) systemInstruction(u *userState) *genai.Part {
	ins := b.instructions(u)
	if len(ins) == 0 {
		return nil
	}
	var sb strings.Builder
	for i, in := range ins {
		if i > 0 {
			sb.WriteString("\n\n")
		}
		fmt.Fprintf(&sb, "The MCP server %q gave these instructions for using its tools, prompts and resources:\n", in.Server)
		sb.WriteString("<server-instructions>\n")
		sb.WriteString(strings.TrimSpace(in.Text))
		sb.WriteString("\n</server-instructions>")
	}
	return genai.NewPartFromText(sb.String())
}

// keepsWithoutTools reports whether a server that offers no tools stays
// connected: it offers prompts or resources.
func keepsWithoutTools(conn *mcpconn.Conn) bool {
	o := conn.Offers()
	return o.Prompts || o.Resources
}

// offersTools reports whether a server is asked for tools: it declared
// tools, or declared neither prompts nor resources (a server that declares
// nothing may still answer tools/list).
func offersTools(conn *mcpconn.Conn) bool {
	return conn.Offers().Tools || !keepsWithoutTools(conn)
}
