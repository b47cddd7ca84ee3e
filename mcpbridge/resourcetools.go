package mcpbridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpgenai/bridge/mcpbridge/internal/args"
	"github.com/mcpgenai/bridge/mcpbridge/internal/mcpconn"
	"github.com/mcpgenai/bridge/mcpbridge/internal/result"
	"github.com/mcpgenai/bridge/mcpbridge/internal/secrets"
	"github.com/mcpgenai/bridge/schema"
)

// resourceToolsServer is the server name of the built-in resource tools
// ([Options.ResourceTools]) in their [Tool], in confirmation requests and
// in allow-list keys. With ResourceTools set, no configured server may
// have this name.
const resourceToolsServer = "mcp-resources"

// The names of the built-in resource tools. A server's tool of the same
// name is registered under a prefixed name, as for any conflict.
const (
	listResourcesTool = "list_mcp_resources"
	readResourceTool  = "read_mcp_resource"
)

// resourceToolSpecs are the built-in resource tools: name, description and
// input schema.
var resourceToolSpecs = []struct{ name, description, schema string }{
	{listResourcesTool,
		"Lists the resources and resource templates of the connected MCP servers: for each, the server, its URI " +
			"(or URI template, whose {placeholders} you fill in), name, description and MIME type. " +
			"Read one with " + readResourceTool + ".",
		`{"type":"object","properties":{"server":{"type":"string","description":"Only this server's resources; all servers when omitted."}}}`},
	{readResourceTool,
		"Reads one resource of an MCP server by its URI, as listed by " + listResourcesTool +
			" (a template's URI with its placeholders filled in).",
		`{"type":"object","properties":{"server":{"type":"string","description":"The server that lists the resource."},"uri":{"type":"string","description":"The resource's URI."}},"required":["server","uri"]}`},
	{readSkillTool,
		"Skills are instructions for a task, offered by the connected MCP servers. Without a skill, lists them (server, name, description). " +
			"With a skill (its name, or its URI), loads its SKILL.md: follow it when it fits the task. With a skill and a file (a path " +
			"relative to the skill's directory, as its SKILL.md names it), reads that file of a loaded skill.",
		`{"type":"object","properties":{"server":{"type":"string","description":"Only this server's skills; needed when two servers offer a skill of the same name."},"skill":{"type":"string","description":"The skill's name or URI."},"file":{"type":"string","description":"A file of the skill, by its path relative to the skill's directory."}}}`},
}

// resourceTools returns the pseudo-server holding the built-in resource
// tools, converted for target.
func resourceTools(target schema.Target) (*server, error) {
	s := &server{cfg: ServerConfig{Name: resourceToolsServer}, redac: secrets.NewKeyring(nil)}
	readOnly := true
	for _, spec := range resourceToolSpecs {
		res, err := schema.Convert([]byte(spec.schema), &schema.Options{Target: target})
		if err != nil {
			return nil, fmt.Errorf("built-in tool %s: %w", spec.name, err)
		}
		s.defs = append(s.defs, &toolDef{
			raw: mcpconn.Tool{Name: spec.name, Description: spec.description, InputSchema: json.RawMessage(spec.schema),
				Annotations: mcpconn.Annotations{ReadOnlyHint: &readOnly}},
			conv:    res,
			args:    args.NewSchema(json.RawMessage(spec.schema), res.Restorer, nil), // fixed schemas: they compile
			builtin: true,
		})
	}
	return s, nil
}

// sender returns how a call of tool reaches its server: the built-in
// resource tools are answered by the Bridge itself.
func (b *Bridge) sender(tool *Tool) sendFunc {
	if tool.def.builtin {
		return b.resourceToolCall
	}
	return b.call
}

// resourceToolCall runs a built-in resource tool with the raw arguments
// and returns a CallToolResult as a server would. What the servers answer
// is not a failure of the call: an unknown server or a failed read is a
// result with isError, which the model reads.
func (b *Bridge) resourceToolCall(ctx context.Context, tool *Tool, raw json.RawMessage) (json.RawMessage, bool, error) {
	var args struct {
		Server string `json:"server"`
		URI    string `json:"uri"`
		Skill  string `json:"skill"`
		File   string `json:"file"`
	}
	if err := json.Unmarshal(raw, &args); err != nil {
		return result.ToolError("arguments: " + err.Error()), false, nil
	}
	var out json.RawMessage
	var err error
	switch tool.ServerTool {
	case listResourcesTool:
		out, err = b.listResourcesResult(ctx, args.Server)
	case readResourceTool:
		out, err = b.readResourceResult(ctx, args.Server, args.URI)
	case readSkillTool:
		out, err = b.readSkillResult(ctx, args.Server, args.Skill, args.File)
	default:
		err = fmt.Errorf("no built-in tool %q", tool.ServerTool)
	}
	if err != nil {
		if ctx.Err() != nil || errors.Is(err, ErrClosed) {
			return nil, false, err
		}
		return result.ToolError(err.Error()), false, nil
	}
	return out, false, nil
}

