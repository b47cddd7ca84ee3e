package mcpbridge

import (
	"context"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpgenai/bridge/mcpbridge/elicit"
	"github.com/mcpgenai/bridge/mcpbridge/internal/elicitation"
	"github.com/mcpgenai/bridge/mcpbridge/internal/mcpconn"
	"github.com/mcpgenai/bridge/mcpbridge/internal/roots"
	"github.com/mcpgenai/bridge/mcpbridge/internal/serverlog"
	"github.com/mcpgenai/bridge/mcpbridge/sampling"
)

// ClientFeatures are what the host offers the servers that ask something of
// it while they work: the MCP client features. Each nil or zero field
// offers nothing of its kind, and a server is told only of what is offered.
// The Bridge reads the fields once, in [New]; it does not modify them.
type ClientFeatures struct {
	// Elicit asks the user what a server wants to know during a tool call
	// (a form or a URL, see [elicit.Request]), in either protocol era, and
	// returns the answer. It is called concurrently for different calls
	// and should return promptly once ctx is done. An error means no
	// answer: the tool call fails with it. nil offers no elicitation:
	// servers are told the host cannot ask, and one that asks anyway gets
	// an error (as does its tool call), never a "decline" nobody gave.
	Elicit func(ctx context.Context, e elicit.Request) (elicit.Response, error)
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
	// Limits bound how often each server may ask: forms and pages to
	// visit (Elicit), sampling requests and requests for the roots, per
	// tool call and per minute (see [QuestionLimits]). The zero value
	// takes the defaults.
	Limits QuestionLimits
	// LogLevel is the least severity of the log messages asked of the
	// servers that offer logging: sent with logging/setLevel once
	// connected, or on 2026-07-28 with every request. The messages go to
	// [Options.Logger] (see [LogLevel]). "" asks for no level: a server
	// then sends what it chooses, which goes to the Logger all the same.
	LogLevel LogLevel
}

// QuestionLimits bound the questions a server may ask the host while it
// works, each kind apart: forms and pages to visit (elicitation), sampling
// requests, and requests for the roots; in either protocol era and over
// every transport. A question past a bound is refused: the server gets an
// error (JSON-RPC code -32000) and nobody is asked. A tool call that
// brought it ends at once, its error wrapping [ErrTooManyQuestions]; the
// connection stays usable. Zero fields take the defaults; a negative one
// means no bound.
type QuestionLimits struct {
	// PerCall is how many questions of each kind one tool call may bring
	// (a server refusing a call until pages are visited, with
	// URLElicitationRequired, names at most that many).
	// 0 means 10. Before protocol 2026-07-28 over
	// stdio nothing ties a question to its call: it counts for every call
	// of that server in flight.
	PerCall int
	// PerMinute is how many questions of each kind one server may ask in
	// any minute, during calls or not. 0 means 30. Sampling requests are
	// bounded by [Sampling.PerMinute] instead. On a Bridge for many users
	// (see [WithUser]), a user's own connection to a server counts apart
	// from the other users'.
	PerMinute int
}

// The values of the [QuestionLimits] fields left zero.
const (
	defaultQuestionsPerCall   = 10
	defaultQuestionsPerMinute = 30
)

// questions returns the bounds of one server's questions under f's
// Limits, sampling requests per minute under its Sampling.
func (f *ClientFeatures) questions() *mcpconn.Questions {
	var l QuestionLimits
	samples := sampling.DefaultPerMinute
	if f != nil {
		l = f.Limits
		if f.Sampling != nil {
			samples = limitOr(f.Sampling.PerMinute, sampling.DefaultPerMinute)
		}
	}
	call := limitOr(l.PerCall, defaultQuestionsPerCall)
	minute := limitOr(l.PerMinute, defaultQuestionsPerMinute)
	return mcpconn.NewQuestions(map[mcpconn.Ask]mcpconn.Limit{
		mcpconn.AskForm:     {PerCall: call, PerMinute: minute},
		mcpconn.AskURL:      {PerCall: call, PerMinute: minute},
		mcpconn.AskRoots:    {PerCall: call, PerMinute: minute},
		mcpconn.AskSampling: {PerCall: call, PerMinute: samples},
	})
}

// limitOr returns n, def when n is 0, and 0 (no bound) when n is negative.
func limitOr(n, def int) int {
	switch {
	case n == 0:
		return def
	case n < 0:
		return 0
	}
	return n
}

// questionBytes bounds the requests of a server by method: a form with
// its message, a sampling request (Sampling.MaxRequestBytes); the others
// (roots/list, tasks/*) take mcpconn's default, 64 KiB.
func (b *Bridge) questionBytes() map[string]int {
	m := map[string]int{string(mcp.MethodElicitationCreate): elicitation.MaxRequestBytes}
	if b.sampling != nil {
		m[string(mcp.MethodSamplingCreateMessage)] = b.sampling.maxRequest
	}
	return m
}

// elicit reports f's Elicit, or nil when f is nil.
func (f *ClientFeatures) elicit() func(context.Context, elicit.Request) (elicit.Response, error) {
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
