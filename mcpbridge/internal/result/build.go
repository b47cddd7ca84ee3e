package result

import "encoding/json"

// FromValue writes v, the value a function of the host returned, as the
// raw JSON of an MCP tools/call result, so that it goes through [Convert]
// as a server's result would: a string as one text block, nil as no
// content, anything else as its JSON text in one text block with the same
// JSON as structuredContent. The error is [json.Marshal]'s for v.
func FromValue(v any) (json.RawMessage, error) {
	type block struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	type result struct {
		Content    []block         `json:"content"`
		Structured json.RawMessage `json:"structuredContent,omitempty"`
	}
	switch v := v.(type) {
	case nil:
		return json.Marshal(result{Content: []block{}})
	case string:
		return json.Marshal(result{Content: []block{{"text", v}}})
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return json.Marshal(result{Content: []block{{"text", string(data)}}, Structured: data})
}

// ToolError returns the raw JSON of an MCP tools/call result that reports
// a failure to the model: isError, with msg as its one text block.
func ToolError(msg string) json.RawMessage {
	b, _ := json.Marshal(map[string]any{"isError": true, "content": []any{map[string]any{"type": "text", "text": msg}}})
	return b
}

// AppendText returns raw, the JSON of a tools/call result, with one more
// text block at the end of its content; raw itself is not modified. A
// result that is not an object, or whose content is not an array, is
// returned as it is. The members of the object come back in sorted order.
func AppendText(raw json.RawMessage, text string) json.RawMessage {
	var res map[string]json.RawMessage
	if json.Unmarshal(raw, &res) != nil {
		return raw
	}
	var content []json.RawMessage
	if c, ok := res["content"]; ok && json.Unmarshal(c, &content) != nil {
		return raw
	}
	block, err := json.Marshal(map[string]string{"type": "text", "text": text})
	if err != nil {
		return raw
	}
	content = append(content, block)
	if res["content"], err = json.Marshal(content); err != nil {
		return raw
	}
	out, err := json.Marshal(res)
	if err != nil {
		return raw
	}
	return out
}
