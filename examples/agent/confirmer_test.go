package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpgenai/bridge/confirm"
)

func TestParseAnswer(t *testing.T) {
	for _, tc := range []struct {
		line string
		want confirm.Answer
	}{
		{"o", confirm.ProceedOnce},
		{" Once \r", confirm.ProceedOnce},
		{"t", confirm.AlwaysTool},
		{"TOOL", confirm.AlwaysTool},
		{"s", confirm.AlwaysServer},
		{"server", confirm.AlwaysServer},
		{"c", confirm.Cancel},
		{"", confirm.Cancel},
		{"y", confirm.Cancel},
		{"always", confirm.Cancel},
	} {
		t.Run(tc.line, func(t *testing.T) {
			if got := parseAnswer(tc.line); got != tc.want {
				t.Errorf("parseAnswer(%q) = %v, want %v", tc.line, got, tc.want)
			}
		})
	}
}

func TestDescribe(t *testing.T) {
	yes, no := true, false
	for _, tc := range []struct {
		name string
		req  confirm.Request
		want string
	}{
		{
			name: "renamed tool with hints",
			req: confirm.Request{
				Server: "files", ServerTool: "delete", Name: "files__delete",
				Args:        map[string]any{"path": "/tmp/x", "force": true},
				Description: "Delete a file.\nThere is no undo.",
				Annotations: confirm.Annotations{Title: "Delete", ReadOnlyHint: &no, DestructiveHint: &yes},
			},
			want: `
The model wants to run a tool:
  Server:      files
  Tool:        delete (called as files__delete) "Delete"
  Arguments:   {"force":true,"path":"/tmp/x"}
  Description: Delete a file.
               There is no undo.
  Annotations: readOnlyHint=false, destructiveHint=true
`,
		},
		{
			name: "bare tool",
			req:  confirm.Request{Server: "s", ServerTool: "t", Name: "t"},
			want: `
The model wants to run a tool:
  Server:      s
  Tool:        t
  Arguments:   {}
  Annotations: none given
`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, describe(tc.req)); diff != "" {
				t.Errorf("describe(%+v) (-want +got):\n%s", tc.req, diff)
			}
		})
	}
}
