package geminitest

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"
)

// cosine is the cosine similarity of two vectors.
func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	return dot / math.Sqrt(na*nb)
}

func texts(ss ...string) []*genai.Content {
	out := make([]*genai.Content, len(ss))
	for i, s := range ss {
		out[i] = genai.NewContentFromText(s, genai.RoleUser)
	}
	return out
}

// TestEmbedContent: a real genai client's EmbedContent gets one embedding
// per content, of the asked dimensionality, the same for the same text,
// nearer for texts that share words; the request is recorded as sent.
func TestEmbedContent(t *testing.T) {
	ctx := context.Background()
	srv := New(t, nil)
	client := srv.Client(ctx)
	dims := int32(64)
	resp, err := client.Models.EmbedContent(ctx, "gemini-embedding-001",
		texts("weather forecast for Oslo", "the weather in Oslo", "convert currency", "weather forecast for Oslo"),
		&genai.EmbedContentConfig{TaskType: "RETRIEVAL_DOCUMENT", OutputDimensionality: &dims})
	if err != nil {
		t.Fatalf("EmbedContent() error = %v", err)
	}
	if len(resp.Embeddings) != 4 {
		t.Fatalf("EmbedContent() = %d embeddings, want 4", len(resp.Embeddings))
	}
	v := make([][]float32, 4)
	for i, e := range resp.Embeddings {
		if len(e.Values) != int(dims) {
			t.Fatalf("embedding %d has %d values, want %d", i, len(e.Values), dims)
		}
		v[i] = e.Values
	}
	if diff := cmp.Diff(v[0], v[3]); diff != "" {
		t.Errorf("the same text embedded twice differs (-first +second):\n%s", diff)
	}
	if near, far := cosine(v[0], v[1]), cosine(v[0], v[2]); near <= far {
		t.Errorf("cosine(weather, weather) = %v, not above cosine(weather, currency) = %v", near, far)
	}
	got := srv.EmbedRequests()
	want := []EmbedRequest{{Model: "gemini-embedding-001", Batch: true, Items: []EmbedItem{
		{Text: "weather forecast for Oslo", TaskType: "RETRIEVAL_DOCUMENT", Dimensions: 64},
		{Text: "the weather in Oslo", TaskType: "RETRIEVAL_DOCUMENT", Dimensions: 64},
		{Text: "convert currency", TaskType: "RETRIEVAL_DOCUMENT", Dimensions: 64},
		{Text: "weather forecast for Oslo", TaskType: "RETRIEVAL_DOCUMENT", Dimensions: 64},
	}}}
	if diff := cmp.Diff(want, got, cmpIgnoreBody); diff != "" {
		t.Errorf("EmbedRequests() mismatch (-want +got):\n%s", diff)
	}
	if len(srv.Requests()) != 0 {
		t.Errorf("Requests() = %d, want no generateContent request", len(srv.Requests()))
	}
}

var cmpIgnoreBody = cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Body" }, cmp.Ignore())

// TestEmbedDefaultDimensions: without an output dimensionality an
// embedding has 3072 values, as gemini-embedding-001's.
func TestEmbedDefaultDimensions(t *testing.T) {
	ctx := context.Background()
	srv := New(t, nil)
	resp, err := srv.Client(ctx).Models.EmbedContent(ctx, "gemini-embedding-001", texts("hello"), nil)
	if err != nil {
		t.Fatalf("EmbedContent() error = %v", err)
	}
	if n := len(resp.Embeddings[0].Values); n != 3072 {
		t.Errorf("embedding has %d values, want 3072", n)
	}
}

