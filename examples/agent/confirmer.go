package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/mcpgenai/bridge/confirm"
)

// terminalConfirmer asks the user on the console whether a tool call may
// run. The Policy calls it for one request at a time.
type terminalConfirmer struct {
	lines *lineReader
	out   io.Writer
}

// Confirm shows req and reads the answer: o, t, s or c (or once, tool,
// server, cancel). Anything else and the end of input are Cancel; the end
// of ctx is an error (no answer).
func (c *terminalConfirmer) Confirm(ctx context.Context, req confirm.Request) (confirm.Answer, error) {
	fmt.Fprint(c.out, describe(req))
	fmt.Fprint(c.out, "Allow? [o]nce / [t]ool always / [s]erver always / [c]ancel: ")
	line, err := c.lines.next(ctx, nil)
	if errors.Is(err, io.EOF) {
		fmt.Fprintln(c.out, "\ncancelled (end of input)")
		return confirm.Cancel, nil
	}
	if err != nil {
		fmt.Fprintln(c.out)
		return confirm.Cancel, err
	}
	a := parseAnswer(line)
	if a == confirm.Cancel {
		fmt.Fprintln(c.out, "cancelled")
	}
	return a, nil
}

// parseAnswer reads an answer to the confirmation question; anything but
// o, t, s (or once, tool, server, in any case) is Cancel.
func parseAnswer(line string) confirm.Answer {
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "o", "once":
		return confirm.ProceedOnce
	case "t", "tool":
		return confirm.AlwaysTool
	case "s", "server":
		return confirm.AlwaysServer
	}
	return confirm.Cancel
}

// describe is what the user is shown about a call to confirm.
func describe(req confirm.Request) string {
	var sb strings.Builder
	sb.WriteString("\nThe model wants to run a tool:\n")
	fmt.Fprintf(&sb, "  Server:      %s\n", req.Server)
	tool := req.ServerTool
	if req.Name != req.ServerTool {
		tool += fmt.Sprintf(" (called as %s)", req.Name)
	}
	if req.Annotations.Title != "" {
		tool += fmt.Sprintf(" %q", req.Annotations.Title)
	}
	fmt.Fprintf(&sb, "  Tool:        %s\n", tool)
	args, err := json.Marshal(req.Args)
	if err != nil || req.Args == nil {
		args = []byte("{}")
	}
	fmt.Fprintf(&sb, "  Arguments:   %s\n", args)
	if d := strings.TrimSpace(req.Description); d != "" {
		fmt.Fprintf(&sb, "  Description: %s\n", strings.ReplaceAll(d, "\n", "\n               "))
	}
	fmt.Fprintf(&sb, "  Annotations: %s\n", annotations(req.Annotations))
	return sb.String()
}

// annotations lists the hints the server gave, in a fixed order.
func annotations(an confirm.Annotations) string {
	var hints []string
	for _, h := range []struct {
		name string
		v    *bool
	}{
		{"readOnlyHint", an.ReadOnlyHint},
		{"destructiveHint", an.DestructiveHint},
		{"idempotentHint", an.IdempotentHint},
		{"openWorldHint", an.OpenWorldHint},
	} {
		if h.v != nil {
			hints = append(hints, fmt.Sprintf("%s=%t", h.name, *h.v))
		}
	}
	if len(hints) == 0 {
		return "none given"
	}
	return strings.Join(hints, ", ")
}

// lineReader reads the lines of the console's input for both the chat and
// the confirmation questions. Its goroutine starts on the first read, so a
// run that never reads never touches the input, and ends at the end of input
// or at stop.
type lineReader struct {
	r     io.Reader
	start sync.Once
	lines chan string // closed at the end of input
	done  chan struct{}
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{r: r, lines: make(chan string), done: make(chan struct{})}
}

// next returns the next line without its line ending; io.EOF at the end of
// input, ctx's error when ctx ends, errInterrupted when interrupt delivers
// (nil: never).
func (l *lineReader) next(ctx context.Context, interrupt <-chan os.Signal) (string, error) {
	l.start.Do(func() { go l.read() })
	select {
	case s, ok := <-l.lines:
		if !ok {
			return "", io.EOF
		}
		return s, nil
	case <-ctx.Done():
		return "", ctx.Err()
	case <-interrupt:
		return "", errInterrupted
	}
}

// read feeds lines until the end of input (a read error counts as one) or
// stop.
func (l *lineReader) read() {
	defer close(l.lines)
	br := bufio.NewReader(l.r)
	for {
		s, err := br.ReadString('\n')
		if s != "" {
			select {
			case l.lines <- strings.TrimRight(s, "\r\n"):
			case <-l.done:
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// stop ends the reading goroutine once its current read returns. Call it
// once, when no more lines are wanted.
func (l *lineReader) stop() { close(l.done) }
