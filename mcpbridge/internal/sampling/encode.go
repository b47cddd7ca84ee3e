package sampling

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	api "github.com/mcpgenai/bridge/mcpbridge/sampling"
)

// wireResult is a CreateMessageResult as it travels.
type wireResult struct {
	Role       string `json:"role"`
	Content    any    `json:"content"`
	Model      string `json:"model"`
	StopReason string `json:"stopReason,omitempty"`
}

// Encode checks res against req and returns it as a CreateMessageResult:
// the content as one block when there is one (what servers older than
// sampling with tools expect), as a list otherwise. A tool_use must name
// one of req's tools; without tools only text, image and audio are
// allowed.
func Encode(req *api.Request, res *api.Result) (json.RawMessage, error) {
	if res == nil || len(res.Content) == 0 {
		return nil, errors.New("the model gave no answer")
	}
	if res.Model == "" {
		return nil, errors.New("the answer names no model")
	}
	blocks := make([]wireContent, 0, len(res.Content))
	for i, c := range res.Content {
		w, err := encodeBlock(req, c)
		if err != nil {
			return nil, fmt.Errorf("answer content %d: %w", i, err)
		}
		blocks = append(blocks, w)
	}
	out := wireResult{Role: api.RoleAssistant, Model: res.Model, StopReason: res.StopReason, Content: blocks}
	if len(blocks) == 1 {
		out.Content = blocks[0]
	}
	return json.Marshal(out)
}

func encodeBlock(req *api.Request, c api.Content) (wireContent, error) {
	switch c.Type {
	case api.TypeText:
		t := c.Text
		return wireContent{Type: api.TypeText, Text: &t}, nil
	case api.TypeImage, api.TypeAudio:
		if c.MIMEType == "" {
			return wireContent{}, fmt.Errorf("%s without a MIME type", c.Type)
		}
		d := base64.StdEncoding.EncodeToString(c.Data)
		return wireContent{Type: c.Type, Data: &d, MIMEType: c.MIMEType}, nil
	case api.TypeToolUse:
		if !slices.ContainsFunc(req.Tools, func(t api.Tool) bool { return t.Name == c.Name }) {
			return wireContent{}, fmt.Errorf("tool_use of %q, which is not among the request's tools", c.Name)
		}
		if c.ID == "" {
			return wireContent{}, errors.New("tool_use without an id")
		}
		in := c.Input
		if in == nil {
			in = map[string]any{}
		}
		b, err := json.Marshal(in)
		if err != nil {
			return wireContent{}, fmt.Errorf("tool_use input: %w", err)
		}
		w := wireContent{Type: api.TypeToolUse, ID: c.ID, Name: c.Name, Input: b}
		if len(c.Signature) > 0 {
			w.Meta = map[string]any{SignatureMeta: base64.StdEncoding.EncodeToString(c.Signature)}
		}
		return w, nil
	}
	return wireContent{}, fmt.Errorf("content type %q cannot be an answer", c.Type)
}

// decodeBase64 decodes standard base64, padded or not, ignoring line
// breaks, as servers send it.
func decodeBase64(s string) ([]byte, error) {
	s = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, s)
	return base64.StdEncoding.WithPadding(base64.NoPadding).DecodeString(strings.TrimRight(s, "="))
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
