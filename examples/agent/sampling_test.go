package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/geminitest"
)

// samplerEnv makes the test binary the MCP server "asker" (see init).
const samplerEnv = "AGENT_TEST_SAMPLING_SERVER"

func init() {
	if os.Getenv(samplerEnv) != "1" {
		return
	}
	if err := server.ServeStdio(askerServer()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// askerServer's tool "ask_model" asks the client's model the question and
// returns "model says: <answer>" or the error.
func askerServer() *server.MCPServer {
	s := server.NewMCPServer("asker", "1.0.0", server.WithToolCapabilities(false))
	s.AddTool(mcp.NewTool("ask_model", mcp.WithDescription("Ask the client's model."), mcp.WithString("question", mcp.Required())),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if res := server.SamplingResponse(req.Params.InputResponses, "q"); res != nil {
				b, _ := json.Marshal(res.Content)
				return mcp.NewToolResultText("model says: " + string(b)), nil
			}
			return server.NewInputRequestBuilder("").Sample("q", mcp.CreateMessageParams{
				Messages:     []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.TextContent{Type: "text", Text: req.GetString("question", "")}}},
				SystemPrompt: "Answer in one word.",
				MaxTokens:    20,
			}).ToolResult(), nil
		})
	return s
}

// askerSettings writes a settings file configuring the asker server.
func askerSettings(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd, _ := json.Marshal(exe)
	path := t.TempDir() + "/settings.json"
	body := `{"mcpServers": {"asker": {"command": ` + string(cmd) + `, "env": {"` + samplerEnv + `": "1"}, "trust": true, "timeout": 30000}}}`
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestSampling: the server's sampling request is shown to the user, goes
// to the chat's model once approved, and the answer, approved too, reaches
// the server; refused, the server reads the refusal.
func TestSampling(t *testing.T) {
	for _, tc := range []struct {
		name, stdin, want string
	}{
		{"approved", "maybe\ny\ny\n", `"text":"Blue."`},
		{"refused", "n\n", "User rejected sampling request"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			script := []geminitest.Turn{
				geminitest.Calls(geminitest.Call{Name: "ask_model", Args: map[string]any{"question": "Colour of the sky?"}}),
			}
			if tc.name == "approved" {
				script = append(script, func(req *geminitest.Request) geminitest.Response {
					if si := req.Config.SystemInstruction; si == nil || si.Parts[0].Text != "Answer in one word." {
						t.Errorf("the sampling request's system instruction = %+v", si)
					}
					return geminitest.Response{Parts: textParts("Blue.")}
				})
			}
			script = append(script, func(req *geminitest.Request) geminitest.Response {
				frs := req.FunctionResponses()
				if len(frs) != 1 || !strings.Contains(fmt.Sprint(frs[0].Response), tc.want) {
					t.Errorf("function responses = %v, want %q", frs[0].Response, tc.want)
				}
				return geminitest.Response{Parts: textParts("Done.")}
			})
			srv := fakeGemini(t, script...)
			code, out, errOut := session{stdin: tc.stdin, terminal: true}.run(t, "-config", askerSettings(t), "-prompt", "Ask the model.")
			if code != 0 || out != "Done.\n" {
				t.Fatalf("agent exit %d, stdout %q, stderr:\n%s", code, out, errOut)
			}
			for _, want := range []string{
				`Server "asker" asks the model for a completion`,
				"Model:       gemini-2.5-flash, at most 20 tokens",
				"System:      Answer in one word.",
				"Colour of the sky?",
				"Send this to the model? [y]es / [n]o: ",
			} {
				if !strings.Contains(errOut, want) {
					t.Errorf("stderr lacks %q:\n%s", want, errOut)
				}
			}
			if tc.name == "approved" && (!strings.Contains(errOut, "Give this answer to the server? [y]es / [n]o: ") || !strings.Contains(errOut, `"maybe" is not an answer`)) {
				t.Errorf("the answer was not shown:\n%s", errOut)
			}
			if srv.Remaining() != 0 {
				t.Errorf("%d scripted turns left", srv.Remaining())
			}
		})
	}
}

func textParts(s string) []*genai.Part { return []*genai.Part{{Text: s}} }
