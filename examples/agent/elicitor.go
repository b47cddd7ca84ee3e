package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/mcpgenai/bridge/mcpbridge"
	"github.com/mcpgenai/bridge/mcpbridge/elicit"
	"github.com/mcpgenai/bridge/mcpbridge/sampling"
)

// terminalElicitor puts a server's questions to the person at the console
// (mcpbridge's ClientFeatures.Elicit): a form field by field, or a page to
// visit. mu is held while asking, and shared with the confirmer, so two
// questions never read the same lines.
type terminalElicitor struct {
	lines *lineReader
	out   io.Writer
	mu    *sync.Mutex
	// drain discards the lines typed before a question (a person at a
	// terminal), as the confirmer does; scripted input is kept.
	drain bool
}

// maxTries is how many times a field is asked again after an answer that
// does not fit it, before the question is cancelled.
const maxTries = 3

// Elicit shows e and reads the person's answer. The end of input cancels;
// the end of ctx is an error (no answer).
func (el *terminalElicitor) Elicit(ctx context.Context, e elicit.Request) (elicit.Response, error) {
	el.mu.Lock()
	defer el.mu.Unlock()
	if el.drain {
		if n := el.lines.drain(); n > 0 {
			fmt.Fprintf(el.out, "\n(%d line(s) typed before this question were ignored)\n", n)
		}
	}
	who := fmt.Sprintf("MCP server %q", e.Server)
	if e.ServerTool != "" {
		who += fmt.Sprintf(" (tool %s)", e.ServerTool)
	}
	if e.URL != "" {
		return el.visit(ctx, who, e)
	}
	fmt.Fprintf(el.out, "\n%s asks: %s\n", who, e.Message)
	fields, err := formFields(e.Schema)
	if err != nil {
		fmt.Fprintf(el.out, "(the form cannot be shown: %v; declined)\n", err)
		return elicit.Response{Action: elicit.Decline}, nil
	}
	choice, err := el.ask(ctx, "[a]nswer / [d]ecline / [c]ancel: ")
	if err != nil || choice != "a" {
		return refusal(choice), err
	}
	content := map[string]any{}
	for _, f := range fields {
		v, ok, err := el.field(ctx, f)
		if err != nil {
			return elicit.Response{Action: elicit.Cancel}, err
		}
		if ok {
			content[f.name] = v
		}
	}
	return elicit.Response{Action: elicit.Accept, Content: content}, nil
}

// visit shows a page to visit and waits until the person says they are
// back (or the server says the visit is complete).
func (el *terminalElicitor) visit(ctx context.Context, who string, e elicit.Request) (elicit.Response, error) {
	fmt.Fprintf(el.out, "\n%s asks you to open a page: %s\n\n  %s\n\n", who, e.Message, e.URL)
	choice, err := el.ask(ctx, "[o]pen it (then come back) / [d]ecline / [c]ancel: ")
	if err != nil || choice != "o" {
		return refusal(choice), err
	}
	fmt.Fprint(el.out, "Press Enter once you are done at the page: ")
	wait, stop := context.WithCancel(ctx)
	defer stop()
	if e.Completed != nil {
		go func() {
			select {
			case <-e.Completed:
				stop()
			case <-wait.Done():
			}
		}()
	}
	_, err = el.lines.next(wait, nil)
	switch {
	case ctx.Err() != nil:
		fmt.Fprintln(el.out)
		return elicit.Response{Action: elicit.Cancel}, ctx.Err()
	case errors.Is(err, io.EOF):
		fmt.Fprintln(el.out, "\ncancelled (end of input)")
		return elicit.Response{Action: elicit.Cancel}, nil
	case err != nil:
		fmt.Fprintln(el.out, "\nthe server says the page is done")
	}
	return elicit.Response{Action: elicit.Accept}, nil
}

// ask shows prompt and returns the first letter of the answer, lower case
// ("c" at the end of input).
func (el *terminalElicitor) ask(ctx context.Context, prompt string) (string, error) {
	fmt.Fprint(el.out, prompt)
	line, err := el.lines.next(ctx, nil)
	if errors.Is(err, io.EOF) {
		fmt.Fprintln(el.out, "\ncancelled (end of input)")
		return "c", nil
	}
	if err != nil {
		fmt.Fprintln(el.out)
		return "c", err
	}
	line = strings.ToLower(strings.TrimSpace(line))
	if line == "" {
		return "c", nil
	}
	return line[:1], nil
}

