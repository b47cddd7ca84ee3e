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
	mcpagent "github.com/mcpgenai/bridge/mcpbridge/agent"
)

// liveChat is the chat of -live: one Live API session, text in and text
// out, the MCP tools run by a Live session of the agent package. prompt, when hasPrompt,
// is the one message to send; otherwise messages come from stdin. It
// returns the exit status.
func (a *agent) liveChat(ctx context.Context, client *genai.Client, prompt string, hasPrompt bool) int {
	errOut := &lockedWriter{w: a.con.stderr} // the tools' callbacks run on their own goroutines
	shown := &agent{bridge: a.bridge, con: &console{stdout: a.con.stdout, stderr: errOut}}
	loop := mcpagent.New(a.bridge, &mcpagent.Options{OnCall: shown.showCall, OnResult: shown.showResult,
		OnProgress: func(p mcpbridge.Progress) { shown.showProgress(&p) }})
	defer loop.Close()
	lt, err := loop.Live(ctx, &genai.LiveConnectConfig{ResponseModalities: []genai.Modality{genai.ModalityText}})
	if err != nil {
		fmt.Fprintf(errOut, "agent: %v\n", err)
		return 1
	}
	session, err := client.Live.Connect(ctx, a.model, lt.Config())
	if err != nil {
		_ = lt.Close()
		fmt.Fprintf(errOut, "agent: live: %v\n", err)
		return 1
	}
	ls := &liveSession{s: session}
	msgs := make(chan liveMessage)
	received := make(chan struct{})
	go func() { // the session's one reader; it ends when the session closes
		defer close(received)
		for {
			m, err := session.Receive()
			select {
			case msgs <- liveMessage{m, err}:
			case <-ls.closed():
				return
			}
			if err != nil {
				return
			}
		}
	}()
	defer func() {
		_ = lt.Close() // cancels the calls still running and waits for them
		ls.close()
		<-received
	}()

	if hasPrompt {
		if err := a.liveTurn(ctx, lt, ls, msgs, prompt); err != nil {
			fmt.Fprintf(errOut, "agent: live: %v\n", err)
			return 1
		}
		return 0
	}
	fmt.Fprintf(errOut, "Live session with %s (text). /quit ends it.\n", a.model)
	for {
		fmt.Fprint(errOut, "> ")
		line, err := a.lines.next(ctx, a.con.interrupt)
		switch {
		case errors.Is(err, io.EOF), errors.Is(err, errInterrupted):
			fmt.Fprintln(errOut)
			return 0
		case err != nil:
			fmt.Fprintf(errOut, "\nagent: %v\n", err)
			return 1
		}
		line = strings.TrimSpace(line)
		switch line {
		case "":
			continue
		case "/quit", "/exit":
			return 0
		}
		if err := a.liveTurn(ctx, lt, ls, msgs, line); err != nil {
			fmt.Fprintf(errOut, "agent: live: %v\n", err)
			return 1
		}
	}
}

// liveMessage is one result of Session.Receive.
type liveMessage struct {
	m   *genai.LiveServerMessage
	err error
}

// liveTurn sends text and writes the model's text to stdout until its turn
// is complete and no call of it runs.
func (a *agent) liveTurn(ctx context.Context, lt *mcpagent.LiveSession, ls *liveSession, msgs <-chan liveMessage, text string) error {
	ctx, stop := a.interruptible(ctx)
	defer stop()
	if err := ls.sendText(text); err != nil {
		return err
	}
	midLine := false
	for {
		var lm liveMessage
		select {
		case lm = <-msgs:
		case <-ctx.Done():
			if midLine {
				fmt.Fprintln(a.con.stdout)
			}
			return ctx.Err()
		}
		if lm.err != nil {
			return lm.err
		}
		lt.Handle(ctx, ls, lm.m)
		sc := lm.m.ServerContent
		if sc == nil {
			continue
		}
		if sc.ModelTurn != nil {
			for _, p := range sc.ModelTurn.Parts {
				if p != nil && !p.Thought && p.Text != "" {
					fmt.Fprint(a.con.stdout, p.Text)
					midLine = !strings.HasSuffix(p.Text, "\n")
				}
			}
		}
		if sc.TurnComplete && lt.Running() == 0 {
			if midLine {
				fmt.Fprintln(a.con.stdout)
			}
			return nil
		}
	}
}

// liveSession serializes the sends on a session: genai's Session allows one
// writer at a time, and the tools answer from their own goroutines.
type liveSession struct {
	mu   sync.Mutex
	s    *genai.Session
	once sync.Once
	done chan struct{}
}

// closed returns a channel closed when the session is.
func (l *liveSession) closed() <-chan struct{} { return l.doneChan() }

func (l *liveSession) doneChan() chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.done == nil {
		l.done = make(chan struct{})
	}
	return l.done
}

// close closes the session once.
func (l *liveSession) close() {
	done := l.doneChan()
	l.once.Do(func() {
		close(done)
		l.mu.Lock()
		_ = l.s.Close()
		l.mu.Unlock()
	})
}

// SendToolResponse sends the tools' answers.
func (l *liveSession) SendToolResponse(in genai.LiveToolResponseInput) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.s.SendToolResponse(in)
}

// sendText sends one complete user turn.
func (l *liveSession) sendText(text string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.s.SendClientContent(genai.LiveClientContentInput{
		Turns: []*genai.Content{genai.NewContentFromText(text, genai.RoleUser)},
	})
}

// lockedWriter writes to w one Write at a time.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
