package sampling

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	api "github.com/mcpgenai/bridge/mcpbridge/sampling"
)

func TestParse(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	raw := `{"messages":[
		{"role":"user","content":{"type":"text","text":"hi"}},
		{"role":"assistant","content":[{"type":"tool_use","id":"u1","name":"w","input":{"n":12345678901234567890}}]},
		{"role":"user","content":[{"type":"tool_result","toolUseId":"u1","content":[{"type":"text","text":"out"},{"type":"image","data":"iVBORw0K","mimeType":"image/png"},{"type":"resource_link","uri":"file:///a","name":"a"}],"structuredContent":{"k":1},"isError":true}]},
		{"role":"user","content":[{"type":"audio","data":"AAEC","mimeType":"audio/wav"}]}],
		"systemPrompt":"sys","maxTokens":5,"temperature":0.5,"stopSequences":["X"],"includeContext":"allServers",
		"modelPreferences":{"hints":[{"name":"flash"},{}],"speedPriority":0.2},
		"tools":[{"name":"w","description":"d","inputSchema":{"type":"object"}}],"toolChoice":{"mode":"required"},"task":{"ttl":1000}}`
	req, task, err := Parse(json.RawMessage(raw))
	if err != nil {
		t.Fatalf("Parse() = %v", err)
	}
	if !task {
		t.Error("Parse() task = false, want true")
	}
	want := &api.Request{
		Messages: []api.Message{
			{Role: "user", Content: []api.Content{{Type: "text", Text: "hi"}}},
			{Role: "assistant", Content: []api.Content{{Type: "tool_use", ID: "u1", Name: "w", Input: map[string]any{"n": json.Number("12345678901234567890")}}}},
			{Role: "user", Content: []api.Content{{Type: "tool_result", ID: "u1", IsError: true, Structured: json.RawMessage(`{"k":1}`), Content: []api.Content{
				{Type: "text", Text: "out"}, {Type: "image", Data: []byte("\x89PNG\r\n"), MIMEType: "image/png"}, {Type: "text", Text: "[resource file:///a]"}}}}},
			{Role: "user", Content: []api.Content{{Type: "audio", Data: []byte{0, 1, 2}, MIMEType: "audio/wav"}}},
		},
		SystemPrompt: "sys", MaxTokens: 5, Temperature: f(0.5), StopSequences: []string{"X"}, IncludeContext: "allServers",
		Preferences: api.Preferences{Hints: []string{"flash"}, Speed: f(0.2)},
		Tools:       []api.Tool{{Name: "w", Description: "d", InputSchema: json.RawMessage(`{"type":"object"}`)}},
		ToolChoice:  "required",
	}
	if diff := cmp.Diff(want, req); diff != "" {
		t.Errorf("Parse() (-want +got):\n%s", diff)
	}
}

