package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/examples/internal/hostlogin"
	"github.com/mcpgenai/bridge/mcpbridge"
	mcpagent "github.com/mcpgenai/bridge/mcpbridge/agent"
)

// errInterrupted is returned when Ctrl-C arrives while waiting for input.
var errInterrupted = errors.New("interrupted")

// agent runs the conversation: requests through the bridge's loop, tool
// calls shown on stderr, answers on stdout.
type agent struct {
	bridge  *mcpbridge.Bridge
	gen     mcpagent.ContentStreamer
	model   string
	loop    *mcpagent.Agent // the Gemini loop over bridge: MaxTurns; the events are shown here
	con     *console
	lines   *lineReader
	history []*genai.Content // the conversation so far (interactive chat)
}

// interruptible returns a context that Ctrl-C cancels, and a stop function
// that must be called when the work it guards is over.
func (a *agent) interruptible(parent context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancel(parent)
	if a.con.interrupt == nil {
		return ctx, cancel
	}
	done, exited := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(exited)
		select {
		case <-a.con.interrupt:
			cancel()
		case <-done:
		}
	}()
	return ctx, func() {
		close(done)
		<-exited
		cancel()
	}
}

// discover connects the servers and says on stderr what came of it.
func (a *agent) discover(ctx context.Context) error {
	ctx, stop := a.interruptible(ctx)
	defer stop()
	if err := a.bridge.Discover(ctx); err != nil {
		return err
	}
	// Servers that answered 401 wait for a login; the URL goes to stderr.
	hostlogin.LoginAll(ctx, a.bridge, a.con.stderr)
	st := a.bridge.Status()
	if len(st.Servers) == 0 {
		return nil
	}
	failed := 0
	for _, s := range st.Servers {
		if s.Error != "" {
			failed++
			fmt.Fprintf(a.con.stderr, "agent: server %q: %s\n", s.Name, s.Error)
		}
	}
	fmt.Fprintf(a.con.stderr, "agent: %d tools from %d of %d servers (/mcp in the chat shows them)\n",
		len(a.bridge.Tools()), len(st.Servers)-failed, len(st.Servers))
	return nil
}

// send runs one user message through the model and the tools, starting
// from history, which it does not modify. The model's text goes to stdout
// as it is written (thoughts are left out); each call, its progress and its
// result go to stderr as they happen.
func (a *agent) send(ctx context.Context, history []*genai.Content, text string) (*mcpagent.RunResult, error) {
	history = append(slices.Clone(history), genai.NewContentFromText(text, genai.RoleUser))
	var (
		res      *mcpagent.RunResult
		err      error
		midLine  bool // stdout's last text did not end a line
		textTurn int  // the last turn that wrote text
	)
	endLine := func() {
		if midLine {
			fmt.Fprintln(a.con.stdout)
			midLine = false
		}
	}
	for ev, e := range a.loop.RunStream(ctx, a.gen, a.model, history, nil) {
		switch ev.Kind {
		case mcpagent.EventText:
			fmt.Fprint(a.con.stdout, ev.Text)
			midLine, textTurn = !strings.HasSuffix(ev.Text, "\n"), ev.Turn
		case mcpagent.EventCall:
			endLine()
			a.showCall(ev.Call)
		case mcpagent.EventProgress:
			a.showProgress(ev.Progress)
		case mcpagent.EventResult:
			a.showResult(ev.Result)
		case mcpagent.EventDone:
			res, err = ev.Run, e
		}
	}
	endLine()
	if err == nil && textTurn != res.Turns {
		fmt.Fprintln(a.con.stderr, "agent: the model answered without text")
	}
	return res, err
}

// once runs the -prompt request, the model's text on stdout. It returns the exit status.
func (a *agent) once(ctx context.Context, prompt string) int {
	tctx, stop := a.interruptible(ctx)
	_, err := a.send(tctx, nil, prompt)
	interrupted := tctx.Err() != nil && ctx.Err() == nil
	stop()
	if err != nil {
		a.fail(err, interrupted)
		return 1
	}
	return 0 // the answer was written as it came
}

// chat is the interactive chat; it returns the exit status.
func (a *agent) chat(ctx context.Context) int {
	fmt.Fprintf(a.con.stderr, "Chatting with %s. /help lists the commands, /quit ends the chat.\n", a.model)
	for {
		fmt.Fprint(a.con.stderr, "> ")
		line, err := a.lines.next(ctx, a.con.interrupt)
		switch {
		case errors.Is(err, io.EOF), errors.Is(err, errInterrupted):
			fmt.Fprintln(a.con.stderr)
			return 0
		case err != nil:
			fmt.Fprintf(a.con.stderr, "\nagent: %v\n", err)
			return 1
		}
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if handled, quit := a.command(ctx, line); quit {
			return 0
		} else if handled {
			continue
		}

		tctx, stop := a.interruptible(ctx)
		res, err := a.send(tctx, a.history, line)
		interrupted := tctx.Err() != nil && ctx.Err() == nil
		stop()
		if err != nil {
			a.fail(err, interrupted)
			if ctx.Err() != nil {
				return 1
			}
			fmt.Fprintln(a.con.stderr, "agent: the message is forgotten; the chat goes on")
			continue
		}
		a.history = res.History
	}
}

// fail says on stderr why a request failed.
func (a *agent) fail(err error, interrupted bool) {
	switch {
	case interrupted:
		fmt.Fprintln(a.con.stderr, "agent: cancelled")
	case errors.Is(err, mcpagent.ErrTurnLimit):
		fmt.Fprintf(a.con.stderr, "agent: %v (raise -max-turns)\n", err)
	default:
		fmt.Fprintf(a.con.stderr, "agent: %v\n", err)
	}
}

// showCall shows on stderr a tool call about to run.
func (a *agent) showCall(call *genai.FunctionCall) {
	args, err := json.Marshal(call.Args)
	if err != nil || call.Args == nil {
		args = []byte("{}")
	}
	where := "unknown tool"
	if t, ok := a.bridge.Tool(call.Name); ok {
		where = fmt.Sprintf("server %q, tool %q", t.Server, t.ServerTool)
	}
	fmt.Fprintf(a.con.stderr, "→ %s %s  (%s)\n", call.Name, args, where)
}

// showProgress shows on stderr how far a running call is.
func (a *agent) showProgress(p *mcpbridge.Progress) {
	total := ""
	if p.Total > 0 {
		total = fmt.Sprintf("/%g", p.Total)
	}
	msg := ""
	if p.Message != "" {
		msg = "  " + p.Message
	}
	fmt.Fprintf(a.con.stderr, "… %s %g%s%s\n", p.Name, p.Progress, total, msg)
}

// showResult shows on stderr what a person should see of a call's result.
func (a *agent) showResult(r *mcpbridge.CallResult) {
	mark := "✓"
	if r.Err != nil {
		mark = "✗"
	}
	display := r.ReturnDisplay
	if display == "" && r.Err != nil {
		display = r.Err.Error()
	}
	fmt.Fprintf(a.con.stderr, "%s %s\n%s\n", mark, r.Name, indent(display, "  "))
}

// indent prefixes every line of s with prefix.
func indent(s, prefix string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = prefix + l
	}
	return strings.Join(lines, "\n")
}
