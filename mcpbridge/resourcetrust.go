package mcpbridge

import (
	"encoding/json"
	"strings"
)

// untrustedSource returns the untrusted servers whose data a result of
// tool, called with the raw arguments, carries, joined by ", ": the tool's
// server when it is not trusted; for the built-in resource tools, the
// server named in the arguments, or every untrusted server when none is
// named (list_mcp_resources lists them all). "" means the data comes from
// trusted servers only.
func (b *Bridge) untrustedSource(tool *Tool, raw json.RawMessage) string {
	if tool.Server != resourceToolsServer {
		if tool.Trust {
			return ""
		}
		return tool.Server
	}
	var args struct {
		Server string `json:"server"`
	}
	_ = json.Unmarshal(raw, &args) // the arguments were validated; a bad shape names no server
	b.mu.Lock()
	defer b.mu.Unlock()
	var names []string
	for _, s := range b.servers {
		if !s.cfg.Trust && (args.Server == "" || s.cfg.Name == args.Server) {
			names = append(names, s.cfg.Name)
		}
	}
	return strings.Join(names, ", ")
}
