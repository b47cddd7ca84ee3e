package testserver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// PickSchema is the input schema of the "pick" tool: an integer enum, which
// the Gemini schema only allows as strings.
const PickSchema = `{"type":"object","properties":{"size":{"type":"integer","enum":[1,2,3]},"note":{"type":"string"}},"required":["size"]}`

// ProfileSchema is the input schema of the "profile" tool: an id the
// "lookup" tool gives.
const ProfileSchema = `{"type":"object","properties":{"id":{"type":"string","pattern":"^u-[0-9]+$"}},"required":["id"],"additionalProperties":false}`

// LooseSchema is the input schema of the "loose" tool: its reference to
// another document cannot be followed, so its arguments cannot be
// validated.
const LooseSchema = `{"type":"object","properties":{"x":{"$ref":"https://example.invalid/x.json"}}}`

// Image is the image the "image" tool returns (image/png): the PNG
// signature, enough for tests that only compare bytes.
var Image = []byte("\x89PNG\r\n\x1a\n")

// addExecTools adds the tools of [Options.Exec]:
//   - lookup: {"name"} -> the text {"id":"u-N"} with N the length of name;
//   - profile: {"id"} (ProfileSchema) -> "profile of <id>";
//   - pick: {"size", "note"} (PickSchema) -> "size=<value> (<Go type received>)";
//   - image: -> the text "tiny image" then Image as image/png;
//   - fail: {"reason"} -> an isError result with the text "failed: <reason>";
//   - loose: {"x"} (LooseSchema) -> its arguments as JSON text.
func addExecTools(s *server.MCPServer) {
	s.AddTool(mcp.NewTool("lookup", mcp.WithDescription("finds a user's id by name"),
		mcp.WithString("name", mcp.Required()), mcp.WithReadOnlyHintAnnotation(true)),
		func(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			b, err := json.Marshal(map[string]string{"id": fmt.Sprintf("u-%d", len(r.GetString("name", "")))})
			if err != nil {
				return nil, err
			}
			return mcp.NewToolResultText(string(b)), nil
		})
	s.AddTool(mcp.NewToolWithRawSchema("profile", "a user's profile by id", json.RawMessage(ProfileSchema)),
		func(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("profile of " + r.GetString("id", "?")), nil
		})
	s.AddTool(mcp.NewToolWithRawSchema("pick", "picks a size", json.RawMessage(PickSchema)),
		func(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			v := r.GetArguments()["size"]
			return mcp.NewToolResultText(fmt.Sprintf("size=%v (%T)", v, v)), nil
		})
	s.AddTool(mcp.NewTool("image", mcp.WithDescription("returns a tiny image")),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{
				mcp.NewTextContent("tiny image"),
				mcp.NewImageContent(base64.StdEncoding.EncodeToString(Image), "image/png"),
			}}, nil
		})
	s.AddTool(mcp.NewTool("fail", mcp.WithDescription("always fails"), mcp.WithString("reason")),
		func(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultError("failed: " + r.GetString("reason", "no reason")), nil
		})
	s.AddTool(mcp.NewToolWithRawSchema("loose", "a schema with a remote reference", json.RawMessage(LooseSchema)),
		func(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			b, err := json.Marshal(r.GetArguments())
			if err != nil {
				return nil, err
			}
			return mcp.NewToolResultText(string(b)), nil
		})
}
