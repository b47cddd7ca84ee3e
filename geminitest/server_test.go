package geminitest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
	"google.golang.org/genai"
)

func TestMain(m *testing.M) {
	// genai's dependencies start an opencensus worker in an init function.
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("go.opencensus.io/stats/view.(*worker).start"))
}

const model = "gemini-2.5-flash"

func weatherTools() []*genai.Tool {
	return []*genai.Tool{{FunctionDeclarations: []*genai.FunctionDeclaration{{
		Name:        "get_weather",
		Description: "Current weather for a city.",
		Parameters: &genai.Schema{
			Type: genai.TypeObject,
			Properties: map[string]*genai.Schema{
				"city":  {Type: genai.TypeString},
				"units": {Type: genai.TypeString, Enum: []string{"metric", "imperial"}},
			},
			Required: []string{"city"},
		},
	}}}}
}

func userText(s string) *genai.Content {
	return genai.NewContentFromText(s, genai.RoleUser)
}

// asAPIError returns err as a genai.APIError, failing the test if it is not one.
func asAPIError(t *testing.T, err error) genai.APIError {
	t.Helper()
	var apiErr genai.APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("error = %v (%T), want a genai.APIError", err, err)
	}
	return apiErr
}

func TestRoundTrip(t *testing.T) {
	ctx := context.Background()
	var seen []*genai.FunctionResponse
	srv := New(t, nil,
		Calls(Call{Name: "get_weather", Args: map[string]any{"city": "Oslo"}}),
		func(req *Request) Response {
			seen = req.FunctionResponses()
			return Response{Parts: []*genai.Part{{Text: "Sunny in Oslo."}}}
		},
	)
	client := srv.Client(ctx)
	config := &genai.GenerateContentConfig{Tools: weatherTools()}
	history := []*genai.Content{userText("Weather in Oslo?")}

	resp, err := client.Models.GenerateContent(ctx, model, history, config)
	if err != nil {
		t.Fatalf("GenerateContent(turn 1) error = %v", err)
	}
	calls := resp.FunctionCalls()
	wantCalls := []*genai.FunctionCall{{ID: "call-1", Name: "get_weather", Args: map[string]any{"city": "Oslo"}}}
	if diff := cmp.Diff(wantCalls, calls); diff != "" {
		t.Errorf("FunctionCalls() mismatch (-want +got):\n%s", diff)
	}
	if resp.ModelVersion != model || resp.ResponseID != "fake-response-1" {
		t.Errorf("ModelVersion, ResponseID = %q, %q, want %q, %q", resp.ModelVersion, resp.ResponseID, model, "fake-response-1")
	}
	if got := resp.Candidates[0].FinishReason; got != genai.FinishReasonStop {
		t.Errorf("FinishReason = %q, want STOP", got)
	}
	if u := resp.UsageMetadata; u == nil || u.TotalTokenCount != u.PromptTokenCount+u.CandidatesTokenCount || u.PromptTokenCount == 0 {
		t.Errorf("UsageMetadata = %+v, want consistent non-zero counts", u)
	}

	history = append(history, resp.Candidates[0].Content, genai.NewContentFromParts([]*genai.Part{{
		FunctionResponse: &genai.FunctionResponse{
			ID: calls[0].ID, Name: calls[0].Name,
			Response: map[string]any{"output": map[string]any{"temp": 21.5, "sky": "clear"}},
			Parts: []*genai.FunctionResponsePart{
				genai.NewFunctionResponsePartFromBytes([]byte{0x89, 'P', 'N', 'G'}, "image/png"),
			},
		},
	}}, genai.RoleUser))
	resp, err = client.Models.GenerateContent(ctx, model, history, config)
	if err != nil {
		t.Fatalf("GenerateContent(turn 2) error = %v", err)
	}
	if got := resp.Text(); got != "Sunny in Oslo." {
		t.Errorf("Text() = %q, want %q", got, "Sunny in Oslo.")
	}
	wantSeen := []*genai.FunctionResponse{{
		ID: "call-1", Name: "get_weather",
		Response: map[string]any{"output": map[string]any{"temp": 21.5, "sky": "clear"}},
		Parts:    []*genai.FunctionResponsePart{{InlineData: &genai.FunctionResponseBlob{MIMEType: "image/png", Data: []byte{0x89, 'P', 'N', 'G'}}}},
	}}
	if diff := cmp.Diff(wantSeen, seen); diff != "" {
		t.Errorf("FunctionResponses() seen by the turn mismatch (-want +got):\n%s", diff)
	}

	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("len(Requests()) = %d, want 2", len(reqs))
	}
	for i, r := range reqs {
		if r.Rejection != "" || r.Turn != i || r.Model != model || r.Stream {
			t.Errorf("Requests()[%d] = {Rejection: %q, Turn: %d, Model: %q, Stream: %v}, want accepted turn %d of %q",
				i, r.Rejection, r.Turn, r.Model, r.Stream, i, model)
		}
		if got := r.Header.Get("x-goog-api-key"); got != "test" {
			t.Errorf("Requests()[%d].Header x-goog-api-key = %q, want %q", i, got, "test")
		}
		if !strings.Contains(string(r.Body), `"functionDeclarations"`) {
			t.Errorf("Requests()[%d].Body = %s, want the raw JSON with functionDeclarations", i, r.Body)
		}
	}
	if got := reqs[1].Declaration("get_weather"); got == nil || got.Parameters.Properties["units"].Enum[1] != "imperial" {
		t.Errorf("Declaration(get_weather) = %+v, want the decoded declaration", got)
	}
	if got := len(reqs[1].Contents); got != 3 {
		t.Errorf("len(Requests()[1].Contents) = %d, want 3", got)
	}
	if got := srv.Remaining(); got != 0 {
		t.Errorf("Remaining() = %d, want 0", got)
	}
}

