package mcpbridge

import (
	"context"
	"fmt"

	"github.com/mcpgenai/bridge/mcpbridge/internal/roots"
	"github.com/mcpgenai/bridge/mcpbridge/internal/serverlog"
)

// ClientFeatures are what the host offers the servers that ask something of
// it while they work: the MCP client features. Each nil or zero field
// offers nothing of its kind, and a server is told only of what is offered.
// The Bridge reads the fields once, in [New]; it does not modify them.
type ClientFeatures struct {
	// Elicit asks the user what a server wants to know during a tool call
	// (a form or a URL, see [Elicitation]), in either protocol era, and
	// returns the answer. It is called concurrently for different calls
	// and should return promptly once ctx is done. An error means no
	// answer: the tool call fails with it. nil offers no elicitation:
	// servers are told the host cannot ask, and one that asks anyway gets
	// an error (as does its tool call), never a "decline" nobody gave.
	Elicit func(ctx context.Context, e Elicitation) (ElicitResponse, error)
	// Sampling, when not nil, lets servers ask the host's model for
	// completions (see [Sampling]); nil declares no sampling, and a
	// server's request is refused.
	Sampling *Sampling
	// Roots are the directories and files offered to every server as the
	// places it may work in (MCP roots: file: URIs, see [Root] and
	// [DirRoot]). nil offers no roots; a non-nil empty slice offers the
	// capability with no roots yet. [Bridge.SetRoots] changes them while
	// running. [New] refuses a root whose URI is not an absolute file:
	// URI.
	Roots []Root
	// LogLevel is the least severity of the log messages asked of the
	// servers that offer logging: sent with logging/setLevel once
	// connected, or on 2026-07-28 with every request. The messages go to
	// [Options.Logger] (see [LogLevel]). "" asks for no level: a server
	// then sends what it chooses, which goes to the Logger all the same.
	LogLevel LogLevel
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

// check reports the first field of f [New] refuses.
func (f *ClientFeatures) check() error {
	if f == nil {
		return nil
	}
	if f.LogLevel != "" && !serverlog.Valid(string(f.LogLevel)) {
		return fmt.Errorf("client features: log level %q is not one of debug, info, notice, warning, error, critical, alert, emergency", f.LogLevel)
	}
	for _, r := range f.Roots {
		if err := roots.Check(r.URI); err != nil {
			return fmt.Errorf("client features: %w", err)
		}
	}
	return nil
}

// rootSet returns the roots f offers; nil when none.
func (f *ClientFeatures) rootSet() *rootSet {
	if f == nil {
		return nil
	}
	return newRootSet(f.Roots)
}

// logLevel returns f's LogLevel, or "".
func (f *ClientFeatures) logLevel() LogLevel {
	if f == nil {
		return ""
	}
	return f.LogLevel
}
