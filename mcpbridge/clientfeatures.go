package mcpbridge

import "context"

// ClientFeatures are what the host offers the servers that ask something of
// it while they work: the MCP client features. Each nil or zero field
// offers nothing of its kind, and a server is told only of what is offered.
// The Bridge reads the fields once, in [New]; it does not modify them.
type ClientFeatures struct {
	// Elicit asks the user what a server wants to know during a tool call
	// (a form or a URL, see [Elicitation]), in either protocol era, and
	// returns the answer. It is called concurrently for different calls
	// and should return promptly once ctx is done. An error means no
	// answer: the tool call fails with it. nil means every question is
	// declined, and the model reads that it was.
	Elicit func(ctx context.Context, e Elicitation) (ElicitResponse, error)
	// Sampling, when not nil, lets servers ask the host's model for
	// completions (see [Sampling]); nil declares no sampling, and a
	// server's request is refused.
	Sampling *Sampling
}

// elicit reports f's Elicit, or nil when f is nil.
func (f *ClientFeatures) elicit() func(context.Context, Elicitation) (ElicitResponse, error) {
	if f == nil {
		return nil
	}
	return f.Elicit
}

// sampling reports f's Sampling, or nil when f is nil.
func (f *ClientFeatures) sampling() *Sampling {
	if f == nil {
		return nil
	}
	return f.Sampling
}
