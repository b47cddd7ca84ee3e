package sampling_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"go.uber.org/goleak"
	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/geminitest"
	isampling "github.com/mcpgenai/bridge/mcpbridge/internal/sampling"
	"github.com/mcpgenai/bridge/mcpbridge/sampling"
	"github.com/mcpgenai/bridge/schema"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("go.opencensus.io/stats/view.(*worker).start"))
}

// conversation is a request with every kind of content, tools and a
// finished tool round.
const conversation = `{"messages":[
	{"role":"user","content":[{"type":"text","text":"Look:"},{"type":"image","data":"iVBORw0K","mimeType":"image/png"},{"type":"audio","data":"AAEC","mimeType":"audio/wav"}]},
	{"role":"assistant","content":[{"type":"text","text":"Checking."},{"type":"tool_use","id":"u1","name":"weather/get","input":{"city":"Oslo","days":3}}]},
	{"role":"user","content":[{"type":"tool_result","toolUseId":"u1","content":[{"type":"text","text":"sunny"},{"type":"image","data":"iVBORw0K","mimeType":"image/png"}],"structuredContent":{"t":21}}]}],
	"systemPrompt":"Be brief.","maxTokens":64,"temperature":0.2,"stopSequences":["STOP"],
	"tools":[{"name":"weather/get","description":"The weather.","inputSchema":{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer","enum":[1,3,7]}},"required":["city"],"additionalProperties":false}},
	{"name":"1st tool","inputSchema":{"type":"object"}}],
	"toolChoice":{"mode":"required"}}`

// TestGemini sends a whole conversation through a real genai client to
// geminitest, which rejects what the API rejects, and reads the model's
// function call back under the server's name with restored arguments.
func TestGemini(t *testing.T) {
	req, _, err := isampling.Parse(json.RawMessage(conversation))
	if err != nil {
		t.Fatal(err)
	}
	req.Model = "gemini-2.5-flash"
	srv := geminitest.New(t, nil, geminitest.Reply(geminitest.Response{Parts: []*genai.Part{
		{Text: "thinking...", Thought: true},
		{Text: "Again:"},
		{FunctionCall: &genai.FunctionCall{ID: "c9", Name: "weather_get", Args: map[string]any{"city": "Bergen", "days": "7"}}},
	}}))
	g := sampling.Gemini(srv.Client(context.Background()).Models, "gemini-2.5-flash")
	res, err := g.Sample(context.Background(), req)
	if err != nil {
		t.Fatalf("Sample() = %v", err)
	}
	raw, err := isampling.Encode(req, res)
	want := `{"role":"assistant","content":[{"type":"text","text":"Again:"},{"type":"tool_use","id":"c9","name":"weather/get","input":{"city":"Bergen","days":7}}],"model":"gemini-2.5-flash","stopReason":"toolUse"}`
	if err != nil || string(raw) != want {
		t.Errorf("Encode(Sample()) = %s, %v;\nwant %s", raw, err, want)
	}
	got := srv.Requests()[0]
	if got.Rejection != "" {
		t.Fatalf("geminitest rejected the request: %s", got.Rejection)
	}
	names := []string{}
	for _, d := range got.Declarations() {
		names = append(names, d.Name)
	}
	if strings.Join(names, ",") != "weather_get,_1st_tool" {
		t.Errorf("declared %v, want weather_get,_1st_tool", names)
	}
	if m := got.Config.ToolConfig.FunctionCallingConfig.Mode; m != genai.FunctionCallingConfigModeAny {
		t.Errorf("mode = %s, want ANY", m)
	}
	frs := got.FunctionResponses()
	if len(frs) != 1 || frs[0].Name != "weather_get" || frs[0].ID != "u1" || frs[0].Response["output"] != "sunny" || len(frs[0].Parts) != 1 {
		t.Errorf("function responses = %+v", frs)
	}
	if n := len(got.Contents); n != 3 || got.Contents[1].Role != "model" || got.Contents[0].Parts[2].InlineData.MIMEType != "audio/wav" {
		t.Errorf("contents = %d turns, want 3 (user, model, user) with the audio", n)
	}
}

