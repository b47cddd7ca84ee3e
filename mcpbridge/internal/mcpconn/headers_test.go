package mcpconn

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

func TestParamHeaderError(t *testing.T) {
	for _, tc := range []struct {
		name, schema string
		ok           bool
	}{
		{"none", `{"type":"object","properties":{"a":{"type":"string"}}}`, true},
		{"valid", `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"Region"}}}`, true},
		{"no schema", ``, true},
		{"not an object", `[1,2]`, true},
		{"empty", `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":""}}}`, false},
		{"null", `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":null}}}`, false},
		{"object type", `{"type":"object","properties":{"a":{"type":"object","x-mcp-header":"A"}}}`, false},
		{"number type", `{"type":"object","properties":{"a":{"type":"number","x-mcp-header":"A"}}}`, false},
		{"space", `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"A B"}}}`, false},
		{"colon", `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"A:B"}}}`, false},
		{"non-ASCII", `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"Régión"}}}`, false},
		{"duplicate in another case", `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"Region"},"b":{"type":"string","x-mcp-header":"REGION"}}}`, false},
		{"key in another case", `{"type":"object","properties":{"a":{"type":"object","X-Mcp-HEADER":"A"}}}`, false},
		{"key escaped", `{"type":"object","properties":{"a":{"type":"object","x-mcp-\u0068eader":"A"}}}`, false},
		{"nested duplicate", `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"R"},"o":{"type":"object","properties":{"b":{"type":"integer","x-mcp-header":"r"}}}}}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := paramHeaderError(json.RawMessage(tc.schema))
			if (err == nil) != tc.ok {
				t.Errorf("paramHeaderError(%s) = %v, want ok %v", tc.schema, err, tc.ok)
			}
		})
	}
}

// FuzzParamHeaders: for any input schema and arguments, paramHeaderError
// never panics, and a schema it accepts mirrors arguments only into
// distinct Mcp-Param headers with token names and values that an HTTP
// header can carry (no control characters, no leading or trailing space).
func FuzzParamHeaders(f *testing.F) {
	f.Add(`{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"Region"},"b":{"type":["integer","null"],"x-mcp-header":"N"}}}`, `{"a":" padded\r\n","b":3}`)
	f.Add(`{"type":"object","properties":{"a":{"type":"boolean","x-mcp-header":"V"}}}`, `{"a":null}`)
	f.Add(`{"properties":{"o":{"type":"object","properties":{"x":{"type":"string","x-mcp-header":"X"}}}}}`, `{"o":{"x":"世界"}}`)
	f.Add(`{"properties":{"a":{"type":"string","x-mcp-header":"a b"}}}`, `{}`)
	f.Add(`{"properties":{"a":{"type":"string","X-MCP-Header":"a b"}}}`, `{"a":"x"}`)
	f.Add(`{"properties":{"a":{"type":"string","x-mcp-\u0068eader":"R"}}}`, `{"a":"x"}`)
	f.Fuzz(func(t *testing.T, schema, args string) {
		if !mayAnnotate([]byte(schema)) {
			// Skipping the validator is safe only where mcp-go finds no
			// annotation either.
			tool := &mcp.Tool{RawInputSchema: json.RawMessage(schema)}
			if err := mcp.ValidateParamHeaderAnnotations(tool); err != nil || len(mcp.ExtractParamHeaderBindings(tool)) > 0 {
				t.Fatalf("mayAnnotate(%s) = false, yet mcp-go finds annotations (%v)", schema, err)
			}
		}
		if paramHeaderError(json.RawMessage(schema)) != nil {
			return
		}
		tool := &mcp.Tool{RawInputSchema: json.RawMessage(schema)}
		seen := map[string]bool{}
		for _, b := range mcp.ExtractParamHeaderBindings(tool) {
			name := strings.ToLower(b.Header)
			if seen[name] {
				t.Fatalf("accepted schema binds %q twice", b.Header)
			}
			seen[name] = true
		}
		params, err := json.Marshal(map[string]json.RawMessage{"name": json.RawMessage(`"t"`), "arguments": json.RawMessage(args)})
		if err != nil {
			return // args is not JSON
		}
		for k, v := range mcp.GenerateParamHeaders(tool, params) {
			if !strings.HasPrefix(k, mcp.HeaderParamPrefix) {
				t.Fatalf("header %q lacks the Mcp-Param- prefix", k)
			}
			for _, c := range k + v {
				if c < 0x20 || c > 0x7e {
					t.Fatalf("header %q: %q carries %q", k, v, c)
				}
			}
			if strings.TrimSpace(v) != v {
				t.Fatalf("header %q: %q has surrounding space", k, v)
			}
		}
	})
}

// FuzzToolsStub: for any tools/list result, the stub mcp-go's client is
// handed (see toolsStub) makes it fail only where the listing did, and it
// remembers from the stub, for every tool, the x-mcp-header bindings that
// it finds in the tool as the server listed it: the same headers for the
// tool's calls.
func FuzzToolsStub(f *testing.F) {
	f.Add(`{"tools":[{"name":"a","inputSchema":{"type":"object","properties":{"r":{"type":"string","x-mcp-header":"Region"}}}},{"name":"b","description":"line\nnext","inputSchema":{"type":"object"}}],"nextCursor":"x"}`)
	f.Add(`{"tools":[{"name":"a","inputSchema":{"properties":{"r":{"type":"string","X-MCP-Header":"R"}}}},{"name":5},"text",{"name":"c","description":7}]}`)
	f.Add(`{"tools":[{"name":"\u0061","inputSchema":{"properties":{"r":{"type":"string","x-mcp-\u0068eader":"R"}}}}]}`)
	f.Add(`{"tools":null}`)
	f.Add(`[]`)
	f.Fuzz(func(t *testing.T, raw string) {
		stub := toolsStub(json.RawMessage(raw))
		var page struct {
			Tools []json.RawMessage `json:"tools"`
		}
		if json.Unmarshal([]byte(raw), &page) != nil || page.Tools == nil {
			if string(stub) != raw {
				t.Fatalf("toolsStub(%s) = %s, want it unchanged", raw, stub)
			}
			return
		}
		var got mcp.ListToolsResult
		if err := json.Unmarshal(stub, &got); err != nil {
			var listed mcp.ListToolsResult
			if json.Unmarshal([]byte(raw), &listed) == nil {
				t.Fatalf("mcp-go reads %s, not toolsStub's %s: %v", raw, stub, err)
			}
			return
		}
		// Each entry mcp-go reads as a named tool, alone, is in the stub
		// in its order with the same bindings.
		var want []mcp.Tool
		for _, e := range page.Tools {
			var tool mcp.Tool
			var named struct {
				Name json.RawMessage `json:"name"`
			}
			if json.Unmarshal(e, &tool) != nil || json.Unmarshal(e, &named) != nil || len(named.Name) == 0 || named.Name[0] != '"' {
				continue
			}
			want = append(want, tool)
		}
		j := 0
		for _, w := range want {
			for j < len(got.Tools) && got.Tools[j].Name != w.Name {
				j++
			}
			if j == len(got.Tools) {
				t.Fatalf("tool %q of %s is not in the stub %s", w.Name, raw, stub)
			}
			if a, b := fmt.Sprint(mcp.ExtractParamHeaderBindings(&w)), fmt.Sprint(mcp.ExtractParamHeaderBindings(&got.Tools[j])); a != b {
				t.Fatalf("tool %q: bindings %s in the listing, %s in the stub %s", w.Name, a, b, stub)
			}
			j++
		}
	})
}

func TestMayAnnotate(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		want bool
	}{
		{`{"type":"object","properties":{"a":{"type":"string"}}}`, false},
		{`{"description":"one\nline \"quoted\" \\ and \/ \t"}`, false},
		{`{"properties":{"a":{"x-mcp-header":"R"}}}`, true},
		{`{"properties":{"a":{"X-MCP-Header":"R"}}}`, true},
		{`{"properties":{"a":{"x-mcp-\u0068eader":"R"}}}`, true},
		{`{"description":"\u00e9t\u00e9"}`, true}, // any \u escape may spell the key
		{`{"description":"a \\u0068 b"}`, true},   // an escaped backslash: still looked at
		{`{"description":"x-mcp-heade"}`, false},
	} {
		if got := mayAnnotate([]byte(tc.raw)); got != tc.want {
			t.Errorf("mayAnnotate(%s) = %v, want %v", tc.raw, got, tc.want)
		}
	}
}