// listedResource is one entry of list_mcp_resources' answer.
type listedResource struct {
	Server      string `json:"server"`
	URI         string `json:"uri,omitempty"`
	URITemplate string `json:"uriTemplate,omitempty"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
}

// listResourcesResult lists the resources and templates of the named
// server, or of every connected server offering resources when name is "".
// A server that fails is named in "errors" without hiding the others.
func (b *Bridge) listResourcesResult(ctx context.Context, name string) (json.RawMessage, error) {
	names, err := b.resourceServers(ctx, name)
	if err != nil {
		return nil, err
	}
	out := struct {
		Resources []listedResource `json:"resources"`
		Templates []listedResource `json:"resourceTemplates"`
		Errors    []string         `json:"errors,omitempty"`
	}{Resources: []listedResource{}, Templates: []listedResource{}}
	for _, n := range names {
		rs, err := b.ListResources(ctx, n)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			out.Errors = append(out.Errors, err.Error())
			continue
		}
		for _, r := range rs {
			l := listedResource{Server: n, URI: r.URI, URITemplate: r.URITemplate, Name: r.Name,
				Title: r.Title, Description: r.Description, MIMEType: r.MIMEType}
			if r.URITemplate != "" {
				out.Templates = append(out.Templates, l)
			} else {
				out.Resources = append(out.Resources, l)
			}
		}
	}
	text, err := json.Marshal(out)
	if err != nil {
		return nil, err
	}
	return json.Marshal(map[string]any{
		"content":           []any{map[string]any{"type": "text", "text": string(text)}},
		"structuredContent": json.RawMessage(text),
	})
}

// resourceServers returns name when it is a configured server, or every
// connected server when name is "".
func (b *Bridge) resourceServers(ctx context.Context, name string) ([]string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, ErrClosed
	}
	if name != "" {
		if _, ok := b.byName[name]; !ok {
			return nil, fmt.Errorf("%w %q; the servers are: %s", ErrUnknownServer, name, strings.Join(b.serverNamesLocked(), ", "))
		}
		return []string{name}, nil
	}
	u, err := b.enterLocked(ctx)
	if err != nil {
		return nil, err
	}
	defer b.leaveLocked(u)
	return b.connectedLocked(u), nil
}

func (b *Bridge) serverNamesLocked() []string {
	names := make([]string, len(b.servers))
	for i, s := range b.servers {
		names[i] = s.cfg.Name
	}
	return names
}

// readResourceResult reads uri from the named server and returns its
// contents as embedded resources.
func (b *Bridge) readResourceResult(ctx context.Context, name, uri string) (json.RawMessage, error) {
	if _, err := b.resourceServers(ctx, name); err != nil || name == "" {
		if err == nil {
			err = errors.New("no server named: give the server that lists the resource")
		}
		return nil, err
	}
	if uri == "" {
		return nil, errors.New("no uri given")
	}
	var raw json.RawMessage
	err := b.onServer(ctx, name, func(ctx context.Context, conn *mcpconn.Conn) (err error) {
		raw, err = conn.ReadResource(ctx, uri)
		return err
	})
	if err != nil {
		return nil, err
	}
	var res struct {
		Contents []json.RawMessage `json:"contents"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("mcp server %q: resources/read %q: decoding result: %w", name, uri, err)
	}
	blocks := make([]any, 0, len(res.Contents))
	for _, c := range res.Contents {
		blocks = append(blocks, map[string]any{"type": "resource", "resource": c})
	}
	return json.Marshal(map[string]any{"content": blocks})
}

// checkResourceToolsName reports a configured server that has the name of
// the built-in resource tools.
func checkResourceToolsName(cfg *Config) error {
	if slices.ContainsFunc(cfg.Servers, func(s ServerConfig) bool { return s.Name == resourceToolsServer }) {
		return &ConfigError{Server: resourceToolsServer, Err: errors.New("name reserved for the built-in resource tools (Options.ResourceTools)")}
	}
	return nil
}
