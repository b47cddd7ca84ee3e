package tasks

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestParseInputRequests(t *testing.T) {
	many := map[string]any{}
	for i := range MaxInputRequests + 1 {
		many[strings.Repeat("k", i+1)] = map[string]any{"method": "roots/list"}
	}
	manyRaw, _ := json.Marshal(many)
	tests := []struct {
		raw  string
		keys int
		err  error
	}{
		{raw: ``, keys: 0},
		{raw: `null`, keys: 0},
		{raw: `{}`, keys: 0},
		{raw: `{"a":{"method":"elicitation/create","params":{"message":"?"}},"b":{"method":"roots/list"}}`, keys: 2},
		{raw: `[]`, err: ErrMalformed},
		{raw: `"a"`, err: ErrMalformed},
		{raw: `{"a":{}}`, err: ErrMalformed},
		{raw: `{"a":{"method":7}}`, err: ErrMalformed},
		{raw: `{"a":"roots/list"}`, err: ErrMalformed},
		{raw: `{"a":null}`, err: ErrMalformed},
		{raw: `{"":{"method":"roots/list"}}`, err: ErrMalformed},
		{raw: `{"` + strings.Repeat("k", MaxInputKeyBytes+1) + `":{"method":"roots/list"}}`, err: ErrMalformed},
		{raw: string(manyRaw), err: ErrMalformed},
	}
	for _, tt := range tests {
		got, err := ParseInputRequests(json.RawMessage(tt.raw))
		if !errors.Is(err, tt.err) || (err == nil && len(got) != tt.keys) {
			t.Errorf("ParseInputRequests(%.80s) = %d requests, %v; want %d, %v", tt.raw, len(got), err, tt.keys, tt.err)
		}
	}
}

// FuzzParseInputRequests checks that any bytes give requests within bounds
// or an error, never a panic.
func FuzzParseInputRequests(f *testing.F) {
	f.Add([]byte(`{"a":{"method":"elicitation/create","params":{"mode":"form","message":"?"}}}`))
	f.Add([]byte(`{"r":{"method":"roots/list"},"s":{"method":"sampling/createMessage","params":{}}}`))
	f.Add([]byte(`{"a":{}}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, err := ParseInputRequests(raw)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error %v does not wrap ErrMalformed", err)
			}
			return
		}
		if len(got) > MaxInputRequests {
			t.Fatalf("%d requests accepted", len(got))
		}
		for k, r := range got {
			var m struct {
				Method string `json:"method"`
			}
			if k == "" || len(k) > MaxInputKeyBytes || json.Unmarshal(r, &m) != nil || m.Method == "" {
				t.Fatalf("request %q = %s accepted", k, r)
			}
		}
	})
}
