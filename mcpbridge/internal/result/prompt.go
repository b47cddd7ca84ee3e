package result

import (
	"encoding/json"
	"fmt"

	"google.golang.org/genai"
)

// PromptContents converts raw, the JSON of an MCP prompts/get result, into
// one genai content per message, in order: role "user" stays "user",
// "assistant" becomes "model", and each message's content block becomes
// one part as [Block] makes it, whole: a prompt is text the person chose
// to send, bounded only by the size of the message it came in. A message
// whose role is neither is
// an error, and so is raw that does not decode. A result without messages
// gives an empty, non-nil slice.
func PromptContents(raw json.RawMessage) ([]*genai.Content, error) {
	var res struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("decoding result: %w", err)
	}
	out := make([]*genai.Content, 0, len(res.Messages))
	for i, m := range res.Messages {
		var role genai.Role
		switch m.Role {
		case "user":
			role = genai.RoleUser
		case "assistant":
			role = genai.RoleModel
		default:
			return nil, fmt.Errorf("messages[%d]: unknown role %q", i, m.Role)
		}
		part, _ := Block(m.Content, -1)
		out = append(out, &genai.Content{Role: string(role), Parts: []*genai.Part{part}})
	}
	return out, nil
}