func TestFromGeminiErrors(t *testing.T) {
	req := &sampling.Request{Model: "m", Tools: []sampling.Tool{{Name: "w"}}}
	call, err := sampling.ToGemini(req)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		resp *genai.GenerateContentResponse
		want string
	}{
		{"nothing", &genai.GenerateContentResponse{}, "no answer"},
		{"blocked", &genai.GenerateContentResponse{PromptFeedback: &genai.GenerateContentResponsePromptFeedback{BlockReason: "SAFETY"}}, "refused the request: SAFETY"},
		{"empty", &genai.GenerateContentResponse{Candidates: []*genai.Candidate{{FinishReason: genai.FinishReasonSafety}}}, "finish reason SAFETY"},
		{"unknown call", &genai.GenerateContentResponse{Candidates: []*genai.Candidate{{Content: &genai.Content{Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{Name: "rm"}}}}}}}, `called "rm"`},
		{"pdf", &genai.GenerateContentResponse{Candidates: []*genai.Candidate{{Content: &genai.Content{Parts: []*genai.Part{{InlineData: &genai.Blob{MIMEType: "application/pdf"}}}}}}}, "application/pdf"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := call.FromGemini(req, tc.resp)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("FromGemini() = %v, want %q", err, tc.want)
			}
		})
	}
	res, err := call.FromGemini(req, &genai.GenerateContentResponse{Candidates: []*genai.Candidate{{FinishReason: genai.FinishReasonMaxTokens, Content: &genai.Content{Parts: []*genai.Part{{Text: "a"}, {Text: "b"}}}}}})
	if err != nil || len(res.Content) != 1 || res.Content[0].Text != "ab" || res.StopReason != sampling.StopMaxTokens || res.Model != "m" {
		t.Errorf("FromGemini(MAX_TOKENS) = %+v, %v; want one text \"ab\", maxTokens, model m", res, err)
	}
}

// TestFromGeminiIDs: a call without an id, or with one the conversation
// already used, gets a new one, since the server's next request must not
// repeat a tool_use id.
func TestFromGeminiIDs(t *testing.T) {
	req, _, err := isampling.Parse(json.RawMessage(conversation)) // uses tool_use id "u1"
	if err != nil {
		t.Fatal(err)
	}
	req.Model = "m"
	call, err := sampling.ToGemini(req)
	if err != nil {
		t.Fatal(err)
	}
	fc := func(id string) *genai.Part {
		return &genai.Part{FunctionCall: &genai.FunctionCall{ID: id, Name: "weather_get", Args: map[string]any{"city": "x"}}}
	}
	res, err := call.FromGemini(req, &genai.GenerateContentResponse{Candidates: []*genai.Candidate{{Content: &genai.Content{Parts: []*genai.Part{fc("u1"), fc(""), fc(""), fc("call_2")}}}}})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range res.Content {
		ids = append(ids, c.ID)
	}
	if got := strings.Join(ids, ","); got != "u1_2,call_2,call_3,call_2_2" {
		t.Errorf("ids = %s, want u1_2,call_2,call_3,call_2_2", got)
	}
}

// TestGeminiJSONSchemaTarget: with the JSONSchema target the tools are
// declared with parametersJsonSchema, the integer enum kept, and the API
// (geminitest) accepts the request.
func TestGeminiJSONSchemaTarget(t *testing.T) {
	req, _, err := isampling.Parse(json.RawMessage(conversation))
	if err != nil {
		t.Fatal(err)
	}
	req.Model, req.Target = "gemini-2.5-flash", schema.JSONSchema
	srv := geminitest.New(t, nil, geminitest.Calls(geminitest.Call{Name: "weather_get", Args: map[string]any{"city": "Oslo", "days": 7}}))
	res, err := sampling.Gemini(srv.Client(context.Background()).Models, req.Model).Sample(context.Background(), req)
	if err != nil {
		t.Fatalf("Sample() = %v", err)
	}
	d := srv.Requests()[0].Declaration("weather_get")
	if d == nil || d.Parameters != nil || d.ParametersJsonSchema == nil || !strings.Contains(jsonString(d.ParametersJsonSchema), `"enum":[1,3,7]`) {
		t.Errorf("declaration = %+v, want parametersJsonSchema with the integer enum", d)
	}
	if len(res.Content) != 1 || jsonString(res.Content[0].Input) != `{"city":"Oslo","days":7}` {
		t.Errorf("tool_use = %+v, want days 7", res.Content)
	}
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
