package geminitest

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"
)

func streamArgsConfig() *genai.GenerateContentConfig {
	return &genai.GenerateContentConfig{
		Tools: []*genai.Tool{{FunctionDeclarations: []*genai.FunctionDeclaration{{Name: "f"}}}},
		ToolConfig: &genai.ToolConfig{FunctionCallingConfig: &genai.FunctionCallingConfig{
			StreamFunctionCallArguments: genai.Ptr(true),
		}},
	}
}

// TestStreamArgsVertex: on Vertex AI, a streamed answer to a request that
// asks for streamed arguments sends each call as its name (ID, thought
// signature) with willContinue, one piece per chunk, and an empty
// functionCall; text around it stays in its chunks and the last chunk has
// the finish reason.
func TestStreamArgsVertex(t *testing.T) {
	ctx := context.Background()
	call := &genai.Part{FunctionCall: &genai.FunctionCall{Name: "f", Args: map[string]any{
		"b": "hello, world", "a": []any{1, true, nil}, "it's": map[string]any{"x": ""},
	}}}
	srv := New(t, &Options{VertexAI: true, ThoughtSignatures: true},
		Reply(Response{Parts: []*genai.Part{{Text: "ok"}, call, {Text: "end"}}, Chunks: []int{3}}))
	yes := genai.Ptr(true)
	piece := func(pa *genai.PartialArg) []*genai.Part {
		return []*genai.Part{{FunctionCall: &genai.FunctionCall{WillContinue: yes, PartialArgs: []*genai.PartialArg{pa}}}}
	}
	want := [][]*genai.Part{
		{{Text: "ok"}, {FunctionCall: &genai.FunctionCall{ID: "call-1", Name: "f", WillContinue: yes}, ThoughtSignature: []byte("fake-signature-f")}},
		piece(&genai.PartialArg{JsonPath: "$.a[0]", NumberValue: genai.Ptr(1.0)}),
		piece(&genai.PartialArg{JsonPath: "$.a[1]", BoolValue: yes}),
		piece(&genai.PartialArg{JsonPath: "$.a[2]", NULLValue: "NULL_VALUE"}),
		piece(&genai.PartialArg{JsonPath: "$.b", StringValue: "hello, w", WillContinue: yes}),
		piece(&genai.PartialArg{JsonPath: "$.b", StringValue: "orld"}),
		piece(&genai.PartialArg{JsonPath: `$['it\'s'].x`}),
		{{FunctionCall: &genai.FunctionCall{}}, {Text: "end"}},
	}
	var got [][]*genai.Part
	var finishes []genai.FinishReason
	for resp, err := range srv.Client(ctx).Models.GenerateContentStream(ctx, model, []*genai.Content{userText("hi")}, streamArgsConfig()) {
		if err != nil {
			t.Fatalf("GenerateContentStream() = %v", err)
		}
		got = append(got, resp.Candidates[0].Content.Parts)
		finishes = append(finishes, resp.Candidates[0].FinishReason)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("chunks mismatch (-want +got):\n%s", diff)
	}
	if finishes[len(finishes)-1] != genai.FinishReasonStop || finishes[0] != "" {
		t.Errorf("finish reasons = %v, want STOP on the last chunk only", finishes)
	}
	if fc := srv.Requests()[0].Config.ToolConfig.FunctionCallingConfig; fc.StreamFunctionCallArguments == nil || !*fc.StreamFunctionCallArguments {
		t.Error("the recorded request lost streamFunctionCallArguments")
	}
}

// TestStreamArgsWholeWithoutStreaming: generateContent, or a stream that
// did not ask, gets whole calls; a script's pieces for a request that did
// not ask are the script's error.
func TestStreamArgsWholeWithoutStreaming(t *testing.T) {
	ctx := context.Background()
	args := map[string]any{"a": "x"}
	pieceTurn := Reply(Response{Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{Name: "f", WillContinue: genai.Ptr(true)}}}})
	srv := New(t, &Options{VertexAI: true}, Calls(Call{Name: "f", Args: args}), Calls(Call{Name: "f", Args: args}), pieceTurn)
	client := srv.Client(ctx)
	resp, err := client.Models.GenerateContent(ctx, model, []*genai.Content{userText("hi")}, streamArgsConfig())
	if err != nil || len(resp.FunctionCalls()) != 1 || resp.FunctionCalls()[0].Args["a"] != "x" {
		t.Fatalf("GenerateContent() = %+v, %v, want the whole call", resp, err)
	}
	cfg := streamArgsConfig()
	cfg.ToolConfig = nil
	for resp, err := range client.Models.GenerateContentStream(ctx, model, []*genai.Content{userText("hi")}, cfg) {
		if err != nil || resp.FunctionCalls()[0].Args["a"] != "x" {
			t.Fatalf("a stream that did not ask = %+v, %v, want the whole call", resp, err)
		}
	}
	_, err = client.Models.GenerateContent(ctx, model, []*genai.Content{userText("hi")}, cfg)
	if apiErr := asAPIError(t, err); apiErr.Code != http.StatusInternalServerError || !strings.Contains(apiErr.Message, "did not ask") {
		t.Errorf("scripted pieces without asking = %v, want the script's error", err)
	}
}

// TestStreamArgsGeminiAPIRejects: the Developer API does not know the
// field: a 400 naming it, as the API answers. (genai refuses it before
// sending for the Developer API, so the request is sent by hand.)
func TestStreamArgsGeminiAPIRejects(t *testing.T) {
	srv := New(t, nil, Text("never"))
	body := `{"contents":[{"parts":[{"text":"hi"}]}],"tools":[{"functionDeclarations":[{"name":"f"}]}],` +
		`"toolConfig":{"functionCallingConfig":{"streamFunctionCallArguments":true}}}`
	req, err := http.NewRequest(http.MethodPost, srv.URL()+"/v1beta/models/m:streamGenerateContent?alt=sse&key=k", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := srv.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var e apiError
	_ = json.Unmarshal(raw, &e)
	const want = `Invalid JSON payload received. Unknown name "streamFunctionCallArguments" at 'tool_config.function_calling_config': Cannot find field.`
	if resp.StatusCode != http.StatusBadRequest || e.Error.Message != want {
		t.Errorf("streamFunctionCallArguments on the Developer API = %d %q, want 400 %q", resp.StatusCode, e.Error.Message, want)
	}
	_, err = srv.Client(context.Background()).Models.GenerateContent(context.Background(), model, []*genai.Content{userText("hi")}, streamArgsConfig())
	if err == nil || !strings.Contains(err.Error(), "streamFunctionCallArguments") {
		t.Errorf("genai on the Developer API = %v, want its refusal", err)
	}
}

func TestArgPiecesEmptyContainers(t *testing.T) {
	for _, args := range []map[string]any{{"a": map[string]any{}}, {"a": []any{}}} {
		if _, err := argPieces(args); err == nil || !strings.Contains(err.Error(), "cannot be streamed") {
			t.Errorf("argPieces(%v) = %v, want an error", args, err)
		}
	}
	if p, err := argPieces(nil); p != nil || err != nil {
		t.Errorf("argPieces(nil) = %v, %v", p, err)
	}
}
