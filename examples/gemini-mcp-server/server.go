package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// The server's identity, as seed 002 names it.
const (
	serverName    = "gemini-mcp-server"
	serverVersion = "1.0.0"
)

// errorPrefix starts the text of every error result.
const errorPrefix = "Error executing gemini: "

// The tools' input schemas, byte for byte as seed 002 writes them (the
// Korean descriptions included), so that nothing is reordered or lost.
const (
	chatSchema = `{
  "type": "object",
  "properties": {
    "prompt": {
      "type": "string",
      "description": "세션을 시작할 프롬프트"
    },
    "model": {
      "type": "string",
      "description": "Optional: The model to use (e.g., 'gemini-3-pro', 'gemini-3-flash')."
    },
    "systemPrompt": {
      "type": "string",
      "description": "어시스턴트의 동작을 설정하는 시스템 프롬프트"
    },
    "cwd": {
      "type": "string",
      "description": "gemini CLI 실행 시 작업 디렉토리"
    }
  },
  "required": ["prompt"]
}`

	chatReplySchema = `{
  "type": "object",
  "properties": {
    "prompt": {
      "type": "string",
      "description": "대화를 이어갈 프롬프트"
    },
    "sessionId": {
      "type": "string",
      "description": "이어갈 세션 ID. 미제공 시 최신 세션 사용"
    },
    "model": {
      "type": "string",
      "description": "이번 턴에 사용할 모델"
    },
    "systemPrompt": {
      "type": "string",
      "description": "어시스턴트의 동작을 설정하는 시스템 프롬프트"
    },
    "cwd": {
      "type": "string",
      "description": "gemini CLI 실행 시 작업 디렉토리"
    }
  },
  "required": ["prompt"]
}`
)

// turn is one request to a backend, from the arguments of a tool call.
type turn struct {
	// Prompt is the user's message; never empty.
	Prompt string
	// SessionID names the session chat-reply continues; "" means the
	// latest one. Always "" for chat.
	SessionID string
	// Model is the model asked for; "" means the backend's default (for
	// a reply: the model the session used so far).
	Model string
	// SystemPrompt, if not "", sets the assistant's behaviour.
	SystemPrompt string
	// Cwd, if not "", is the working directory of the Gemini CLI.
	Cwd string
}

// answer is a backend's reply to a turn.
type answer struct {
	// Text is the model's answer.
	Text string
	// SessionID identifies the session for later chat-reply calls; ""
	// when the backend could not learn it.
	SessionID string
}

// backend answers turns. Implementations are safe for concurrent use and
// stop work when ctx is cancelled.
type backend interface {
	// Chat starts a new session with t.
	Chat(ctx context.Context, t turn) (answer, error)
	// Reply continues the session t.SessionID, or the latest session when
	// it is "".
	Reply(ctx context.Context, t turn) (answer, error)
}

// newServer returns the MCP server offering the chat and chat-reply tools
// of seed 002, answered by b.
func newServer(b backend) *server.MCPServer {
	s := server.NewMCPServer(serverName, serverVersion,
		server.WithToolCapabilities(false),
		server.WithRecovery(),
	)
	s.AddTool(mcp.NewToolWithRawSchema("chat", "새로운 Gemini 세션을 시작합니다.", json.RawMessage(chatSchema)),
		toolHandler(b, false))
	s.AddTool(mcp.NewToolWithRawSchema("chat-reply", "기존 Gemini 세션을 이어서 진행합니다.", json.RawMessage(chatReplySchema)),
		toolHandler(b, true))
	return s
}

// toolHandler returns the handler of chat (reply false) or chat-reply
// (reply true). Every failure, bad arguments included, is a result with
// isError set and a text starting with errorPrefix, never a protocol error.
func toolHandler(b backend, reply bool) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		t, err := parseTurn(req.GetRawArguments(), reply)
		if err != nil {
			return mcp.NewToolResultError(errorPrefix + err.Error()), nil
		}
		var a answer
		if reply {
			a, err = b.Reply(ctx, t)
		} else {
			a, err = b.Chat(ctx, t)
		}
		if err != nil {
			return mcp.NewToolResultError(errorPrefix + err.Error()), nil
		}
		res := mcp.NewToolResultText(a.Text)
		if a.SessionID != "" {
			// _meta.sessionId is the seed's place for it; structuredContent
			// repeats it where a model can read it (clients such as
			// mcpbridge pass structured content to the model, never _meta),
			// so that a model can continue this session by its ID.
			res.Meta = &mcp.Meta{AdditionalFields: map[string]any{"sessionId": a.SessionID}}
			res.StructuredContent = map[string]any{"sessionId": a.SessionID}
		}
		return res, nil
	}
}

// parseTurn reads a tool call's arguments: a JSON object whose known keys
// hold strings. Unknown keys are ignored; sessionId is read only for
// chat-reply.
func parseTurn(raw any, reply bool) (turn, error) {
	var args map[string]any
	switch v := raw.(type) {
	case nil:
	case map[string]any:
		args = v
	case json.RawMessage:
		if err := json.Unmarshal(v, &args); err != nil {
			return turn{}, fmt.Errorf("arguments are not a JSON object: %w", err)
		}
	default:
		return turn{}, fmt.Errorf("arguments are not a JSON object (got %T)", raw)
	}
	var t turn
	fields := []struct {
		name string
		dst  *string
	}{
		{"prompt", &t.Prompt},
		{"model", &t.Model},
		{"systemPrompt", &t.SystemPrompt},
		{"cwd", &t.Cwd},
	}
	if reply {
		fields = append(fields, struct {
			name string
			dst  *string
		}{"sessionId", &t.SessionID})
	}
	for _, f := range fields {
		v, ok := args[f.name]
		if !ok || v == nil {
			continue
		}
		s, ok := v.(string)
		if !ok {
			return turn{}, fmt.Errorf("argument %q must be a string, got %s", f.name, jsonType(v))
		}
		*f.dst = s
	}
	if t.Prompt == "" {
		return turn{}, fmt.Errorf("argument %q is required", "prompt")
	}
	return t, nil
}

// jsonType names the JSON type of a decoded value.
func jsonType(v any) string {
	switch v.(type) {
	case bool:
		return "a boolean"
	case float64, json.Number:
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	default:
		return fmt.Sprintf("%T", v)
	}
}
