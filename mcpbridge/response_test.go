package mcpbridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"
)

// findRefKey returns the path of the first object key named exactly "$ref"
// in the decoded JSON v, walking keys in sorted order.
func findRefKey(v any, path string) (string, bool) {
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if k == "$ref" {
				return path + "." + k, true
			}
			if p, ok := findRefKey(v[k], path+"."+k); ok {
				return p, true
			}
		}
	case []any:
		for i, e := range v {
			if p, ok := findRefKey(e, path+"["+strconv.Itoa(i)+"]"); ok {
				return p, true
			}
		}
	}
	return "", false
}

func TestErrorResult(t *testing.T) {
	tests := []struct {
		name     string
		id       string
		err      error
		wantResp string
		wantShow string
	}{{
		name:     "unknown tool",
		id:       "c1",
		err:      errors.New(`unknown function "nope"`),
		wantResp: `{"id":"c1","name":"f","response":{"error":"unknown function \"nope\""}}`,
		wantShow: `Error: unknown function "nope"`,
	}, {
		name:     "cancelled",
		id:       "c2",
		err:      fmt.Errorf("calling %q: %w", "read", context.Canceled),
		wantResp: `{"id":"c2","name":"f","response":{"error":"calling \"read\": context canceled"}}`,
		wantShow: `Error: calling "read": context canceled`,
	}, {
		name:     "timeout",
		id:       "c3",
		err:      fmt.Errorf("calling %q: %w", "read", context.DeadlineExceeded),
		wantResp: `{"id":"c3","name":"f","response":{"error":"calling \"read\": context deadline exceeded"}}`,
		wantShow: `Error: calling "read": context deadline exceeded`,
	}, {
		name:     "invalid arguments",
		id:       "c4",
		err:      errors.New(`invalid arguments: at '/path': want string, but got number`),
		wantResp: `{"id":"c4","name":"f","response":{"error":"invalid arguments: at '/path': want string, but got number"}}`,
		wantShow: `Error: invalid arguments: at '/path': want string, but got number`,
	}, {
		name:     "no id",
		id:       "",
		err:      errors.New("denied by the user"),
		wantResp: `{"name":"f","response":{"error":"denied by the user"}}`,
		wantShow: `Error: denied by the user`,
	}, {
		name:     "nil error",
		id:       "c5",
		err:      nil,
		wantResp: `{"id":"c5","name":"f","response":{"error":"unknown error"}}`,
		wantShow: `Error: unknown error`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := errorResult("f", tt.id, tt.err)
			if diff := cmp.Diff(decodeJSON(t, tt.wantResp), responseJSON(t, r.FunctionResponse())); diff != "" {
				t.Errorf("errorResult(%v).FunctionResponse() (-want +got):\n%s", tt.err, diff)
			}
			if r.ReturnDisplay != tt.wantShow {
				t.Errorf("errorResult(%v).ReturnDisplay = %q, want %q", tt.err, r.ReturnDisplay, tt.wantShow)
			}
			if r.Err == nil || (tt.err != nil && !errors.Is(r.Err, tt.err)) {
				t.Errorf("errorResult(%v).Err = %v, want it to wrap the error", tt.err, r.Err)
			}
		})
	}
}

