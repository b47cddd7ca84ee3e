package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/mcpgenai/bridge/mcpbridge"
)

// helpText lists the chat's commands.
const helpText = `Commands:
  /help       this list
  /mcp        the MCP servers: state, tools, prompts and resources
  /prompts    the prompts the servers offer, with their arguments
  /resources  the resources the servers list
  /quit       end the chat (also /exit, or the end of input)
Anything else is a message to the model. Ctrl-C stops the request in progress.
`

// command runs line if it is a chat command and reports whether it was one.
// A word starting with "/" that is no command is reported as unknown.
func (a *agent) command(ctx context.Context, line string) (handled, quit bool) {
	if !strings.HasPrefix(line, "/") || strings.ContainsAny(line, " \t") {
		return false, false
	}
	switch line {
	case "/quit", "/exit":
		return true, true
	case "/help", "/?":
		fmt.Fprint(a.con.stderr, helpText)
	case "/mcp":
		fmt.Fprint(a.con.stdout, a.bridge.Status().String())
		a.listPrompts(ctx, a.con.stdout)
		a.listResources(ctx, a.con.stdout)
	case "/prompts":
		a.listPrompts(ctx, a.con.stdout)
	case "/resources":
		a.listResources(ctx, a.con.stdout)
	default:
		fmt.Fprintf(a.con.stderr, "agent: unknown command %s (/help lists the commands)\n", line)
	}
	return true, false
}

// listPrompts writes every server's prompts to w.
func (a *agent) listPrompts(ctx context.Context, w io.Writer) {
	prompts, err := a.bridge.ListPrompts(ctx, "")
	if err != nil {
		fmt.Fprintf(a.con.stderr, "agent: listing prompts: %v\n", err)
		return
	}
	if len(prompts) == 0 {
		fmt.Fprintln(w, "Prompts: none offered")
		return
	}
	fmt.Fprintln(w, "Prompts:")
	for _, p := range prompts {
		var args []string
		for _, arg := range p.Arguments {
			name := arg.Name
			if !arg.Required {
				name += "?"
			}
			args = append(args, name)
		}
		fmt.Fprintf(w, "  %s/%s(%s)", p.Server, p.Name, strings.Join(args, ", "))
		if d := firstLine(p.Description); d != "" {
			fmt.Fprintf(w, ": %s", d)
		}
		fmt.Fprintln(w)
	}
}

// listResources writes the resources of every connected server to w.
func (a *agent) listResources(ctx context.Context, w io.Writer) {
	fmt.Fprintln(w, "Resources:")
	listed := false
	for _, s := range a.bridge.Status().Servers {
		if s.State != mcpbridge.Connected {
			continue
		}
		res, err := a.bridge.ListResources(ctx, s.Name)
		if err != nil {
			fmt.Fprintf(w, "  %s: cannot be listed: %v\n", s.Name, err)
			continue
		}
		for _, r := range res {
			listed = true
			fmt.Fprintf(w, "  %s: %s", s.Name, r.URI)
			if name := cmp.Or(r.Title, r.Name); name != "" && name != r.URI {
				fmt.Fprintf(w, " (%s)", name)
			}
			fmt.Fprintln(w)
		}
	}
	if !listed {
		fmt.Fprintln(w, "  none listed")
	}
}

// firstLine is the first line of s, trimmed.
func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(s)
}