func TestStream(t *testing.T) {
	ctx := context.Background()
	srv := New(t, nil, Text("streamed"))
	client := srv.Client(ctx)
	var texts []string
	for resp, err := range client.Models.GenerateContentStream(ctx, model, []*genai.Content{userText("hi")}, nil) {
		if err != nil {
			t.Fatalf("GenerateContentStream() error = %v", err)
		}
		texts = append(texts, resp.Text())
	}
	if diff := cmp.Diff([]string{"streamed"}, texts); diff != "" {
		t.Errorf("streamed texts mismatch (-want +got):\n%s", diff)
	}
	if reqs := srv.Requests(); len(reqs) != 1 || !reqs[0].Stream || reqs[0].Query.Get("alt") != "sse" {
		t.Errorf("Requests() = %+v, want one stream request with alt=sse", reqs)
	}
}

func TestScriptFailures(t *testing.T) {
	tests := []struct {
		name       string
		script     []Turn
		wantCode   int
		wantStatus string
		wantMsg    string
	}{
		{
			name:       "exhausted",
			script:     nil,
			wantCode:   500,
			wantStatus: "INTERNAL",
			wantMsg:    "geminitest: script exhausted: no turn left for this request (the script has 0 turns, all used)",
		},
		{
			name:       "undeclared function",
			script:     []Turn{Calls(Call{Name: "nope"})},
			wantCode:   500,
			wantStatus: "INTERNAL",
			wantMsg:    `geminitest: turn 0: the script calls "nope", which the request does not declare (declared: get_weather)`,
		},
		{
			name:       "panicking turn",
			script:     []Turn{func(*Request) Response { panic("boom") }},
			wantCode:   500,
			wantStatus: "INTERNAL",
			wantMsg:    "geminitest: turn 0: panicked: boom",
		},
		{
			name:       "scripted quota error",
			script:     []Turn{Fail(http.StatusTooManyRequests, "Resource has been exhausted (e.g. check quota).")},
			wantCode:   429,
			wantStatus: "RESOURCE_EXHAUSTED",
			wantMsg:    "Resource has been exhausted (e.g. check quota).",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			srv := New(t, nil, tt.script...)
			_, err := srv.Client(ctx).Models.GenerateContent(ctx, model, []*genai.Content{userText("hi")},
				&genai.GenerateContentConfig{Tools: weatherTools()})
			got := asAPIError(t, err)
			if got.Code != tt.wantCode || got.Status != tt.wantStatus || got.Message != tt.wantMsg {
				t.Errorf("GenerateContent() error = {%d %s %q}, want {%d %s %q}",
					got.Code, got.Status, got.Message, tt.wantCode, tt.wantStatus, tt.wantMsg)
			}
			if reqs := srv.Requests(); len(reqs) != 1 || reqs[0].Rejection != tt.wantMsg {
				t.Errorf("Requests() = %+v, want one request rejected with %q", reqs, tt.wantMsg)
			}
		})
	}
}

