package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// demoServer is a built-in demo server: its name and its tools.
type demoServer struct {
	name  string
	tools []demoTool
}

// demoTool is one tool of a built-in demo server: a name and the raw JSON
// Schema it advertises, chosen to show what the bridge has to fix.
type demoTool struct {
	name, description, schema string
}

// demoServers are the MCP servers the inspector starts when it is given no
// settings. Between them they show every kind of rework the bridge does:
// $ref/$defs, a numeric enum, uniqueItems, a type array with null, oneOf,
// const, an exclusive bound, a name over 63 characters, a name with
// characters Gemini rejects, and two servers offering the same tool name.
// They are configured in this order, so "tracker" keeps the bare name
// get_status.
var demoServers = []demoServer{
	{"tracker", []demoTool{
		{"search_issues", "Search the issue tracker.", `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "$defs": {
    "filter": {
      "type": "object",
      "properties": {
        "state": {"type": "string", "enum": ["open", "closed", "all"], "default": "open"},
        "labels": {"type": "array", "items": {"type": "string"}, "uniqueItems": true},
        "assignee": {"$ref": "#/$defs/user"}
      }
    },
    "user": {"type": "string", "pattern": "^[a-z0-9-]+$", "description": "A user login."}
  },
  "properties": {
    "query": {"type": "string", "description": "Free text."},
    "filter": {"$ref": "#/$defs/filter"},
    "limit": {"type": "integer", "exclusiveMinimum": 0, "maximum": 100}
  },
  "required": ["query"],
  "additionalProperties": false
}`},
		{"set_priority", "Set the priority of an issue (1 is the highest).", `{
  "type": "object",
  "properties": {
    "issue": {"type": "string"},
    "priority": {"type": "integer", "enum": [1, 2, 3, 5]}
  },
  "required": ["issue", "priority"]
}`},
		{"assign", "Assign an issue, or clear its assignee with null.", `{
  "type": "object",
  "properties": {
    "issue": {"type": "string"},
    "assignee": {"type": ["string", "null"]}
  },
  "required": ["issue", "assignee"]
}`},
		{"get_status", "Report whether the tracker is reachable.", `{"type": "object"}`},
		{"generate_quarterly_engineering_velocity_report_for_every_team_in_the_organization",
			"A tool whose name is longer than Gemini allows.", `{
  "type": "object",
  "properties": {"quarter": {"type": "string", "format": "date"}}
}`},
	}},
	{"notes", []demoTool{
		{"get_status", "Report whether the notes store is reachable.", `{}`},
		{"notes/append", "Append text to a note, by id or by title.", `{
  "type": "object",
  "properties": {
    "target": {
      "oneOf": [
        {"type": "object", "properties": {"kind": {"const": "id"}, "id": {"type": "integer"}}, "required": ["kind", "id"]},
        {"type": "object", "properties": {"kind": {"const": "title"}, "title": {"type": "string"}}, "required": ["kind", "title"]}
      ]
    },
    "text": {"type": "string", "minLength": 1}
  },
  "required": ["target", "text"]
}`},
	}},
}

// serveDemo runs the demo server name over stdio until in ends.
func serveDemo(ctx context.Context, name string, in io.Reader, out io.Writer) error {
	i := slices.IndexFunc(demoServers, func(d demoServer) bool { return d.name == name })
	if i < 0 {
		return fmt.Errorf("no demo server %q", name)
	}
	s := server.NewMCPServer(name, "1.0.0", server.WithToolCapabilities(false))
	for _, t := range demoServers[i].tools {
		s.AddTool(mcp.NewToolWithRawSchema(t.name, t.description, json.RawMessage(t.schema)), echoArgs)
	}
	return server.NewStdioServer(s).Listen(ctx, in, out)
}

// echoArgs answers every demo call with the arguments it received, so a
// caller can see that restored values (a numeric enum, say) arrive as the
// original schema's types.
func echoArgs(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	b, err := json.Marshal(req.GetRawArguments())
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	return mcp.NewToolResultText(fmt.Sprintf("%s received %s", req.Params.Name, b)), nil
}
