package mcpbridge

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpgenai/bridge/mcpbridge/elicit"
	"github.com/mcpgenai/bridge/mcpbridge/internal/mcpconn"
)

// ErrURLElicitation is wrapped by the error of a tool call that the server
// refused until the user visits a page (MCP's URLElicitationRequired,
// -32042) when the page could not be visited: the host has no
// [ClientFeatures.Elicit], the URL is not one to offer, or the user did
// not accept. The error says which, with the server's message.
var ErrURLElicitation = errors.New("the server needs the user to visit a page first")

// urlRequired handles a tool call of serverName refused with
// URLElicitationRequired: each page the server names is put to the host's
// Elicit (as a URL [elicit.Request]) and, when the user accepts them all, it
// reports true: the call may be sent once more. Otherwise it returns the
// error to report instead of err; for any other err it returns err.
func (b *Bridge) urlRequired(ctx context.Context, serverName, tool string, conn *mcpconn.Conn, err error) (bool, error) {
	var ue mcp.URLElicitationRequiredError
	if !errors.As(err, &ue) {
		return false, err
	}
	if len(ue.Elicitations) == 0 {
		return false, fmt.Errorf("%w: no page named (%w)", ErrURLElicitation, err)
	}
	if b.elicit == nil {
		return false, fmt.Errorf("%w, and this program cannot ask the user: %s", ErrURLElicitation, pages(ue))
	}
	if err := conn.AdmitPages(len(ue.Elicitations)); err != nil {
		return false, fmt.Errorf("%w: %w: %w", ErrURLElicitation, ErrTooManyQuestions, err)
	}
	for _, p := range ue.Elicitations {
		p.Mode = mcp.ElicitationModeURL
		q, qerr := question(serverName, p)
		if qerr != nil {
			return false, fmt.Errorf("%w: %w", ErrURLElicitation, qerr)
		}
		q.ServerTool = tool
		if q.ID != "" {
			done, release := conn.AwaitElicitation(q.ID)
			q.Completed = done
			defer release()
		}
		a, aerr := b.elicit(ctx, q)
		if aerr != nil {
			return false, fmt.Errorf("%w: asking the user: %w", ErrURLElicitation, aerr)
		}
		if a.Action != elicit.Accept {
			return false, fmt.Errorf("%w: the user did not (%s): %s", ErrURLElicitation, a.Action, pages(ue))
		}
	}
	return true, nil
}

// pages lists the messages and URLs of the first three pages of ue for an
// error, cleaned as [elicit.Request]s are (an unsafe URL is left out).
func pages(ue mcp.URLElicitationRequiredError) string {
	const shown = 3
	var out []string
	for i, p := range ue.Elicitations {
		if i == shown {
			out = append(out, fmt.Sprintf("and %d more", len(ue.Elicitations)-shown))
			break
		}
		p.Mode = mcp.ElicitationModeURL
		if q, err := question("", p); err == nil {
			out = append(out, fmt.Sprintf("%q at %s", q.Message, q.URL))
		}
	}
	if len(out) == 0 {
		return "no page that may be offered"
	}
	return strings.Join(out, "; ")
}
