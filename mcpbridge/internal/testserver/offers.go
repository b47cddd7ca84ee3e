package testserver

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// OutputSchema is the output schema of the tools "forecast" (whose
// structured content obeys it) and "misfit" (whose does not).
const OutputSchema = `{"type":"object","properties":{"city":{"type":"string"},"celsius":{"type":"number"}},"required":["city","celsius"],"additionalProperties":false}`

// TiedSchema is the input schema of the "tied" tool: the branches of the
// union "v" take {"n": "1"} equally and restore it differently (1 and
// "1"); both bound "m" from below.
const TiedSchema = `{"type":"object","properties":{"v":{"anyOf":[` +
	`{"type":"object","properties":{"n":{"enum":[1,2]},"m":{"type":"integer","minimum":10}}},` +
	`{"type":"object","properties":{"n":{"enum":["1",5]},"m":{"type":"integer","minimum":10}}}]}}}`

// addOffers adds what a server offers besides plain tools:
//   - prompts "greeting" (argument "name", required; "style", optional)
//     and "plain" (no arguments), whose messages are a user text, a model
//     text and an embedded resource;
//   - the tool "tied" with TiedSchema, which returns its arguments as JSON;
//   - the tool "add_prompt", which adds a prompt named by argument "name"
//     with the optional argument "topic" (the server announces
//     prompts/list_changed, so this sends the notification);
//   - the resource template "test://greet/{name}";
//   - the tool "progress", which sends "steps" progress notifications
//     (progress 1..steps, total steps, message "step N") before answering,
//     when the call carries a progress token, each after "every"
//     milliseconds (default 0; without a token it waits as long in all);
//   - the tools "forecast" and "misfit" with OutputSchema;
//   - the tool "traceparent", which returns the traceparent of its _meta.
func addOffers(s *server.MCPServer) {
	addPrompts(s)
	s.AddTool(mcp.NewToolWithRawSchema("tied", "takes an ambiguous union", json.RawMessage(TiedSchema)),
		func(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			b, err := json.Marshal(r.GetArguments())
			if err != nil {
				return nil, err
			}
			return mcp.NewToolResultText(string(b)), nil
		})
	s.AddTool(mcp.NewTool("add_prompt", mcp.WithString("name", mcp.Required())),
		func(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			n := r.GetString("name", "added")
			s.AddPrompt(mcp.NewPrompt(n, mcp.WithPromptDescription("added at run time"), mcp.WithArgument("topic")),
				func(context.Context, mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
					return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{
						mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent("prompt "+n)),
					}}, nil
				})
			return mcp.NewToolResultText("added " + n), nil
		})
	s.AddResourceTemplate(mcp.NewResourceTemplate("test://greet/{name}", "greet",
		mcp.WithTemplateDescription("a greeting for name"), mcp.WithTemplateMIMEType("text/plain")),
		func(_ context.Context, r mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: r.Params.URI, MIMEType: "text/plain", Text: "greetings from " + r.Params.URI}}, nil
		})
	s.AddTool(mcp.NewTool("progress", mcp.WithDescription("reports progress"), mcp.WithNumber("steps"), mcp.WithNumber("every")),
		func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			steps := int(r.GetFloat("steps", 3))
			var token mcp.ProgressToken
			if r.Params.Meta != nil {
				token = r.Params.Meta.ProgressToken
			}
			every := time.Duration(r.GetFloat("every", 0)) * time.Millisecond
			if token == nil && every > 0 {
				select {
				case <-time.After(time.Duration(steps) * every):
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}
			if token != nil {
				srv := server.ServerFromContext(ctx)
				for i := 1; i <= steps; i++ {
					select {
					case <-time.After(every):
					case <-ctx.Done():
						return nil, ctx.Err()
					}
					err := srv.SendNotificationToClient(ctx, string(mcp.MethodNotificationProgress), map[string]any{
						"progressToken": token, "progress": i, "total": steps, "message": fmt.Sprintf("step %d", i),
					})
					if err != nil {
						return nil, err
					}
				}
				// mcp-go's server writes notifications from a goroutine of
				// their own and the answer from this one: give the
				// notifications time to leave first.
				time.Sleep(100 * time.Millisecond)
			}
			return mcp.NewToolResultText(fmt.Sprintf("done, token sent: %v", token != nil)), nil
		})
	s.AddTool(mcp.NewTool("traceparent", mcp.WithDescription("returns the traceparent of the call's _meta")),
		func(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			tp := ""
			if r.Params.Meta != nil {
				tp, _ = r.Params.Meta.AdditionalFields["traceparent"].(string)
			}
			return mcp.NewToolResultText(tp), nil
		})
	for _, tc := range []struct {
		name string
		out  map[string]any
	}{
		{"forecast", map[string]any{"city": "Oslo", "celsius": 4.5}},
		{"misfit", map[string]any{"city": "Oslo", "celsius": "warm"}},
	} {
		s.AddTool(mcp.NewTool(tc.name, mcp.WithDescription("a forecast"), mcp.WithRawOutputSchema(json.RawMessage(OutputSchema))),
			func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				b, err := json.Marshal(tc.out)
				if err != nil {
					return nil, err
				}
				return mcp.NewToolResultStructured(tc.out, string(b)), nil
			})
	}
}

// addPrompts adds the prompts "greeting" and "plain".
func addPrompts(s *server.MCPServer) {
	s.AddPrompt(mcp.NewPrompt("greeting", mcp.WithPromptDescription("greets someone"),
		mcp.WithArgument("name", mcp.RequiredArgument(), mcp.ArgumentDescription("who to greet")),
		mcp.WithArgument("style", mcp.ArgumentDescription("formal or casual"))),
		func(_ context.Context, r mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			name, style := r.Params.Arguments["name"], r.Params.Arguments["style"]
			if style == "" {
				style = "casual"
			}
			return &mcp.GetPromptResult{Description: "a greeting", Messages: []mcp.PromptMessage{
				mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent(fmt.Sprintf("Greet %s, %s.", name, style))),
				mcp.NewPromptMessage(mcp.RoleAssistant, mcp.NewTextContent("Hello, "+name+"!")),
				mcp.NewPromptMessage(mcp.RoleUser, mcp.NewEmbeddedResource(mcp.TextResourceContents{URI: "test://hello", MIMEType: "text/plain", Text: "hello world"})),
			}}, nil
		})
	s.AddPrompt(mcp.NewPrompt("plain", mcp.WithPromptDescription("no arguments")),
		func(context.Context, mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{
				mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent("plain prompt")),
			}}, nil
		})
}

// NewOffersOnly returns a server that offers no tools at all: only the
// prompts of addPrompts, the resource "test://hello" and the template
// "test://greet/{name}", with instructions "offers only".
func NewOffersOnly() *server.MCPServer {
	s := server.NewMCPServer("offers-only", "1.0.0",
		server.WithPromptCapabilities(true), server.WithResourceCapabilities(false, true), server.WithInstructions("offers only"))
	addPrompts(s)
	s.AddResource(mcp.NewResource("test://hello", "hello", mcp.WithMIMEType("text/plain")),
		func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: "test://hello", MIMEType: "text/plain", Text: "hello world"}}, nil
		})
	s.AddResourceTemplate(mcp.NewResourceTemplate("test://greet/{name}", "greet"),
		func(_ context.Context, r mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: r.Params.URI, MIMEType: "text/plain", Text: "greetings from " + r.Params.URI}}, nil
		})
	return s
}