func TestCallIDs(t *testing.T) {
	tests := []struct {
		name  string
		opts  *Options
		calls []Call
		want  [2][]string // IDs of the first and second answer of the same turn
	}{
		{"generated", nil, []Call{{Name: "get_weather"}, {Name: "get_weather"}},
			[2][]string{{"call-1", "call-2"}, {"call-3", "call-4"}}},
		{"kept when given", nil, []Call{{ID: "abc", Name: "get_weather"}, {Name: "get_weather"}},
			[2][]string{{"abc", "call-1"}, {"abc", "call-2"}}},
		{"none", &Options{NoCallIDs: true}, []Call{{Name: "get_weather"}},
			[2][]string{{""}, {""}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			turn := Calls(tt.calls...)
			srv := New(t, tt.opts, turn, turn)
			client := srv.Client(ctx)
			for round, want := range tt.want {
				resp, err := client.Models.GenerateContent(ctx, model, []*genai.Content{userText("hi")},
					&genai.GenerateContentConfig{Tools: weatherTools()})
				if err != nil {
					t.Fatalf("GenerateContent() error = %v", err)
				}
				var ids []string
				for _, c := range resp.FunctionCalls() {
					ids = append(ids, c.ID)
				}
				if diff := cmp.Diff(want, ids); diff != "" {
					t.Errorf("answer %d: call IDs mismatch (-want +got):\n%s", round, diff)
				}
			}
		})
	}
}

func TestThoughtSignatures(t *testing.T) {
	ctx := context.Background()
	srv := New(t, &Options{ThoughtSignatures: true},
		Calls(Call{Name: "get_weather", Args: map[string]any{"city": "Oslo"}}, Call{Name: "get_weather", Args: map[string]any{"city": "Rome"}}),
		Text("done"), Text("done"))
	client := srv.Client(ctx)
	config := &genai.GenerateContentConfig{Tools: weatherTools()}
	history := []*genai.Content{userText("Weather?")}
	resp, err := client.Models.GenerateContent(ctx, model, history, config)
	if err != nil {
		t.Fatalf("GenerateContent() error = %v", err)
	}
	parts := resp.Candidates[0].Content.Parts
	if string(parts[0].ThoughtSignature) != "fake-signature-get_weather" || parts[1].ThoughtSignature != nil {
		t.Fatalf("thought signatures = %q, %q, want one on the first call only", parts[0].ThoughtSignature, parts[1].ThoughtSignature)
	}
	answers := genai.NewContentFromParts([]*genai.Part{
		genai.NewPartFromFunctionResponse("get_weather", map[string]any{"output": "sunny"}),
		genai.NewPartFromFunctionResponse("get_weather", map[string]any{"output": "rain"}),
	}, genai.RoleUser)
	answers.Parts[0].FunctionResponse.ID = "call-1"
	answers.Parts[1].FunctionResponse.ID = "call-2"

	// The model turn echoed as received keeps its signature: accepted.
	if _, err := client.Models.GenerateContent(ctx, model, append(history, resp.Candidates[0].Content, answers), config); err != nil {
		t.Fatalf("GenerateContent(with signature) error = %v", err)
	}
	// A rebuilt model turn without it: rejected.
	stripped := &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{
		{FunctionCall: parts[0].FunctionCall}, {FunctionCall: parts[1].FunctionCall},
	}}
	_, err = client.Models.GenerateContent(ctx, model, append(history, stripped, answers), config)
	got := asAPIError(t, err)
	want := "Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, " +
		"and missing thought_signature may lead to degraded model performance. Additional data, function call `default_api:get_weather` , position 2. " +
		"Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details."
	if got.Code != 400 || got.Message != want {
		t.Errorf("GenerateContent(without signature) error = %d %q, want 400 %q", got.Code, got.Message, want)
	}
}

func TestConcurrentRequests(t *testing.T) {
	ctx := context.Background()
	const n = 8
	var script []Turn
	for i := range n {
		script = append(script, Text(fmt.Sprintf("answer %d", i)))
	}
	srv := New(t, nil, script...)
	client := srv.Client(ctx)
	var wg sync.WaitGroup
	texts := make([]string, n)
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			resp, err := client.Models.GenerateContent(ctx, model, []*genai.Content{userText("hi")}, nil)
			if err == nil {
				texts[i] = resp.Text()
			}
			errs[i] = err
		})
	}
	wg.Wait()
	seen := map[string]bool{}
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("request %d: error = %v", i, errs[i])
		}
		seen[texts[i]] = true
	}
	if len(seen) != n {
		t.Errorf("distinct answers = %d, want %d (each turn used once): %v", len(seen), n, texts)
	}
	turns := map[int]bool{}
	for _, r := range srv.Requests() {
		turns[r.Turn] = true
	}
	if len(turns) != n || srv.Remaining() != 0 {
		t.Errorf("turns used = %v, Remaining() = %d, want %d distinct turns and 0 left", turns, srv.Remaining(), n)
	}
}

