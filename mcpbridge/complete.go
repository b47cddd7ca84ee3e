package mcpbridge

import (
	"context"
	"errors"
	"fmt"
	"maps"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpgenai/bridge/mcpbridge/internal/completion"
	"github.com/mcpgenai/bridge/mcpbridge/internal/mcpconn"
)

// CompletionRequest asks a server for the values one argument of a prompt
// or of a resource template may take, as a host offers them while the
// user types.
type CompletionRequest struct {
	// Server is the configured name of the server.
	Server string
	// Prompt is the name of the prompt whose argument is completed; or,
	// when Prompt is "", ResourceTemplate is the URI template of the
	// resource template ("file:///{path}"). Exactly one is set.
	Prompt           string
	ResourceTemplate string
	// Argument is the argument's name, and Value what the user has typed
	// of it so far ("" for nothing yet).
	Argument string
	Value    string
	// Context holds the values of the other arguments already chosen, by
	// name; nil for none. It is not modified.
	Context map[string]string
}

// Completion is a server's answer to a [CompletionRequest].
type Completion struct {
	// Values are the suggestions, in the server's order: at most 100,
	// each one line without control or bidirectional characters (and
	// redacted), empty ones left out.
	Values []string
	// Total is how many values the server has in all; 0 when it did not
	// say.
	Total int
	// HasMore reports whether the server has more values than Values.
	HasMore bool
}

// Complete asks a server to complete one argument of a prompt or resource
// template (MCP's completion/complete). A disconnected server is
// reconnected as for a tool call (see [Bridge]); a server that did not
// declare completions answers with no values and no request is sent. A
// request naming both or neither of Prompt and ResourceTemplate, or no
// Argument, is an error.
func (b *Bridge) Complete(ctx context.Context, req CompletionRequest) (Completion, error) {
	var ref any
	switch {
	case req.Argument == "":
		return Completion{}, errors.New("complete: no argument named")
	case (req.Prompt == "") == (req.ResourceTemplate == ""):
		return Completion{}, errors.New("complete: name exactly one of a prompt and a resource template")
	case req.Prompt != "":
		ref = mcp.PromptReference{Type: "ref/prompt", Name: req.Prompt}
	default:
		ref = mcp.ResourceReference{Type: "ref/resource", URI: req.ResourceTemplate}
	}
	out := Completion{Values: []string{}}
	err := b.onServer(ctx, req.Server, func(ctx context.Context, conn *mcpconn.Conn) error {
		if !conn.OffersCompletions() {
			return nil
		}
		raw, err := conn.Complete(ctx, ref, req.Argument, req.Value, maps.Clone(req.Context))
		if err != nil {
			return err
		}
		r, err := completion.Parse(raw)
		if err != nil {
			return fmt.Errorf("mcp server %q: completion/complete: %w", req.Server, err)
		}
		out = Completion{Values: r.Values, Total: r.Total, HasMore: r.HasMore}
		return nil
	})
	if err != nil {
		return Completion{}, err
	}
	for i, v := range out.Values {
		out.Values[i] = b.redact.Text(v)
	}
	return out, nil
}
