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
	"time"

	"github.com/mcpgenai/bridge/confirm"
)

// terminalConfirmer asks the user on the console whether a tool call may
// run. The Policy calls it for one request at a time.
type terminalConfirmer struct {
	lines *lineReader
	out   io.Writer
	// drain discards the lines typed before a question (a person at a
	// terminal); scripted input is kept.
	drain bool
	mu    *sync.Mutex // held while asking (shared with the elicitor); nil: none
}

// Confirm shows req and reads the answer: o, t, s or c (once, tool, server,
// cancel; y or yes is once, n or no is cancel). With c.drain, lines typed
// before the question was shown are discarded, not taken as its answer. An answer it
// cannot read is repeated back and the question asked again, at most
// maxAsks times in all; then, and at the end of input, the call is
// cancelled. The end of ctx (Ctrl-C) is an error (no answer).
func (c *terminalConfirmer) Confirm(ctx context.Context, req confirm.Request) (confirm.Answer, error) {
	if c.mu != nil {
		c.mu.Lock()
		defer c.mu.Unlock()
	}
	if n := c.drainTypeAhead(); n > 0 {
		fmt.Fprintf(c.out, "\n(%d line(s) typed before this question were ignored)\n", n)
	}
	fmt.Fprint(c.out, describe(req))
	for range maxAsks {
		fmt.Fprint(c.out, "Allow? [o]nce / [t]ool always / [s]erver always / [c]ancel: ")
		line, err := c.lines.next(ctx, nil)
		if errors.Is(err, io.EOF) {
			fmt.Fprintln(c.out, "\ncancelled (end of input)")
			return confirm.Cancel, nil
		}
		if err != nil {
			fmt.Fprintln(c.out, "\ninterrupted: the call does not run")
			return confirm.Cancel, err
		}
		a, ok := parseAnswer(line)
		if !ok {
			fmt.Fprintf(c.out, "%q is not an answer: type o, t, s or c and press Enter\n", strings.TrimSpace(line))
			continue
		}
		if a == confirm.Cancel {
			fmt.Fprintln(c.out, "cancelled")
		}
		return a, nil
	}
	fmt.Fprintln(c.out, "cancelled (no answer understood)")
	return confirm.Cancel, nil
}

// drainTypeAhead discards typed-ahead lines when c.drain is set and
// returns how many.
func (c *terminalConfirmer) drainTypeAhead() int {
	if !c.drain {
		return 0
	}
	return c.lines.drain()
}

// maxAsks is how many times one confirmation question is asked at most.
const maxAsks = 3

// parseAnswer reads an answer to the confirmation question, in any case;
// ok is false for a line that is none.
func parseAnswer(line string) (a confirm.Answer, ok bool) {
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "o", "once", "y", "yes":
		return confirm.ProceedOnce, true
	case "t", "tool":
		return confirm.AlwaysTool, true
	case "s", "server":
		return confirm.AlwaysServer, true
	case "c", "cancel", "n", "no":
		return confirm.Cancel, true
	}
	return confirm.Cancel, false
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
	return &lineReader{r: r, lines: make(chan string, typeAheadLines), done: make(chan struct{})}
}

// typeAheadLines is how many lines the reader holds before they are asked
// for.
const typeAheadLines = 64

// pending reports how many lines are read and not yet asked for.
func (l *lineReader) pending() int { return len(l.lines) }

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

// drain discards the lines typed but not yet asked for, and returns how
// many there were: those already read, and those that follow each other
// within typeAheadGap.
func (l *lineReader) drain() int {
	l.start.Do(func() { go l.read() })
	n := 0
	t := time.NewTimer(typeAheadGap)
	defer t.Stop()
	for {
		select {
		case _, ok := <-l.lines:
			if !ok {
				return n
			}
			n++
			t.Reset(typeAheadGap)
		case <-t.C:
			return n
		}
	}
}

// typeAheadGap is how long drain waits for a further typed-ahead line.
const typeAheadGap = 30 * time.Millisecond

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
