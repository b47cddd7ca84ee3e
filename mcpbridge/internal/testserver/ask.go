package testserver

import (
	"context"
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// AskSchema is the requested schema of the "ask" tool's form: one string
// "value".
const AskSchema = `{"type":"object","properties":{"value":{"type":"string"}},"required":["value"]}`

// addAskTools adds tools that ask the user for input during the call,
// written once for both eras (mcp-go turns the request into
// elicitation/create for a client older than 2026-07-28):
//   - ask: {"question"} asks for a form (AskSchema) with the question as
//     message, then returns "got <content JSON>", "declined" or
//     "cancelled";
//   - ask_url: asks the user to visit https://example.com/consent (URL
//     mode, elicitation id "consent-1"), then returns "visited",
//     "declined" or "cancelled".
func addAskTools(s *server.MCPServer) {
	s.AddTool(mcp.NewTool("ask", mcp.WithDescription("asks the user for a value"), mcp.WithString("question")),
		func(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if answer := server.ElicitationResponse(r.Params.InputResponses, "value"); answer != nil {
				switch answer.Action {
				case mcp.ElicitationResponseActionAccept:
					b, err := json.Marshal(answer.Content)
					if err != nil {
						return nil, err
					}
					return mcp.NewToolResultText("got " + string(b)), nil
				default:
					return mcp.NewToolResultText(refusal(answer.Action)), nil
				}
			}
			var schema map[string]any
			if err := json.Unmarshal([]byte(AskSchema), &schema); err != nil {
				return nil, err
			}
			return server.NewInputRequestBuilder("asking").Elicit("value", mcp.ElicitationParams{
				Mode:            mcp.ElicitationModeForm,
				Message:         r.GetString("question", "a value?"),
				RequestedSchema: schema,
			}).ToolResult(), nil
		})
	s.AddTool(mcp.NewTool("ask_url", mcp.WithDescription("asks the user to visit a page")),
		func(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if answer := server.ElicitationResponse(r.Params.InputResponses, "consent"); answer != nil {
				if answer.Action == mcp.ElicitationResponseActionAccept {
					return mcp.NewToolResultText("visited"), nil
				}
				return mcp.NewToolResultText(refusal(answer.Action)), nil
			}
			return server.NewInputRequestBuilder("").Elicit("consent", mcp.ElicitationParams{
				Mode:          mcp.ElicitationModeURL,
				Message:       "please consent",
				URL:           "https://example.com/consent",
				ElicitationID: "consent-1",
			}).ToolResult(), nil
		})
}

// refusal words an answer other than accept: "declined" or "cancelled".
func refusal(a mcp.ElicitationResponseAction) string {
	if a == mcp.ElicitationResponseActionDecline {
		return "declined"
	}
	return "cancelled"
}
