package mcpbridge

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpgenai/bridge/confirm"
	"github.com/mcpgenai/bridge/mcpbridge/internal/mcpconn"
	"github.com/mcpgenai/bridge/registry"
	"github.com/mcpgenai/bridge/schema"
)

func TestConvertToolsFilters(t *testing.T) {
	listed := []mcpconn.Tool{
		{Name: "read", InputSchema: json.RawMessage(`{"type":"object","properties":{"p":{"type":"string"}}}`)},
		{Name: "write"},
		{Name: "delete"},
		{Name: "search", InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"enum":[1,2]}}}`)},
	}
	tests := []struct {
		name             string
		include, exclude []string
		want             []string
	}{
		{"no filters", nil, nil, []string{"read", "write", "delete", "search"}},
		{"include", []string{"read", "search(query)"}, nil, []string{"read", "search"}},
		{"exclude", nil, []string{"delete"}, []string{"read", "write", "search"}},
		{"exclude wins", []string{"read", "delete"}, []string{"delete"}, []string{"read"}},
		{"nothing left", []string{"other"}, nil, []string{}},
		{"empty include", []string{}, nil, []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := ServerConfig{Name: "s", IncludeTools: tc.include, ExcludeTools: tc.exclude}
			got := toolNames(convertTools(&cfg, listed, schema.Options{}, quiet()))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("convertTools(include %v, exclude %v) (-want +got):\n%s", tc.include, tc.exclude, diff)
			}
		})
	}
}

func TestNewTool(t *testing.T) {
	yes := true
	raw := mcpconn.Tool{
		Name: "fetch", Title: "Fetch", Description: "fetches a URL",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","enum":[1,2]}}}`),
		Annotations: mcpconn.Annotations{Title: "Fetch it", ReadOnlyHint: &yes},
	}
	cfg := ServerConfig{Name: "web", Command: "x", Trust: true, Timeout: 3 * time.Second}
	defs := convertTools(&cfg, []mcpconn.Tool{raw}, schema.Options{}, quiet())
	if len(defs) != 1 {
		t.Fatalf("convertTools() = %d tools, want 1", len(defs))
	}
	e := registry.Entry{Name: "web__fetch", Server: "web", ServerTool: "fetch", Reason: registry.Prefixed, Wanted: "fetch", Holder: "files"}
	got := newTool(e, defs[0], &cfg)
	want := &Tool{
		Name: "web__fetch", Server: "web", ServerTool: "fetch", Renamed: `prefixed: "fetch" belongs to server "files"`,
		Title: "Fetch", Description: "fetches a URL",
		Annotations: confirm.Annotations{Title: "Fetch it", ReadOnlyHint: &yes},
		Declaration: defs[0].conv.Declaration("web__fetch", "fetches a URL"),
		Changes:     defs[0].conv.Changes,
		// {"description":"fetches a URL","name":"web__fetch","parameters":{...}}
		Size:  schema.Size(len(`{"description":"fetches a URL","name":"web__fetch","parameters":{"properties":{"n":{"enum":["1","2"],"type":"STRING"}},"type":"OBJECT"}}`)),
		Trust: true, Timeout: 3 * time.Second, maxCall: defaultMaxCallTime,
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(Tool{}), cmp.FilterPath(func(p cmp.Path) bool {
		return p.Last().String() == ".def" || p.Last().String() == ".lex"
	}, cmp.Ignore())); diff != "" {
		t.Errorf("newTool() (-want +got):\n%s", diff)
	}
	if len(got.Changes) == 0 {
		t.Error("Changes empty, want the stringified enum reported")
	}
	if r := got.restorer().Restore(map[string]any{"n": "2"}); !cmp.Equal(r, map[string]any{"n": json.Number("2")}) && !cmp.Equal(r, map[string]any{"n": float64(2)}) && !cmp.Equal(r, map[string]any{"n": int64(2)}) {
		t.Errorf("restorer().Restore({n: \"2\"}) = %#v, want the number 2 back", r)
	}
	if string(got.InputSchema()) != string(raw.InputSchema) {
		t.Errorf("InputSchema() = %s, want %s", got.InputSchema(), raw.InputSchema)
	}
}
