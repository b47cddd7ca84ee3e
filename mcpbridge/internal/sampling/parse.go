package sampling

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"

	api "github.com/mcpgenai/bridge/mcpbridge/sampling"
)

// wireParams is sampling/createMessage's params as they travel.
type wireParams struct {
	Messages         []wireMessage   `json:"messages"`
	ModelPreferences *wirePrefs      `json:"modelPreferences"`
	SystemPrompt     string          `json:"systemPrompt"`
	IncludeContext   string          `json:"includeContext"`
	Temperature      *float64        `json:"temperature"`
	MaxTokens        *int64          `json:"maxTokens"`
	StopSequences    []string        `json:"stopSequences"`
	Tools            []wireTool      `json:"tools"`
	ToolChoice       *wireChoice     `json:"toolChoice"`
	Task             json.RawMessage `json:"task"`
}

type wireMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type wirePrefs struct {
	Hints                []struct{ Name string } `json:"hints"`
	CostPriority         *float64                `json:"costPriority"`
	SpeedPriority        *float64                `json:"speedPriority"`
	IntelligencePriority *float64                `json:"intelligencePriority"`
}

type wireTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

type wireChoice struct {
	Mode string `json:"mode"`
}

// wireContent is one content block as it travels, in either direction.
type wireContent struct {
	Type              string          `json:"type"`
	Text              *string         `json:"text,omitempty"`
	Data              *string         `json:"data,omitempty"`
	MIMEType          string          `json:"mimeType,omitempty"`
	ID                string          `json:"id,omitempty"`
	Name              string          `json:"name,omitempty"`
	Input             json.RawMessage `json:"input,omitempty"`
	ToolUseID         string          `json:"toolUseId,omitempty"`
	Content           json.RawMessage `json:"content,omitempty"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`
	URI               string          `json:"uri,omitempty"`
	Resource          *wireResource   `json:"resource,omitempty"`
	Meta              map[string]any  `json:"_meta,omitempty"`
}

type wireResource struct {
	URI      string  `json:"uri"`
	MIMEType string  `json:"mimeType"`
	Text     *string `json:"text"`
	Blob     *string `json:"blob"`
}

// ErrInvalid marks a request that breaks the protocol's rules.
var ErrInvalid = errors.New("invalid sampling request")

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}

