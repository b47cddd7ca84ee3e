package elicitation

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpgenai/bridge/mcpbridge/internal/result"
)

// sep1034 is the form of the conformance suite's defaults scenario.
const sep1034 = `{"type":"object","properties":{
	"name":{"type":"string","default":"John Doe"},
	"age":{"type":"integer","default":30},
	"score":{"type":"number","default":95.5},
	"status":{"type":"string","enum":["active","inactive","pending"],"default":"active"},
	"verified":{"type":"boolean","default":true}},"required":[]}`

func TestApplyDefaults(t *testing.T) {
	tests := []struct {
		name    string
		schema  string
		content map[string]any
		want    map[string]any
	}{
		{"all left out", sep1034, nil,
			map[string]any{"name": "John Doe", "age": 30.0, "score": 95.5, "status": "active", "verified": true}},
		{"answers kept", sep1034, map[string]any{"name": "Ada", "verified": false},
			map[string]any{"name": "Ada", "age": 30.0, "score": 95.5, "status": "active", "verified": false}},
		{"no defaults", `{"type":"object","properties":{"a":{"type":"string"}}}`, map[string]any{}, map[string]any{}},
		{"wrong type", `{"properties":{"a":{"type":"integer","default":"x"},"b":{"type":"integer","default":1.5},"c":{"type":"boolean","default":1}}}`, nil, nil},
		{"outside enum", `{"properties":{"a":{"type":"string","enum":["x"],"default":"y"}}}`, nil, nil},
		{"enum of arrays", `{"properties":{"a":{"enum":[[1],"x"],"default":"x"}}}`, nil, map[string]any{"a": "x"}},
		{"type list", `{"properties":{"a":{"type":["integer","null"],"default":2}}}`, nil, map[string]any{"a": 2.0}},
		{"multi-select", `{"properties":{"a":{"type":"array","items":{"enum":["x","y"]},"default":["x"]}}}`, nil, map[string]any{"a": []any{"x"}}},
		{"null default", `{"properties":{"a":{"default":null}}}`, nil, nil},
		{"object default", `{"properties":{"a":{"default":{"k":1}}}}`, nil, nil},
		{"not a schema", `[1,2]`, map[string]any{"a": 1}, map[string]any{"a": 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := cloneJSON(t, tc.content)
			got := ApplyDefaults(json.RawMessage(tc.schema), tc.content)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ApplyDefaults(%s, %v) (-want +got):\n%s", tc.name, tc.content, diff)
			}
			if diff := cmp.Diff(before, cloneJSON(t, tc.content)); diff != "" {
				t.Errorf("ApplyDefaults modified its content (-before +after):\n%s", diff)
			}
		})
	}
}

func cloneJSON(t *testing.T, m map[string]any) string {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestCheckURL(t *testing.T) {
	tests := []struct {
		in, want string // want "" means refused
	}{
		{"https://example.com/login?x=1", "https://example.com/login?x=1"},
		{"HTTPS://example.com/", "https://example.com/"},
		{"http://localhost:8080/cb", "http://localhost:8080/cb"},
		{"http://127.0.0.1/x", "http://127.0.0.1/x"},
		{"http://[::1]:9/x", "http://[::1]:9/x"},
		{"http://example.com/", ""},
		{"javascript:alert(1)", ""},
		{"file:///etc/passwd", ""},
		{"data:text/html,hi", ""},
		{"https://bank.example@evil.example/", ""},
		{"https://exa\u202emple.com/", ""},
		{"https://exаmple.com/", ""}, // Cyrillic a
		{"https://example.com/a b", ""},
		{"https:///nohost", ""},
		{"", ""},
		{"https://example.com/" + strings.Repeat("a", MaxURLLength), ""},
	}
	for _, tc := range tests {
		got, err := CheckURL(tc.in)
		if tc.want == "" {
			if err == nil || !errors.Is(err, ErrUnsafeURL) {
				t.Errorf("CheckURL(%q) = %q, %v; want ErrUnsafeURL", tc.in, got, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("CheckURL(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

// FuzzCheckURL: no panic; an accepted URL is https (or http on loopback),
// clean, and accepted again unchanged.
func FuzzCheckURL(f *testing.F) {
	for _, s := range []string{"https://example.com/x?y#z", "http://localhost:1/", "http://[::1]/", "javascript:x", "https://u:p@h/", "https://h/%zz"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := CheckURL(s)
		if err != nil {
			return
		}
		if !strings.HasPrefix(u, "https://") && !strings.HasPrefix(u, "http://") {
			t.Fatalf("CheckURL(%q) = %q: not http(s)", s, u)
		}
		if result.CleanText(u, -1) != u {
			t.Fatalf("CheckURL(%q) = %q: unclean", s, u)
		}
		again, err := CheckURL(u)
		if err != nil || again != u {
			t.Fatalf("CheckURL(%q) = %q, but again = %q, %v", s, u, again, err)
		}
	})
}

// FuzzApplyDefaults: no panic on any schema, the content's own answers
// are kept, and applying twice adds nothing more.
func FuzzApplyDefaults(f *testing.F) {
	f.Add(sep1034, `{"name":"Ada"}`)
	f.Add(`{"properties":{"a":{"enum":[[1],{"x":2}],"default":[1]}}}`, `{}`)
	f.Add(`{"properties":{"a":{"type":["string"],"default":"q"}}}`, `null`)
	f.Fuzz(func(t *testing.T, schema, content string) {
		var c map[string]any
		if json.Unmarshal([]byte(content), &c) != nil {
			return
		}
		got := ApplyDefaults(json.RawMessage(schema), c)
		for k, v := range c {
			if !cmp.Equal(got[k], v) {
				t.Fatalf("ApplyDefaults changed the answer %q: %v -> %v", k, v, got[k])
			}
		}
		if again := ApplyDefaults(json.RawMessage(schema), got); !cmp.Equal(again, got) {
			t.Fatalf("ApplyDefaults not idempotent: %v -> %v", got, again)
		}
	})
}