// TestFunctionResponseID checks that the call's ID is echoed byte for byte
// and that none is invented when the call had none.
func TestFunctionResponseID(t *testing.T) {
	for _, id := range []string{"", "call-1", "  spaced id ", "ünïcode/ID:42"} {
		t.Run(strconv.Quote(id), func(t *testing.T) {
			opts := testOpts
			opts.ID = id
			r, err := convertResult(json.RawMessage(`{"content":[{"type":"text","text":"x"}]}`), opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := r.FunctionResponse().ID; got != id {
				t.Errorf("FunctionResponse().ID = %q, want %q", got, id)
			}
			if got := r.Part().FunctionResponse.ID; got != id {
				t.Errorf("Part().FunctionResponse.ID = %q, want %q", got, id)
			}
			v := responseJSON(t, r.FunctionResponse()).(map[string]any)
			if _, has := v["id"]; has != (id != "") {
				t.Errorf("FunctionResponse JSON %v: has id = %v, want %v", v, has, id != "")
			}
		})
	}
}

func TestPart(t *testing.T) {
	r, err := convertResult(json.RawMessage(`{"content":[{"type":"image","mimeType":"image/png","data":"AQID"}]}`), testOpts)
	if err != nil {
		t.Fatal(err)
	}
	want := &genai.Part{FunctionResponse: &genai.FunctionResponse{
		ID:       "call-1",
		Name:     "files__read",
		Parts:    []*genai.FunctionResponsePart{{InlineData: &genai.FunctionResponseBlob{MIMEType: "image/png", Data: []byte{1, 2, 3}}}},
		Response: map[string]any{"output": ""},
	}}
	if diff := cmp.Diff(want, r.Part()); diff != "" {
		t.Errorf("Part() (-want +got):\n%s", diff)
	}
	var nilResult *CallResult
	if p := nilResult.Part(); p != nil {
		t.Errorf("(*CallResult)(nil).Part() = %v, want nil", p)
	}
	if fr := nilResult.FunctionResponse(); fr != nil {
		t.Errorf("(*CallResult)(nil).FunctionResponse() = %v, want nil", fr)
	}
}

// TestFunctionResponseBuiltByHand checks that a CallResult made as a
// literal (no structured content) answers from its LLMContent.
func TestFunctionResponseBuiltByHand(t *testing.T) {
	tests := []struct {
		name     string
		r        *CallResult
		wantResp string
	}{{
		name:     "zero",
		r:        &CallResult{},
		wantResp: `{"response":{"output":""}}`,
	}, {
		name: "text and data",
		r: &CallResult{Name: "n", ID: "i", LLMContent: []*genai.Part{
			text("a"), nil, blob("image/webp", 9), text("b"),
		}},
		wantResp: `{"id":"i","name":"n","parts":[{"inlineData":{"mimeType":"image/webp","data":"CQ=="}}],"response":{"output":"a\nb"}}`,
	}, {
		name:     "error",
		r:        &CallResult{Name: "n", LLMContent: []*genai.Part{text("ignored")}, Err: errors.New("boom")},
		wantResp: `{"name":"n","response":{"error":"boom"}}`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(decodeJSON(t, tt.wantResp), responseJSON(t, tt.r.FunctionResponse())); diff != "" {
				t.Errorf("FunctionResponse() (-want +got):\n%s", diff)
			}
		})
	}
}

// TestFunctionResponseRepeatable checks that FunctionResponse does not
// modify the result: a second call gives the same response.
func TestFunctionResponseRepeatable(t *testing.T) {
	r, err := convertResult(json.RawMessage(`{"structuredContent":{"$ref":{"$ref":[{"$ref":1}]}}}`), testOpts)
	if err != nil {
		t.Fatal(err)
	}
	first, err := json.Marshal(r.FunctionResponse())
	if err != nil {
		t.Fatal(err)
	}
	second, err := json.Marshal(r.FunctionResponse())
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":"call-1","name":"files__read","response":{"output":{"_$ref":{"_$ref":[{"_$ref":1}]}}}}`
	if string(first) != want || string(second) != want {
		t.Errorf("FunctionResponse() JSON twice = %s, %s; want %s both times", first, second, want)
	}
}

func ExampleCallResult_Part() {
	r := &CallResult{
		Name:       "weather__forecast",
		ID:         "call-7", // the FunctionCall's ID, echoed
		LLMContent: []*genai.Part{{Text: "Sunny, 21 °C"}},
	}
	b, _ := json.Marshal(r.Part())
	fmt.Println(string(b))
	// Output:
	// {"functionResponse":{"id":"call-7","name":"weather__forecast","response":{"output":"Sunny, 21 °C"}}}
}
