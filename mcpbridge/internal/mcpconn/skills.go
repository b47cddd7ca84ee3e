package mcpconn

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// SkillsExtension is the Skills extension (SEP-2640): skills served as
// resources, enumerated with skills/list.
const SkillsExtension = "io.modelcontextprotocol/skills"

// methodSkillsList is the extension's enumeration.
const methodSkillsList = "skills/list"

// OffersSkills reports whether the server declared the Skills extension.
func (c *Conn) OffersSkills() bool {
	_, ok := c.init.Capabilities.Extensions[SkillsExtension]
	return ok
}

// renameKey marks the context of a request that mcp-go sends under a
// method it knows and the tap renames: mcp-go has no skills/list, so the
// page is asked for as resources/list (the same params: a cursor) and
// renamed, method and Mcp-Method header, before it leaves.
type renameKey struct{}

// ListSkills returns the raw entries of the server's skills/list, page by
// page until the last cursor (bounded as tools/list is). A server that
// did not declare the extension has none, and is not asked.
func (c *Conn) ListSkills(ctx context.Context) ([]json.RawMessage, error) {
	if !c.OffersSkills() {
		return nil, nil
	}
	ctx = context.WithValue(ctx, renameKey{}, methodSkillsList)
	return c.resourcePages(ctx, methodSkillsList, "skills")
}

// renameRequest renames a resources/list that carries the context's
// renameKey to that method.
func renameRequest(ctx context.Context, req transport.JSONRPCRequest) transport.JSONRPCRequest {
	to, _ := ctx.Value(renameKey{}).(string)
	if to == "" || req.Method != string(mcp.MethodResourcesList) {
		return req
	}
	req.Method = to
	req.Header = req.Header.Clone()
	if req.Header == nil {
		req.Header = http.Header{}
	}
	req.Header.Set(mcp.HeaderMethod, to)
	return req
}
