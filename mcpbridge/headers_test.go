package mcpbridge

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
)

// TestParamHeaderAnnotations: on 2026-07-28 streamable HTTP, a tool whose
// x-mcp-header annotation breaks SEP-2243's rules is not registered, the
// status says why, and its sibling is declared and called with its
// annotated arguments mirrored into Mcp-Param headers.
func TestParamHeaderAnnotations(t *testing.T) {
	srv := testserver.ServeHTTP(t, testserver.Options{Era: testserver.EraModern, Headers: true}, false)
	b := newBridge(t, nil, ServerConfig{Name: "web", HTTPURL: srv.URL, Trust: true, Timeout: 10 * time.Second})
	discover(t, b)
	st := b.Status().Servers[0]
	if st.State != Connected {
		t.Fatalf("status = %v (%s), want CONNECTED", st.State, st.Error)
	}
	var names []string
	for _, tool := range b.Tools() {
		names = append(names, tool.ServerTool)
	}
	if strings.Contains(strings.Join(names, ","), "header_bad") {
		t.Errorf("tools = %v, want header_bad left out", names)
	}
	if len(st.Skipped) != 1 || st.Skipped[0].ServerTool != "header_bad" || !strings.Contains(st.Skipped[0].Reason, "x-mcp-header") {
		t.Errorf("Skipped = %+v, want header_bad with an x-mcp-header reason", st.Skipped)
	}
	if r := b.Execute(t.Context(), &genai.FunctionCall{Name: "header_bad", Args: map[string]any{"value": "x"}}); r.Err == nil {
		t.Errorf("calling header_bad succeeded (%q), want an unknown-function error", r.ReturnDisplay)
	}
	got := headerCall(t, b, map[string]any{"region": "us-west1", "verbose": true})
	want := headerEcho{Arguments: map[string]any{"region": "us-west1", "verbose": true}, Headers: map[string]string{"Mcp-Param-Region": "us-west1", "Mcp-Param-Verbose": "true"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("header_ok saw (-want +got):\n%s", diff)
	}
}

// TestOptionalNull: a model's null for a property the tool does not
// require, whose schema takes no null, is left out of the call (and so
// of its Mcp-Param header); a null for a required property is an error the
// model can read, and the server is not called.
func TestOptionalNull(t *testing.T) {
	srv := testserver.ServeHTTP(t, testserver.Options{Era: testserver.EraModern, Headers: true}, false)
	b := newBridge(t, nil, ServerConfig{Name: "web", HTTPURL: srv.URL, Trust: true, Timeout: 10 * time.Second})
	discover(t, b)
	got := headerCall(t, b, map[string]any{"region": "us-east1", "verbose": nil})
	want := headerEcho{Arguments: map[string]any{"region": "us-east1"}, Headers: map[string]string{"Mcp-Param-Region": "us-east1"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("header_ok saw (-want +got):\n%s", diff)
	}
	r := b.Execute(t.Context(), &genai.FunctionCall{Name: "header_ok", Args: map[string]any{"region": nil}})
	if r.Err == nil || !strings.Contains(r.Err.Error(), "region") {
		t.Errorf("null for the required region: err = %v, want an invalid-argument error naming it", r.Err)
	}
}

type headerEcho struct {
	Arguments map[string]any    `json:"arguments"`
	Headers   map[string]string `json:"headers"`
}

// headerCall calls header_ok with args and returns what the server saw.
func headerCall(t *testing.T, b *Bridge, args map[string]any) headerEcho {
	t.Helper()
	r := b.Execute(t.Context(), &genai.FunctionCall{Name: "header_ok", Args: args})
	if r.Err != nil {
		t.Fatalf("header_ok(%v): %v", args, r.Err)
	}
	var e headerEcho
	if err := json.Unmarshal([]byte(r.ReturnDisplay), &e); err != nil {
		text := strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(r.ReturnDisplay), "```json\n"), "\n```")
		if err := json.Unmarshal([]byte(text), &e); err != nil {
			t.Fatalf("header_ok's answer %q: %v", r.ReturnDisplay, err)
		}
	}
	return e
}
