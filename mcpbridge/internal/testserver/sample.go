package testserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// SampleToolSchema is the input schema of the tool the "sample" tool
// offers the model when asked to: a name Gemini does not accept
// ("weather/get") and an integer enum Gemini cannot declare, so both must
// be restored.
const SampleToolSchema = `{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer","enum":[1,3,7]}},"required":["city"]}`

// addSampleTools adds tools that ask the client's model for a completion,
// written once for both eras (mcp-go sends sampling/createMessage to a
// client older than 2026-07-28):
//   - sample: {"prompt", "hint", "tools", "pad", "max_tokens"} asks with the
//     prompt (padded with pad bytes of "x"), system prompt "You are a
//     test.", temperature 0.3, stop sequence "END", the model hint and
//     intelligencePriority 0.9; with tools it offers "weather/get"
//     (SampleToolSchema), and when the answer is a tool_use it runs the
//     tool itself ("sunny in <city> for <days> days (<Go type of days>)")
//     and asks again with the tool_use and its tool_result. It returns
//     "sampled by <model> (<stopReason>): <answer JSON>", prefixed by
//     "tool_use <name> <input JSON> | " when a tool ran.
//   - sample_flood: {"n"} sends n requests one after the other (before
//     2026-07-28 only) and returns "ok=<k> failed=<n-k> last error: ...".
func addSampleTools(s *server.MCPServer) {
	s.AddTool(mcp.NewTool("sample", mcp.WithDescription("asks the client's model"),
		mcp.WithString("prompt"), mcp.WithString("hint"), mcp.WithBoolean("tools"),
		mcp.WithNumber("pad"), mcp.WithNumber("max_tokens")),
		func(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			p := sampleParams(r)
			in := r.Params.InputResponses
			if res := server.SamplingResponse(in, "s2"); res != nil {
				return mcp.NewToolResultText(r.Params.RequestState + " | " + describeSample(res)), nil
			}
			res := server.SamplingResponse(in, "s1")
			if res == nil {
				return server.NewInputRequestBuilder("").Sample("s1", p).ToolResult(), nil
			}
			use := toolUseOf(res)
			if use == nil || !r.GetBool("tools", false) {
				return mcp.NewToolResultText(describeSample(res)), nil
			}
			args, _ := json.Marshal(use["input"])
			var input struct {
				City string `json:"city"`
				Days any    `json:"days"`
			}
			_ = json.Unmarshal(args, &input)
			var days any
			if use["input"] != nil {
				days, _ = use["input"].(map[string]any)["days"]
			}
			result := fmt.Sprintf("sunny in %s for %v days (%T)", input.City, input.Days, days)
			p.Messages = append(p.Messages,
				mcp.SamplingMessage{Role: mcp.RoleAssistant, Content: []any{use}},
				mcp.SamplingMessage{Role: mcp.RoleUser, Content: []any{map[string]any{
					"type": "tool_result", "toolUseId": use["id"], "content": []any{map[string]any{"type": "text", "text": result}}}}})
			state := fmt.Sprintf("tool_use %v %s", use["name"], args)
			return server.NewInputRequestBuilder(state).Sample("s2", p).ToolResult(), nil
		})
	s.AddTool(mcp.NewTool("sample_flood", mcp.WithDescription("sends n sampling requests"), mcp.WithNumber("n")),
		func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			n := r.GetInt("n", 20)
			ok, last := 0, ""
			for i := range n {
				//lint:ignore SA1019 a flood needs the server's own requests, which only the deprecated call sends.
				_, err := server.ServerFromContext(ctx).RequestSampling(ctx, mcp.CreateMessageRequest{CreateMessageParams: mcp.CreateMessageParams{
					Messages:  []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.TextContent{Type: "text", Text: fmt.Sprintf("flood %d", i)}}},
					MaxTokens: 10,
				}})
				if err != nil {
					last = err.Error()
					continue
				}
				ok++
			}
			return mcp.NewToolResultText(fmt.Sprintf("ok=%d failed=%d last error: %s", ok, n-ok, last)), nil
		})
}

// sampleParams builds the first request of the sample tool.
func sampleParams(r mcp.CallToolRequest) mcp.CreateMessageParams {
	text := r.GetString("prompt", "hello") + strings.Repeat("x", r.GetInt("pad", 0))
	intel := 0.9
	p := mcp.CreateMessageParams{
		Messages:         []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.TextContent{Type: "text", Text: text}}},
		SystemPrompt:     "You are a test.",
		MaxTokens:        r.GetInt("max_tokens", 100),
		Temperature:      0.3,
		StopSequences:    []string{"END"},
		ModelPreferences: &mcp.ModelPreferences{IntelligencePriority: intel},
	}
	if h := r.GetString("hint", ""); h != "" {
		p.ModelPreferences.Hints = []mcp.ModelHint{{Name: h}}
	}
	if r.GetBool("tools", false) {
		p.Tools = []mcp.Tool{{Name: "weather/get", Description: "The weather.", RawInputSchema: json.RawMessage(SampleToolSchema)}}
		p.ToolChoice = &mcp.ToolChoice{Mode: mcp.ToolChoiceModeAuto}
	}
	return p
}

// contentOf returns a result's content blocks as JSON objects.
func contentOf(res *mcp.CreateMessageResult) []map[string]any {
	b, _ := json.Marshal(res.Content)
	var list []map[string]any
	if json.Unmarshal(b, &list) == nil {
		return list
	}
	var one map[string]any
	if json.Unmarshal(b, &one) == nil {
		return []map[string]any{one}
	}
	return nil
}

// toolUseOf returns the first tool_use block of res, or nil.
func toolUseOf(res *mcp.CreateMessageResult) map[string]any {
	for _, c := range contentOf(res) {
		if c["type"] == "tool_use" {
			return c
		}
	}
	return nil
}

func describeSample(res *mcp.CreateMessageResult) string {
	b, _ := json.Marshal(contentOf(res))
	return fmt.Sprintf("sampled by %s (%s): %s", res.Model, res.StopReason, b)
}