// Parse decodes and checks the params of a sampling/createMessage request.
// It reports whether the request asks to run as a task. Every error wraps
// ErrInvalid. Parse never retains raw.
func Parse(raw json.RawMessage) (*api.Request, bool, error) {
	var p wireParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, false, invalid("%v", err)
	}
	task := len(p.Task) > 0 && !bytes.Equal(bytes.TrimSpace(p.Task), []byte("null"))
	r := &api.Request{SystemPrompt: p.SystemPrompt, IncludeContext: p.IncludeContext, StopSequences: p.StopSequences}
	if len(p.Messages) == 0 {
		return nil, task, invalid("no messages")
	}
	if p.MaxTokens == nil {
		return nil, task, invalid("maxTokens is missing")
	}
	if *p.MaxTokens < 1 {
		return nil, task, invalid("maxTokens %d is not positive", *p.MaxTokens)
	}
	r.MaxTokens = int(min(*p.MaxTokens, math.MaxInt32))
	if t := p.Temperature; t != nil {
		if math.IsNaN(*t) || *t < 0 {
			return nil, task, invalid("temperature %v is negative", *t)
		}
		v := *t
		r.Temperature = &v
	}
	switch p.IncludeContext {
	case "", "none", "thisServer", "allServers":
	default:
		return nil, task, invalid("unknown includeContext %q", p.IncludeContext)
	}
	if mp := p.ModelPreferences; mp != nil {
		for _, h := range mp.Hints {
			if h.Name != "" {
				r.Preferences.Hints = append(r.Preferences.Hints, h.Name)
			}
		}
		for _, pr := range []struct {
			name string
			in   *float64
			out  **float64
		}{{"costPriority", mp.CostPriority, &r.Preferences.Cost}, {"speedPriority", mp.SpeedPriority, &r.Preferences.Speed}, {"intelligencePriority", mp.IntelligencePriority, &r.Preferences.Intelligence}} {
			if pr.in == nil {
				continue
			}
			if !(*pr.in >= 0 && *pr.in <= 1) {
				return nil, task, invalid("%s %v is not between 0 and 1", pr.name, *pr.in)
			}
			v := *pr.in
			*pr.out = &v
		}
	}
	seen := map[string]bool{}
	for i, t := range p.Tools {
		if t.Name == "" {
			return nil, task, invalid("tool %d has no name", i)
		}
		if seen[t.Name] {
			return nil, task, invalid("tool %q is listed twice", t.Name)
		}
		seen[t.Name] = true
		r.Tools = append(r.Tools, api.Tool{Name: t.Name, Description: t.Description, InputSchema: bytes.Clone(t.InputSchema)})
	}
	r.ToolChoice = api.ChoiceAuto
	if p.ToolChoice != nil {
		switch p.ToolChoice.Mode {
		case "", api.ChoiceAuto:
		case api.ChoiceRequired, api.ChoiceNone:
			r.ToolChoice = p.ToolChoice.Mode
		default:
			return nil, task, invalid("unknown toolChoice mode %q", p.ToolChoice.Mode)
		}
	}
	if r.ToolChoice == api.ChoiceRequired && len(r.Tools) == 0 {
		return nil, task, invalid("toolChoice required without tools")
	}
	for i, m := range p.Messages {
		if m.Role != api.RoleUser && m.Role != api.RoleAssistant {
			return nil, task, invalid("message %d: unknown role %q", i, m.Role)
		}
		blocks, err := decodeBlocks(m.Content, true)
		if err != nil {
			return nil, task, invalid("message %d: %v", i, err)
		}
		if len(blocks) == 0 {
			return nil, task, invalid("message %d has no content", i)
		}
		r.Messages = append(r.Messages, api.Message{Role: m.Role, Content: blocks})
	}
	if err := checkToolTurns(r.Messages, seen); err != nil {
		return nil, task, err
	}
	return r, task, nil
}

// decodeBlocks decodes one content block or a list of them; top is false
// inside a tool_result, where tool blocks may not nest.
func decodeBlocks(raw json.RawMessage, top bool) ([]api.Content, error) {
	raw = bytes.TrimSpace(raw)
	var list []wireContent
	switch {
	case len(raw) == 0 || bytes.Equal(raw, []byte("null")):
		return nil, nil
	case raw[0] == '[':
		if err := json.Unmarshal(raw, &list); err != nil {
			return nil, err
		}
	default:
		var one wireContent
		if err := json.Unmarshal(raw, &one); err != nil {
			return nil, err
		}
		list = []wireContent{one}
	}
	out := make([]api.Content, 0, len(list))
	for j, w := range list {
		c, err := decodeBlock(w, top)
		if err != nil {
			return nil, fmt.Errorf("content %d: %w", j, err)
		}
		out = append(out, c)
	}
	return out, nil
}

