package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/mcpbridge"
	"github.com/mcpgenai/bridge/mcpbridge/sampling"
)

// samplingFeatures lets the servers ask the chat's model for completions
// (MCP sampling), each request and each answer shown to the user first.
// It returns nil, sampling off, when nobody can be asked.
func samplingFeatures(o *options, con *console, lines *lineReader, models *genai.Models) *mcpbridge.ClientFeatures {
	if o.hasPrompt && !con.isTerminal {
		return nil
	}
	r := &samplingReviewer{lines: lines, out: con.stderr, drain: con.person}
	return &mcpbridge.ClientFeatures{Sampling: &mcpbridge.Sampling{
		Sampler: sampling.Gemini(models, o.model),
		Review:  r.review,
	}}
}

// samplingReviewer asks on the console, one question at a time, whether a
// server's sampling request may go to the model, and whether the model's
// answer may go back to the server.
type samplingReviewer struct {
	mu    sync.Mutex
	lines *lineReader
	out   io.Writer
	drain bool // discard lines typed before a question, as the confirmer does
}

// review implements mcpbridge.Sampling.Review: y or yes approves, n or no
// refuses; another answer is asked again (maxAsks times in all, then
// refused), and the end of input refuses.
func (r *samplingReviewer) review(ctx context.Context, req *sampling.Request, res *sampling.Result) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.drain {
		if n := r.lines.drain(); n > 0 {
			fmt.Fprintf(r.out, "\n(%d line(s) typed before this question were ignored)\n", n)
		}
	}
	question := "Give this answer to the server? [y]es / [n]o: "
	if res == nil {
		fmt.Fprint(r.out, describeSampling(req))
		question = "Send this to the model? [y]es / [n]o: "
	} else {
		fmt.Fprintf(r.out, "\nThe model (%s) answered server %q:\n%s", res.Model, req.Server, describeContent("  ", res.Content))
	}
	for range maxAsks {
		fmt.Fprint(r.out, question)
		line, err := r.lines.next(ctx, nil)
		if errors.Is(err, io.EOF) {
			fmt.Fprintln(r.out, "\nrefused (end of input)")
			return fmt.Errorf("%w: end of input", sampling.ErrRefused)
		}
		if err != nil {
			fmt.Fprintln(r.out, "\ninterrupted: refused")
			return err
		}
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "y", "yes":
			return nil
		case "n", "no":
			fmt.Fprintln(r.out, "refused")
			return fmt.Errorf("%w by the user", sampling.ErrRefused)
		}
		fmt.Fprintf(r.out, "%q is not an answer: type y or n and press Enter\n", strings.TrimSpace(line))
	}
	fmt.Fprintln(r.out, "refused (no answer understood)")
	return fmt.Errorf("%w: no answer understood", sampling.ErrRefused)
}

// describeSampling is what the user is shown about a sampling request.
func describeSampling(req *sampling.Request) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "\nServer %q asks the model for a completion", req.Server)
	if req.ServerTool != "" {
		fmt.Fprintf(&sb, " (during its tool %q)", req.ServerTool)
	}
	fmt.Fprintf(&sb, ":\n  Model:       %s, at most %d tokens\n", req.Model, req.MaxTokens)
	if req.SystemPrompt != "" {
		fmt.Fprintf(&sb, "  System:      %s\n", clip(req.SystemPrompt))
	}
	for _, m := range req.Messages {
		fmt.Fprintf(&sb, "  %s:\n%s", m.Role, describeContent("    ", m.Content))
	}
	if len(req.Tools) > 0 {
		names := make([]string, len(req.Tools))
		for i, t := range req.Tools {
			names[i] = t.Name
		}
		fmt.Fprintf(&sb, "  Tools:       %s (the server runs them, not this program)\n", strings.Join(names, ", "))
	}
	return sb.String()
}

// describeContent lists content blocks, one a line, under indent.
func describeContent(indent string, cs []sampling.Content) string {
	var sb strings.Builder
	for _, c := range cs {
		sb.WriteString(indent)
		switch c.Type {
		case sampling.TypeText:
			sb.WriteString(clip(c.Text))
		case sampling.TypeImage, sampling.TypeAudio:
			fmt.Fprintf(&sb, "[%s %s, %d bytes]", c.Type, c.MIMEType, len(c.Data))
		case sampling.TypeToolUse:
			fmt.Fprintf(&sb, "[call %s %v]", c.Name, c.Input)
		case sampling.TypeToolResult:
			fmt.Fprintf(&sb, "[result of %s]\n%s", c.ID, strings.TrimSuffix(describeContent(indent+"  ", c.Content), "\n"))
		default:
			fmt.Fprintf(&sb, "[%s]", c.Type)
		}
		sb.WriteString("\n")
	}
	return sb.String()
}

// clip shortens s to 500 characters and one line per line break kept.
func clip(s string) string {
	if r := []rune(s); len(r) > 500 {
		s = string(r[:500]) + "…"
	}
	return strings.ReplaceAll(s, "\n", " ⏎ ")
}