func TestAuthorization(t *testing.T) {
	tests := []struct {
		name     string
		opts     *Options
		header   string
		query    string
		wantCode int
	}{
		{"header key", nil, "k", "", 200},
		{"query key", nil, "", "?key=k", 200},
		{"missing key", nil, "", "", 403},
		{"wrong key", &Options{APIKey: "right"}, "wrong", "", 400},
		{"right key", &Options{APIKey: "right"}, "right", "", 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := New(t, tt.opts, Text("ok"))
			req, err := http.NewRequest(http.MethodPost, srv.URL()+"/v1beta/models/m:generateContent"+tt.query,
				strings.NewReader(`{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`))
			if err != nil {
				t.Fatal(err)
			}
			if tt.header != "" {
				req.Header.Set("x-goog-api-key", tt.header)
			}
			resp, err := srv.srv.Client().Do(req)
			if err != nil {
				t.Fatalf("Do() error = %v", err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.wantCode {
				t.Errorf("status = %d, want %d", resp.StatusCode, tt.wantCode)
			}
		})
	}
}

func TestRoutes(t *testing.T) {
	tests := []struct {
		method, path string
		wantCode     int
	}{
		{http.MethodPost, "/v1beta/models/m:generateContent", 200},
		{http.MethodPost, "/v1beta/tunedModels/m:generateContent", 200},
		{http.MethodGet, "/v1beta/models/m:generateContent", 404},
		{http.MethodPost, "/v1/models/m:generateContent", 404},
		{http.MethodPost, "/v1beta/models/m:countTokens", 404},
		{http.MethodPost, "/v1beta/models/:generateContent", 404},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			srv := New(t, nil, Text("ok"))
			req, err := http.NewRequest(tt.method, srv.URL()+tt.path,
				strings.NewReader(`{"contents":[{"parts":[{"text":"hi"}]}]}`))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("x-goog-api-key", "k")
			resp, err := srv.srv.Client().Do(req)
			if err != nil {
				t.Fatalf("Do() error = %v", err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.wantCode {
				t.Errorf("%s %s: status = %d, want %d", tt.method, tt.path, resp.StatusCode, tt.wantCode)
			}
		})
	}
}

func TestAppendWithoutT(t *testing.T) {
	ctx := context.Background()
	srv := New(nil, nil) // no t: the caller closes it
	defer srv.Close()
	client := srv.Client(ctx)
	contents := []*genai.Content{userText("hi")}
	if _, err := client.Models.GenerateContent(ctx, model, contents, nil); err == nil {
		t.Fatalf("GenerateContent(empty script) error = nil, want a script-exhausted error")
	}
	srv.Append(Text("first"), Text("second"))
	if got := srv.Remaining(); got != 2 {
		t.Errorf("Remaining() after Append = %d, want 2", got)
	}
	for _, want := range []string{"first", "second"} {
		resp, err := client.Models.GenerateContent(ctx, model, contents, nil)
		if err != nil {
			t.Fatalf("GenerateContent() error = %v", err)
		}
		if got := resp.Text(); got != want {
			t.Errorf("Text() = %q, want %q", got, want)
		}
	}
	srv.Close()
	srv.Close() // closing twice is fine
}

func TestStreamWithoutSSE(t *testing.T) {
	srv := New(t, nil, Text("array"))
	req, err := http.NewRequest(http.MethodPost, srv.URL()+"/v1beta/models/m:streamGenerateContent?key=k",
		strings.NewReader(`{"contents":[{"parts":[{"text":"hi"}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := srv.srv.Client().Do(req)
	if err != nil {
		t.Fatalf("Do() error = %v", err)
	}
	defer resp.Body.Close()
	var got []*genai.GenerateContentResponse
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatalf("decoding the JSON array: %v", err)
	}
	if len(got) != 1 || got[0].Text() != "array" {
		t.Errorf("stream without alt=sse = %+v, want one response with text %q", got, "array")
	}
}