func decodeBlock(w wireContent, top bool) (api.Content, error) {
	switch w.Type {
	case api.TypeText:
		if w.Text == nil {
			return api.Content{}, errors.New("text block without text")
		}
		return api.Content{Type: api.TypeText, Text: *w.Text}, nil
	case api.TypeImage, api.TypeAudio:
		if w.Data == nil || w.MIMEType == "" {
			return api.Content{}, fmt.Errorf("%s block without data or mimeType", w.Type)
		}
		data, err := decodeBase64(*w.Data)
		if err != nil {
			return api.Content{}, fmt.Errorf("%s data: %w", w.Type, err)
		}
		return api.Content{Type: w.Type, Data: data, MIMEType: w.MIMEType}, nil
	case "resource_link":
		if top {
			break
		}
		return api.Content{Type: api.TypeText, Text: fmt.Sprintf("[resource %s]", w.URI)}, nil
	case "resource":
		if top || w.Resource == nil {
			break
		}
		res := w.Resource
		switch {
		case res.Text != nil:
			return api.Content{Type: api.TypeText, Text: *res.Text}, nil
		case res.Blob != nil && res.MIMEType != "":
			data, err := decodeBase64(*res.Blob)
			if err != nil {
				return api.Content{}, fmt.Errorf("resource blob: %w", err)
			}
			return api.Content{Type: api.TypeImage, Data: data, MIMEType: res.MIMEType}, nil
		}
		return api.Content{Type: api.TypeText, Text: fmt.Sprintf("[resource %s]", res.URI)}, nil
	case api.TypeToolUse:
		if !top {
			break
		}
		if w.ID == "" || w.Name == "" {
			return api.Content{}, errors.New("tool_use block without id or name")
		}
		in := map[string]any{}
		if len(w.Input) > 0 && !bytes.Equal(bytes.TrimSpace(w.Input), []byte("null")) {
			d := json.NewDecoder(bytes.NewReader(w.Input))
			d.UseNumber()
			if err := d.Decode(&in); err != nil {
				return api.Content{}, fmt.Errorf("tool_use input: %w", err)
			}
		}
		var sig []byte
		if s, ok := w.Meta[SignatureMeta].(string); ok {
			sig, _ = decodeBase64(s) // a mangled signature is as good as none
		}
		return api.Content{Type: api.TypeToolUse, ID: w.ID, Name: w.Name, Input: in, Signature: sig}, nil
	case api.TypeToolResult:
		if !top {
			break
		}
		if w.ToolUseID == "" {
			return api.Content{}, errors.New("tool_result block without toolUseId")
		}
		inner, err := decodeBlocks(w.Content, false)
		if err != nil {
			return api.Content{}, fmt.Errorf("tool_result: %w", err)
		}
		var sc json.RawMessage
		if len(w.StructuredContent) > 0 && !bytes.Equal(bytes.TrimSpace(w.StructuredContent), []byte("null")) {
			sc = bytes.Clone(w.StructuredContent)
		}
		return api.Content{Type: api.TypeToolResult, ID: w.ToolUseID, Content: inner, Structured: sc, IsError: w.IsError}, nil
	}
	return api.Content{}, fmt.Errorf("content type %q is not allowed here", w.Type)
}

// checkToolTurns enforces the rules of sampling with tools: tool_use only
// from the assistant, naming a listed tool, with unique ids; tool_result
// only from the user, alone in its message, each answering a tool_use of
// the message before; and every tool_use answered, unless it is in the
// last message.
func checkToolTurns(msgs []api.Message, tools map[string]bool) error {
	ids := map[string]bool{}
	var open map[string]bool // tool_use ids of the previous message
	for i, m := range msgs {
		var uses map[string]bool
		results := 0
		for _, c := range m.Content {
			switch c.Type {
			case api.TypeToolUse:
				if m.Role != api.RoleAssistant {
					return invalid("message %d: tool_use in a %s message", i, m.Role)
				}
				if !tools[c.Name] {
					return invalid("message %d: tool_use of %q, which is not among the request's tools", i, c.Name)
				}
				if ids[c.ID] {
					return invalid("message %d: tool_use id %q used twice", i, c.ID)
				}
				ids[c.ID] = true
				if uses == nil {
					uses = map[string]bool{}
				}
				uses[c.ID] = true
			case api.TypeToolResult:
				if m.Role != api.RoleUser {
					return invalid("message %d: tool_result in a %s message", i, m.Role)
				}
				if !open[c.ID] {
					return invalid("message %d: tool_result for %q, which the message before did not ask for", i, c.ID)
				}
				delete(open, c.ID)
				results++
			}
		}
		if results > 0 && results != len(m.Content) {
			return invalid("message %d mixes tool_result with other content", i)
		}
		if len(open) > 0 {
			return invalid("message %d does not answer tool_use %q", i, strings.Join(sortedKeys(open), ", "))
		}
		open = uses
	}
	return nil
}
