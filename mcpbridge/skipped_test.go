package mcpbridge

import "testing"

func TestSkippedText(t *testing.T) {
	tests := []struct {
		name string
		in   []DroppedTool
		want string
	}{
		{"none", nil, ""},
		{"one", []DroppedTool{{Server: "s", ServerTool: "deep_tool", Reason: "schema nests deeper than 2000 levels"}},
			"deep_tool (schema nests deeper than 2000 levels)"},
		{"no name", []DroppedTool{{Server: "s", Reason: "no name"}, {Server: "s", ServerTool: "x", Reason: "listed twice; the first kept"}},
			"(no name) (no name), x (listed twice; the first kept)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := skippedText(tt.in); got != tt.want {
				t.Errorf("skippedText() = %q, want %q", got, tt.want)
			}
		})
	}
}
