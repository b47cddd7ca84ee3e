package stream

import (
	"fmt"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/mcpbridge/agent/internal/streamargs"
)

// streamed reports whether fc is a piece of a call streamed in pieces.
func streamed(fc *genai.FunctionCall) bool {
	return len(fc.PartialArgs) > 0 || continues(fc)
}

// continues reports whether fc says more pieces of its call follow.
func continues(fc *genai.FunctionCall) bool {
	return fc.WillContinue != nil && *fc.WillContinue
}

// empty reports whether fc carries nothing: the end of a streamed call.
func empty(fc *genai.FunctionCall) bool {
	return fc.Name == "" && fc.ID == "" && len(fc.Args) == 0 && len(fc.PartialArgs) == 0 && !continues(fc)
}

// callName names a call for errors.
func callName(fc *genai.FunctionCall) string {
	if fc.ID != "" {
		return fmt.Sprintf("function call %q (id %q)", fc.Name, fc.ID)
	}
	return fmt.Sprintf("function call %q", fc.Name)
}

// piece adds p, a function-call part, while a call streams its pieces,
// right after one ended, or when p begins one.
func (a *Accumulator) piece(p *genai.Part) error {
	fc := p.FunctionCall
	if a.open == nil {
		ended := a.ended
		a.ended = false
		switch {
		case ended && empty(fc):
			return nil // the end of the call just streamed
		case !streamed(fc):
			a.parts = append(a.parts, p)
			return nil
		case fc.Name == "":
			return fmt.Errorf("%w: a function call streamed in pieces begins without a name", a.partial())
		case len(fc.Args) > 0:
			return fmt.Errorf("%s: %w: it carries both args and partialArgs", callName(fc), a.partial())
		}
		part := *p
		part.FunctionCall = &genai.FunctionCall{ID: fc.ID, Name: fc.Name}
		a.open = &streamedCall{part: &part, asm: streamargs.New(a.limits)}
		a.parts = append(a.parts, &part)
	} else {
		call := a.open.part.FunctionCall
		switch {
		case fc.Name != "" && fc.Name != call.Name:
			return fmt.Errorf("%s: %w: a call to %q began before its last piece", callName(call), a.partial(), fc.Name)
		case fc.ID != "" && call.ID != "" && fc.ID != call.ID:
			return fmt.Errorf("%s: %w: a call with id %q began before its last piece", callName(call), a.partial(), fc.ID)
		case len(fc.Args) > 0:
			return fmt.Errorf("%s: %w: a piece carries args", callName(call), a.partial())
		}
		if call.ID == "" {
			call.ID = fc.ID
		}
		if len(a.open.part.ThoughtSignature) == 0 {
			a.open.part.ThoughtSignature = p.ThoughtSignature
		}
	}
	call := a.open.part.FunctionCall
	if err := a.open.asm.Add(fc.PartialArgs); err != nil {
		return fmt.Errorf("%s: %w: %w", callName(call), a.partial(), err)
	}
	if continues(fc) {
		return nil
	}
	args, err := a.open.asm.Args()
	if err != nil { // cannot happen: Add would have failed
		return fmt.Errorf("%s: %w: %w", callName(call), a.partial(), err)
	}
	call.Args = args
	a.open, a.ended = nil, true
	return nil
}