// refusal is the response to a choice other than answering.
func refusal(choice string) elicit.Response {
	if choice == "d" {
		return elicit.Response{Action: elicit.Decline}
	}
	return elicit.Response{Action: elicit.Cancel}
}

// formField is one field of a form.
type formField struct {
	name, title, typ string
	required         bool
	enum             []string // the allowed values of a string (or of a multi-select's items)
	labels           []string // the enum values' titles, when the schema gives them (else nil)
	multi            bool     // an array of enum strings
	def              string   // the default, shown; "" when none
}

// formFields reads the fields of a form's schema: required ones first,
// then the others, each group by name.
func formFields(schema json.RawMessage) ([]formField, error) {
	var s struct {
		Properties map[string]struct {
			Type        string          `json:"type"`
			Title       string          `json:"title"`
			Description string          `json:"description"`
			Enum        []string        `json:"enum"`
			EnumNames   []string        `json:"enumNames"`
			OneOf       []choice        `json:"oneOf"`
			AnyOf       []choice        `json:"anyOf"`
			Default     json.RawMessage `json:"default"`
			Items       struct {
				Enum  []string `json:"enum"`
				OneOf []choice `json:"oneOf"`
				AnyOf []choice `json:"anyOf"`
			} `json:"items"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if len(schema) == 0 {
		return nil, nil
	}
	if err := json.Unmarshal(schema, &s); err != nil {
		return nil, err
	}
	var out []formField
	for name, p := range s.Properties {
		f := formField{name: name, title: p.Title, typ: p.Type, required: slices.Contains(s.Required, name), enum: p.Enum}
		if f.title == "" {
			f.title = p.Description
		}
		if len(p.EnumNames) == len(p.Enum) {
			f.labels = p.EnumNames // the legacy titled enum
		}
		if f.enum == nil {
			f.enum, f.labels = choices(p.OneOf, p.AnyOf)
		}
		if p.Type == "array" {
			f.multi, f.enum, f.labels = true, p.Items.Enum, nil
			if f.enum == nil {
				f.enum, f.labels = choices(p.Items.OneOf, p.Items.AnyOf)
			}
		}
		if len(p.Default) > 0 {
			f.def = string(p.Default)
		}
		out = append(out, f)
	}
	slices.SortFunc(out, func(a, b formField) int {
		if a.required != b.required {
			if a.required {
				return -1
			}
			return 1
		}
		return strings.Compare(a.name, b.name)
	})
	return out, nil
}

// choice is one titled value of a select: {"const": v, "title": t}.
type choice struct {
	Const *string `json:"const"`
	Title string  `json:"title"`
}

// choices reads the titled values of a select (oneOf, else anyOf): the
// values and their titles, or nils when any entry is not a titled const.
func choices(oneOf, anyOf []choice) (values, titles []string) {
	cs := oneOf
	if len(cs) == 0 {
		cs = anyOf
	}
	for _, c := range cs {
		if c.Const == nil {
			return nil, nil
		}
		values, titles = append(values, *c.Const), append(titles, c.Title)
	}
	return values, titles
}

// options is how f's allowed values are shown: each with its title, if
// any ("hero-1 = Superman").
func (f formField) options(sep string) string {
	if len(f.labels) != len(f.enum) {
		return strings.Join(f.enum, sep)
	}
	shown := make([]string, len(f.enum))
	for i, v := range f.enum {
		shown[i] = v
		if t := f.labels[i]; t != "" && t != v {
			shown[i] += " = " + t
		}
	}
	return strings.Join(shown, sep)
}

// value maps an answer to one of f's values: the value itself, or its
// title in any case.
func (f formField) value(s string) (string, bool) {
	if slices.Contains(f.enum, s) {
		return s, true
	}
	if len(f.labels) == len(f.enum) {
		for i, t := range f.labels {
			if t != "" && strings.EqualFold(t, s) {
				return f.enum[i], true
			}
		}
	}
	return "", false
}

// field asks for one field and returns its value, or ok false when the
// person left an optional field (or one with a default) empty.
func (el *terminalElicitor) field(ctx context.Context, f formField) (any, bool, error) {
	var hint []string
	if f.typ != "" {
		hint = append(hint, f.typ)
	}
	if len(f.enum) > 0 {
		sep := " | "
		if f.multi {
			sep = ", "
		}
		hint = append(hint, "one of "+f.options(sep))
	}
	if f.def != "" {
		hint = append(hint, "default "+f.def)
	}
	if f.required {
		hint = append(hint, "required")
	}
	label := f.name
	if f.title != "" {
		label += " – " + f.title
	}
	for range maxTries {
		fmt.Fprintf(el.out, "  %s (%s): ", label, strings.Join(hint, ", "))
		line, err := el.lines.next(ctx, nil)
		if err != nil {
			fmt.Fprintln(el.out)
			if errors.Is(err, io.EOF) {
				return nil, false, errors.New("end of input")
			}
			return nil, false, err
		}
		line = strings.TrimSpace(line)
		if line == "" && (!f.required || f.def != "") {
			return nil, false, nil
		}
		v, perr := parseField(f, line)
		if perr == nil {
			return v, true, nil
		}
		fmt.Fprintf(el.out, "  %v\n", perr)
	}
	return nil, false, fmt.Errorf("no fitting answer for %q after %d tries", f.name, maxTries)
}

// parseField reads a typed answer to f.
func parseField(f formField, s string) (any, error) {
	switch {
	case f.multi:
		var vs []string
		for _, v := range strings.Split(s, ",") {
			if v = strings.TrimSpace(v); v != "" {
				if len(f.enum) > 0 {
					known, ok := f.value(v)
					if !ok {
						return nil, fmt.Errorf("%q is not one of %s", v, f.options(", "))
					}
					v = known
				}
				vs = append(vs, v)
			}
		}
		return vs, nil
	case f.typ == "integer":
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a whole number", s)
		}
		return n, nil
	case f.typ == "number":
		n, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a number", s)
		}
		return n, nil
	case f.typ == "boolean":
		switch strings.ToLower(s) {
		case "y", "yes", "true":
			return true, nil
		case "n", "no", "false":
			return false, nil
		}
		return nil, fmt.Errorf("%q is not yes or no", s)
	case len(f.enum) > 0:
		v, ok := f.value(s)
		if !ok {
			return nil, fmt.Errorf("%q is not one of %s", s, f.options(" | "))
		}
		return v, nil
	case s == "":
		return nil, errors.New("an answer is required")
	}
	return s, nil
}

// clientFeatures are what the agent offers servers: its working directory
// as the root, the warnings and worse of their log messages (for the
// agent's log, see -log), and, when a person can answer (canAsk), their
// questions put to that person on out; without one nobody is asked, and
// servers are told so. drain is the elicitor's (see terminalElicitor).
func clientFeatures(lines *lineReader, out io.Writer, canAsk, drain bool, tty *sync.Mutex) *mcpbridge.ClientFeatures {
	f := &mcpbridge.ClientFeatures{LogLevel: mcpbridge.LogWarning}
	if root, err := mcpbridge.DirRoot("."); err == nil {
		f.Roots = []mcpbridge.Root{root}
	}
	if canAsk {
		f.Elicit = (&terminalElicitor{lines: lines, out: out, mu: tty, drain: drain}).Elicit
	}
	return f
}

// withSampling returns f with the sampling of s, when s offers any, its
// questions taking tty as the confirmer's and the elicitor's do, so that
// two questions never read the same lines.
func withSampling(f, s *mcpbridge.ClientFeatures, tty *sync.Mutex) *mcpbridge.ClientFeatures {
	if s == nil || s.Sampling == nil {
		return f
	}
	sp := *s.Sampling
	if review := sp.Review; review != nil {
		sp.Review = func(ctx context.Context, req *sampling.Request, res *sampling.Result) error {
			tty.Lock()
			defer tty.Unlock()
			return review(ctx, req, res)
		}
	}
	f.Sampling = &sp
	return f
}
