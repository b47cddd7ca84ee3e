package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpgenai/bridge/confirm"
)

func TestParseAnswer(t *testing.T) {
	for _, tc := range []struct {
		line string
		want confirm.Answer
		ok   bool
	}{
		{"o", confirm.ProceedOnce, true},
		{" Once \r", confirm.ProceedOnce, true},
		{"y", confirm.ProceedOnce, true},
		{"YES", confirm.ProceedOnce, true},
		{"t", confirm.AlwaysTool, true},
		{"TOOL", confirm.AlwaysTool, true},
		{"s", confirm.AlwaysServer, true},
		{"server", confirm.AlwaysServer, true},
		{"c", confirm.Cancel, true},
		{"no", confirm.Cancel, true},
		{"", confirm.Cancel, false},
		{"always", confirm.Cancel, false},
	} {
		t.Run(tc.line, func(t *testing.T) {
			if got, ok := parseAnswer(tc.line); got != tc.want || ok != tc.ok {
				t.Errorf("parseAnswer(%q) = %v, %t, want %v, %t", tc.line, got, ok, tc.want, tc.ok)
			}
		})
	}
}

// TestConfirmDialog: the dialog as a person meets it, through a pipe fed as
// they type: an answer it cannot read is repeated and asked again, lines
// typed before the question are not its answer, and three unreadable
// answers cancel.
func TestConfirmDialog(t *testing.T) {
	req := confirm.Request{Server: "s", ServerTool: "t", Name: "t"}
	for _, tc := range []struct {
		name      string
		typeAhead string // written before Confirm starts
		answers   string // written once the question is shown
		want      confirm.Answer
		shown     []string
	}{
		{"yes is once", "", "yes\n", confirm.ProceedOnce, nil},
		{"asked again", "", "maybe\nt\n", confirm.AlwaysTool, []string{`"maybe" is not an answer`}},
		{"typed ahead is ignored", "s\n", "c\n", confirm.Cancel, []string{"1 line(s) typed before this question were ignored", "cancelled"}},
		{"three misses cancel", "", "a\nb\nd\no\n", confirm.Cancel, []string{"cancelled (no answer understood)"}},
		{"end of input", "", "", confirm.Cancel, []string{"cancelled (end of input)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pr, pw := io.Pipe()
			lines := newLineReader(pr)
			defer lines.stop()
			var out syncBuffer
			c := &terminalConfirmer{lines: lines, out: &out, drain: true}
			if tc.typeAhead != "" {
				go func() { _, _ = io.WriteString(pw, tc.typeAhead) }()
				// The line is typed ahead once the reader holds it.
				lines.start.Do(func() { go lines.read() })
				for lines.pending() == 0 {
					time.Sleep(time.Millisecond)
				}
			}
			go func() {
				for !strings.Contains(out.String(), "Allow?") {
					time.Sleep(time.Millisecond)
				}
				_, _ = io.WriteString(pw, tc.answers)
				_ = pw.Close()
			}()
			got, err := c.Confirm(context.Background(), req)
			if err != nil || got != tc.want {
				t.Errorf("Confirm() = %v, %v, want %v, nil\n%s", got, err, tc.want, out.String())
			}
			for _, s := range tc.shown {
				if !strings.Contains(out.String(), s) {
					t.Errorf("the dialog did not say %q:\n%s", s, out.String())
				}
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

// syncBuffer is a bytes.Buffer safe for one writer and concurrent readers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