func TestParseInvalid(t *testing.T) {
	tool := `"tools":[{"name":"w","inputSchema":{"type":"object"}}]`
	use := `{"role":"assistant","content":[{"type":"tool_use","id":"u1","name":"w","input":{}}]}`
	for _, tc := range []struct{ name, raw, want string }{
		{"not json", `{`, "unexpected end"},
		{"no messages", `{"messages":[],"maxTokens":1}`, "no messages"},
		{"no maxTokens", `{"messages":[{"role":"user","content":{"type":"text","text":"a"}}]}`, "maxTokens is missing"},
		{"zero maxTokens", `{"messages":[{"role":"user","content":{"type":"text","text":"a"}}],"maxTokens":0}`, "not positive"},
		{"role", `{"messages":[{"role":"system","content":{"type":"text","text":"a"}}],"maxTokens":1}`, `unknown role "system"`},
		{"empty content", `{"messages":[{"role":"user","content":[]}],"maxTokens":1}`, "has no content"},
		{"bad base64", `{"messages":[{"role":"user","content":{"type":"image","data":"!!","mimeType":"image/png"}}],"maxTokens":1}`, "image data"},
		{"unknown type", `{"messages":[{"role":"user","content":{"type":"video"}}],"maxTokens":1}`, `content type "video" is not allowed`},
		{"priority", `{"messages":[{"role":"user","content":{"type":"text","text":"a"}}],"maxTokens":1,"modelPreferences":{"costPriority":2}}`, "costPriority 2 is not between 0 and 1"},
		{"includeContext", `{"messages":[{"role":"user","content":{"type":"text","text":"a"}}],"maxTokens":1,"includeContext":"everything"}`, "unknown includeContext"},
		{"toolChoice", `{"messages":[{"role":"user","content":{"type":"text","text":"a"}}],"maxTokens":1,` + tool + `,"toolChoice":{"mode":"any"}}`, `unknown toolChoice mode "any"`},
		{"required without tools", `{"messages":[{"role":"user","content":{"type":"text","text":"a"}}],"maxTokens":1,"toolChoice":{"mode":"required"}}`, "required without tools"},
		{"duplicate tool", `{"messages":[{"role":"user","content":{"type":"text","text":"a"}}],"maxTokens":1,"tools":[{"name":"w"},{"name":"w"}]}`, "listed twice"},
		{"tool_use from user", `{"messages":[{"role":"user","content":{"type":"tool_use","id":"u","name":"w","input":{}}}],"maxTokens":1,` + tool + `}`, "tool_use in a user message"},
		{"unknown tool", `{"messages":[{"role":"assistant","content":{"type":"tool_use","id":"u","name":"x","input":{}}}],"maxTokens":1,` + tool + `}`, `"x", which is not among`},
		{"unanswered", `{"messages":[` + use + `,{"role":"user","content":{"type":"text","text":"a"}}],"maxTokens":1,` + tool + `}`, `does not answer tool_use "u1"`},
		{"stray result", `{"messages":[{"role":"user","content":{"type":"tool_result","toolUseId":"zz","content":[]}}],"maxTokens":1}`, `tool_result for "zz"`},
		{"mixed", `{"messages":[` + use + `,{"role":"user","content":[{"type":"tool_result","toolUseId":"u1","content":[]},{"type":"text","text":"a"}]}],"maxTokens":1,` + tool + `}`, "mixes tool_result"},
		{"nested tool_use", `{"messages":[` + use + `,{"role":"user","content":[{"type":"tool_result","toolUseId":"u1","content":[{"type":"tool_use","id":"v","name":"w"}]}]}],"maxTokens":1,` + tool + `}`, `"tool_use" is not allowed here`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := Parse(json.RawMessage(tc.raw))
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Parse(%s) = %v, want ErrInvalid with %q", tc.raw, err, tc.want)
			}
		})
	}
}

func TestEncode(t *testing.T) {
	req := &api.Request{Tools: []api.Tool{{Name: "w/x"}}}
	for _, tc := range []struct {
		name string
		res  *api.Result
		want string
	}{
		{"one block", &api.Result{Model: "m", StopReason: "endTurn", Content: []api.Content{{Type: "text", Text: "hi"}}},
			`{"role":"assistant","content":{"type":"text","text":"hi"},"model":"m","stopReason":"endTurn"}`},
		{"several", &api.Result{Model: "m", Content: []api.Content{{Type: "image", Data: []byte{1}, MIMEType: "image/png"}, {Type: "tool_use", ID: "c", Name: "w/x"}}},
			`{"role":"assistant","content":[{"type":"image","data":"AQ==","mimeType":"image/png"},{"type":"tool_use","id":"c","name":"w/x","input":{}}],"model":"m"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Encode(req, tc.res)
			if err != nil || string(got) != tc.want {
				t.Errorf("Encode() = %s, %v; want %s", got, err, tc.want)
			}
		})
	}
	for _, res := range []*api.Result{
		nil,
		{Model: "m"},
		{Content: []api.Content{{Type: "text"}}},
		{Model: "m", Content: []api.Content{{Type: "tool_use", ID: "c", Name: "other"}}},
		{Model: "m", Content: []api.Content{{Type: "tool_result", ID: "c"}}},
		{Model: "m", Content: []api.Content{{Type: "image"}}},
	} {
		if got, err := Encode(req, res); err == nil {
			t.Errorf("Encode(%+v) = %s, want an error", res, got)
		}
	}
}