// TestEmbedRejections: what the API refuses is a 400 (403 without a key)
// that reaches the caller as a genai.APIError, and is recorded.
func TestEmbedRejections(t *testing.T) {
	ctx := context.Background()
	zero, big := int32(0), int32(4000)
	many := make([]string, 101)
	for i := range many {
		many[i] = "text"
	}
	tests := []struct {
		name     string
		contents []*genai.Content
		config   *genai.EmbedContentConfig
		want     string
	}{
		{"more than 100 contents", texts(many...), nil, "at most 100 requests can be in one batch"},
		{"an empty text", texts("fine", ""), nil, "requests[1].content: contains an empty Part"},
		{"a title for a query", texts("q"), &genai.EmbedContentConfig{TaskType: "RETRIEVAL_QUERY", Title: "t"}, "requests[0].title"},
		{"no dimensions", texts("q"), &genai.EmbedContentConfig{OutputDimensionality: &zero}, "requests[0].output_dimensionality: must be from 1 to 3072, got 0"},
		{"too many dimensions", texts("q"), &genai.EmbedContentConfig{OutputDimensionality: &big}, "got 4000"},
		{"an unknown task type", texts("q"), &genai.EmbedContentConfig{TaskType: "RANKING"}, `Invalid value at 'requests[0].task_type' (type.googleapis.com/google.ai.generativelanguage.v1beta.TaskType), "RANKING"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := New(t, nil)
			_, err := srv.Client(ctx).Models.EmbedContent(ctx, "gemini-embedding-001", tc.contents, tc.config)
			var apiErr genai.APIError
			if !errors.As(err, &apiErr) || apiErr.Code != http.StatusBadRequest || !strings.Contains(apiErr.Message, tc.want) {
				t.Fatalf("EmbedContent() error = %v, want a 400 saying %q", err, tc.want)
			}
			if got := srv.EmbedRequests(); len(got) != 1 || got[0].Rejection != apiErr.Message {
				t.Errorf("EmbedRequests() = %+v, want the rejection recorded", got)
			}
		})
	}
}

// TestEmbedWire: bodies genai would not send are checked too: unknown
// fields, a request of a batch naming another model, a content without
// parts, a missing key; embedContent answers one embedding.
func TestEmbedWire(t *testing.T) {
	tests := []struct {
		name, method, body string
		noKey              bool
		wantCode           int
		want               string
	}{
		{"unknown field", "batchEmbedContents", `{"requests":[{"model":"models/m","content":{"parts":[{"text":"a"}]},"taskTyp":"CLUSTERING"}]}`, false, 400, `Unknown name "taskTyp" at 'requests[0]'`},
		{"other model", "batchEmbedContents", `{"requests":[{"model":"models/other","content":{"parts":[{"text":"a"}]}}]}`, false, 400, `requests[0].model: must be the model of the batch, "models/m"`},
		{"no model", "batchEmbedContents", `{"requests":[{"content":{"parts":[{"text":"a"}]}}]}`, false, 400, `requests[0].model`},
		{"no parts", "batchEmbedContents", `{"requests":[{"model":"models/m","content":{"parts":[]}}]}`, false, 400, `contents.parts must not be empty`},
		{"no requests", "batchEmbedContents", `{"requests":[]}`, false, 400, `must have at least one request`},
		{"not an object", "batchEmbedContents", `[1]`, false, 400, `Expected an object`},
		{"no key", "batchEmbedContents", `{"requests":[{"model":"models/m","content":{"parts":[{"text":"a"}]}}]}`, true, 403, `unregistered callers`},
		{"embedContent", "embedContent", `{"content":{"parts":[{"text":"a"}]},"outputDimensionality":3}`, false, 200, `{"embedding":{"values":[`},
		{"snake case", "embedContent", `{"content":{"parts":[{"text":"a"}]},"task_type":"clustering","output_dimensionality":3}`, false, 200, `{"embedding":{"values":[`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := New(t, nil)
			req, err := http.NewRequest(http.MethodPost, srv.URL()+"/v1beta/models/m:"+tc.method, strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			if !tc.noKey {
				req.Header.Set("x-goog-api-key", "k")
			}
			resp, err := srv.srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			got := string(b)
			var e apiError
			if json.Unmarshal(b, &e) == nil && e.Error.Message != "" {
				got = e.Error.Message
			}
			if resp.StatusCode != tc.wantCode || !strings.Contains(got, tc.want) {
				t.Errorf("POST :%s %s = %d %s, want %d with %q", tc.method, tc.body, resp.StatusCode, b, tc.wantCode, tc.want)
			}
		})
	}
}

// TestEmbedOption: Options.Embed gives the embeddings; one of the wrong
// length is the test's mistake, a 500.
func TestEmbedOption(t *testing.T) {
	ctx := context.Background()
	dims := int32(2)
	srv := New(t, &Options{Embed: func(text, taskType string, n int) []float32 {
		if text == "bad" {
			return []float32{1}
		}
		return []float32{float32(len(text)), map[string]float32{"RETRIEVAL_QUERY": 1}[taskType]}
	}})
	client := srv.Client(ctx)
	resp, err := client.Models.EmbedContent(ctx, "m", texts("abc"), &genai.EmbedContentConfig{TaskType: "RETRIEVAL_QUERY", OutputDimensionality: &dims})
	if err != nil {
		t.Fatalf("EmbedContent() error = %v", err)
	}
	if diff := cmp.Diff([]float32{3, 1}, resp.Embeddings[0].Values); diff != "" {
		t.Errorf("embedding mismatch (-want +got):\n%s", diff)
	}
	_, err = client.Models.EmbedContent(ctx, "m", texts("bad"), &genai.EmbedContentConfig{OutputDimensionality: &dims})
	var apiErr genai.APIError
	if !errors.As(err, &apiErr) || apiErr.Code != http.StatusInternalServerError {
		t.Errorf("EmbedContent(bad) error = %v, want a 500", err)
	}
}

// TestHashEmbedding: unit length, deterministic, a fixed vector for a text
// without words, CJK characters counted one by one.
func TestHashEmbedding(t *testing.T) {
	for _, text := range []string{"hello world", "天気予報", "", "!!!", "Grüße 42"} {
		v := HashEmbedding(text, "", 16)
		norm := 0.0
		for _, x := range v {
			norm += float64(x) * float64(x)
		}
		if len(v) != 16 || math.Abs(norm-1) > 1e-6 {
			t.Errorf("HashEmbedding(%q) = %v: %d values of norm %v, want 16 of norm 1", text, v, len(v), norm)
		}
		if diff := cmp.Diff(v, HashEmbedding(text, "RETRIEVAL_QUERY", 16)); diff != "" {
			t.Errorf("HashEmbedding(%q) is not deterministic (-first +second):\n%s", text, diff)
		}
	}
	if c := cosine(HashEmbedding("天気", "", 64), HashEmbedding("天気予報", "", 64)); c <= 0.5 {
		t.Errorf("cosine(天気, 天気予報) = %v, want above 0.5", c)
	}
	if got := HashEmbedding("x", "", 0); len(got) != 0 {
		t.Errorf("HashEmbedding(x, 0) = %v, want empty", got)
	}
}

// FuzzEmbedBody: any body gets an answer, 200 or 400, never a panic or a
// 500, and an answer of 200 has one embedding per request.
func FuzzEmbedBody(f *testing.F) {
	f.Add(`{"requests":[{"model":"models/m","content":{"parts":[{"text":"a"}]},"outputDimensionality":4}]}`)
	f.Add(`{"requests":[{"model":"models/m","content":{"parts":[{"text":""},{"inlineData":{"mimeType":"x","data":"AA=="}}]}}]}`)
	f.Add(`{"requests":null}`)
	f.Add(`{"requests":[{"taskType":7,"title":["x"]}]}`)
	srv := New(nil, nil)
	defer srv.Close()
	f.Fuzz(func(t *testing.T, body string) {
		req, err := http.NewRequest(http.MethodPost, srv.URL()+"/v1beta/models/m:batchEmbedContents", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("x-goog-api-key", "k")
		resp, err := srv.srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusBadRequest {
			t.Fatalf("POST %q = %d, want 200 or 400", body, resp.StatusCode)
		}
	})
}
