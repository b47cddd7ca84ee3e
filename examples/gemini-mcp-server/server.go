package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

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

// The tools' input schemas, byte for byte as the original documents write
// them (their Korean descriptions included), so that nothing is reordered
// or lost; served in English unless -descriptions original asks for these.
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

// wording chooses the language of the tools' descriptions.
type wording int

const (
	// english describes the tools in English (the default).
	english wording = iota
	// original keeps the original documents' Korean descriptions, byte for
	// byte.
	original
)

// toEnglish turns each Korean description of the tools into English,
// leaving everything else of a schema as it is.
var toEnglish = strings.NewReplacer(
	"새로운 Gemini 세션을 시작합니다.", "Start a new Gemini session.",
	"기존 Gemini 세션을 이어서 진행합니다.", "Continue an existing Gemini session.",
	"세션을 시작할 프롬프트", "The prompt that starts the session",
	"대화를 이어갈 프롬프트", "The prompt that continues the conversation",
	"이어갈 세션 ID. 미제공 시 최신 세션 사용", "The ID of the session to continue; without it, your latest session",
	"이번 턴에 사용할 모델", "The model to use for this turn",
	"어시스턴트의 동작을 설정하는 시스템 프롬프트", "A system prompt that sets the assistant's behaviour",
	"gemini CLI 실행 시 작업 디렉토리", "The working directory of the Gemini CLI",
)

// in returns text in w's language.
func (w wording) in(text string) string {
	if w == original {
		return text
	}
	return toEnglish.Replace(text)
}

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
func newServer(b backend, w wording) *server.MCPServer {
	clients := newClientSessions()
	s := server.NewMCPServer(serverName, serverVersion,
		server.WithToolCapabilities(false),
		server.WithRecovery(),
	)
	s.AddTool(mcp.NewToolWithRawSchema("chat", w.in("새로운 Gemini 세션을 시작합니다."), json.RawMessage(w.in(chatSchema))),
		toolHandler(b, clients, false))
	s.AddTool(mcp.NewToolWithRawSchema("chat-reply", w.in("기존 Gemini 세션을 이어서 진행합니다."), json.RawMessage(w.in(chatReplySchema))),
		toolHandler(b, clients, true))
	return s
}

// toolHandler returns the handler of chat (reply false) or chat-reply
// (reply true). Every failure, bad arguments included, is a result with
// isError set and a text starting with errorPrefix, never a protocol error.
// Sessions are each client's own (see clientSessions).
func toolHandler(b backend, clients *clientSessions, reply bool) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		t, err := parseTurn(req.GetRawArguments(), reply)
		if err != nil {
			return mcp.NewToolResultError(errorPrefix + err.Error()), nil
		}
		client := clientOf(ctx)
		var a answer
		if reply {
			if t.SessionID, err = clients.resolve(client, t.SessionID); err == nil {
				a, err = b.Reply(ctx, t)
			}
		} else {
			a, err = b.Chat(ctx, t)
		}
		if err != nil {
			return mcp.NewToolResultError(errorPrefix + err.Error()), nil
		}
		clients.used(client, a.SessionID)
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
