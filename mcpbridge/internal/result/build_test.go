package result

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"
)

func TestFromValue(t *testing.T) {
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"nil", nil, `{"content":[]}`},
		{"string", "hi", `{"content":[{"type":"text","text":"hi"}]}`},
		{"empty string", "", `{"content":[{"type":"text","text":""}]}`},
		{"number", 42, `{"content":[{"type":"text","text":"42"}],"structuredContent":42}`},
		{"object", map[string]any{"b": 1, "a": []int{2}}, `{"content":[{"type":"text","text":"{\"a\":[2],\"b\":1}"}],"structuredContent":{"a":[2],"b":1}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := FromValue(tt.v)
			if err != nil || string(got) != tt.want {
				t.Errorf("FromValue(%#v) = %s, %v, want %s", tt.v, got, err, tt.want)
			}
		})
	}
	if got, err := FromValue(math.Inf(1)); err == nil {
		t.Errorf("FromValue(+Inf) = %s, want json.Marshal's error", got)
	}
}

// TestFromValueConverts checks that what FromValue writes reads back through
// Convert: a string as text, another value as structured JSON.
func TestFromValueConverts(t *testing.T) {
	raw, err := FromValue(map[string]any{"n": 1})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Convert(raw, Options{Tool: "host"})
	if err != nil {
		t.Fatalf("Convert(FromValue) error = %v", err)
	}
	if diff := cmp.Diff(map[string]any{"n": json.Number("1")}, res.Structured); diff != "" || res.IsError || !res.TextIsStructured {
		t.Errorf("Convert(FromValue).Structured (-want +got):\n%s (isError %t, text is structured %t, want false, true)", diff, res.IsError, res.TextIsStructured)
	}
}

func TestToolError(t *testing.T) {
	raw := ToolError(`no server "x"`)
	const want = `{"content":[{"text":"no server \"x\"","type":"text"}],"isError":true}`
	if string(raw) != want {
		t.Errorf("ToolError = %s, want %s", raw, want)
	}
	res, err := Convert(raw, Options{Tool: "t"})
	if err != nil || !res.IsError {
		t.Fatalf("Convert(ToolError) = %+v, %v, want an error result", res, err)
	}
	if diff := cmp.Diff([]*genai.Part{{Text: `no server "x"`}}, res.Parts); diff != "" {
		t.Errorf("Convert(ToolError).Parts (-want +got):\n%s", diff)
	}
}

func TestAppendText(t *testing.T) {
	tests := []struct {
		name, raw, want string
	}{
		{"after the content", `{"content":[{"type":"text","text":"a"}],"isError":false}`,
			`{"content":[{"type":"text","text":"a"},{"text":"note","type":"text"}],"isError":false}`},
		{"no content yet", `{"structuredContent":{}}`,
			`{"content":[{"text":"note","type":"text"}],"structuredContent":{}}`},
		{"null content", `{"content":null}`, `{"content":[{"text":"note","type":"text"}]}`},
		{"content not an array", `{"content":"x"}`, `{"content":"x"}`},
		{"not an object", `[1]`, `[1]`},
		{"not JSON", `{`, `{`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw := json.RawMessage(tt.raw)
			got := AppendText(raw, "note")
			if string(got) != tt.want {
				t.Errorf("AppendText(%s) = %s, want %s", tt.raw, got, tt.want)
			}
			if string(raw) != tt.raw {
				t.Errorf("AppendText modified its input: %s", raw)
			}
		})
	}
}
