package confirm

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
)

// ErrNoConfirmer is returned (wrapped) by [Policy.Decide] when a call needs
// a person's confirmation and the policy has no Confirmer. The call must not
// run.
var ErrNoConfirmer = errors.New("a person must approve it and nobody can be asked here (trust the server or allow-list the tool to run it without asking)")

// Policy decides whether tool calls may run. Set its exported fields before
// the first Decide and do not change them afterwards; its methods are safe
// for concurrent use. A Policy must not be copied after first use.
//
// The zero Policy asks before every call and, having no Confirmer, refuses
// every call that is not trusted or allow-listed.
type Policy struct {
	// Confirmer asks a person. If nil, a call that needs asking is refused
	// with ErrNoConfirmer.
	Confirmer Confirmer
	// AutoAllowReadOnly runs, without asking, tools annotated
	// readOnlyHint: true, unless they are also annotated destructiveHint:
	// true. The hints come from the server itself; leave this false (the
	// default: ask) for servers you do not trust to describe their tools.
	AutoAllowReadOnly bool

	mu    sync.Mutex
	allow map[Key]bool
	deny  map[Key]bool
	turn  chan struct{} // holds a token while a confirmer runs
}

// Reason says why a [Decision] was made.
type Reason int

const (
	// Unanswered: a person had to be asked but gave no answer: there is no
	// Confirmer, it failed, or the context ended. Never proceeds.
	Unanswered Reason = iota
	// Denied: the server or the tool is on the deny-list. Never proceeds.
	Denied
	// Trusted: the server is trusted; nobody was asked.
	Trusted
	// ServerAllowed: the server is on the allow-list; nobody was asked.
	ServerAllowed
	// ToolAllowed: the tool is on the allow-list; nobody was asked.
	ToolAllowed
	// ReadOnly: AutoAllowReadOnly is set and the tool is annotated
	// read-only; nobody was asked.
	ReadOnly
	// Approved: the confirmer answered ProceedOnce, AlwaysTool or
	// AlwaysServer.
	Approved
	// Declined: the confirmer answered Cancel.
	Declined
)

// String returns a short phrase for messages, such as "server is trusted"
// or "cancelled by the user".
func (r Reason) String() string {
	switch r {
	case Unanswered:
		return "not confirmed"
	case Denied:
		return "denied by policy"
	case Trusted:
		return "server is trusted"
	case ServerAllowed:
		return "server is on the allow-list"
	case ToolAllowed:
		return "tool is on the allow-list"
	case ReadOnly:
		return "tool is annotated read-only"
	case Approved:
		return "approved by the user"
	case Declined:
		return "cancelled by the user"
	}
	return "Reason(" + strconv.Itoa(int(r)) + ")"
}

// Decision is the outcome of [Policy.Decide]. The zero Decision does not
// proceed.
type Decision struct {
	Proceed bool   // the call may run
	Asked   bool   // the Confirmer was called for this request
	Reason  Reason // why
	Answer  Answer // the Confirmer's answer when Reason is Approved or Declined; Cancel otherwise
}

// Decide reports whether the call req describes may run. In order:
//
//  1. the server (Key{Server}) or the tool (Key{Server, ServerTool}) is on the
//     deny-list: denied;
//  2. req.Trusted: proceed;
//  3. the server, then the tool, is on the allow-list: proceed;
//  4. AutoAllowReadOnly and the tool is annotated read-only (and not
//     destructive): proceed;
//  5. otherwise the Confirmer is asked. AlwaysTool and AlwaysServer add
//     the tool or the server to the allow-list before any other request is
//     considered.
//
// Confirmers are asked one request at a time. A request waiting for its
// turn checks the lists again when it gets it, so requests queued behind an
// AlwaysTool answer for the same tool proceed without asking.
//
// The error is non-nil only when nobody answered: the Decision then says
// Unanswered and does not proceed. It wraps ErrNoConfirmer when there is no
// Confirmer, the Confirmer's error, or ctx.Err() when ctx ends while waiting
// for the turn or for the answer; in that last case Decide returns at once
// and an answer that arrives later is dropped.
func (p *Policy) Decide(ctx context.Context, req Request) (Decision, error) {
	if d, ok := p.decideWithoutAsking(req); ok {
		return d, nil
	}
	if p.Confirmer == nil {
		return Decision{}, fmt.Errorf("confirming %s: %w", Key{req.Server, req.ServerTool}, ErrNoConfirmer)
	}
	if err := ctx.Err(); err != nil {
		return Decision{}, fmt.Errorf("confirming %s: %w", Key{req.Server, req.ServerTool}, err)
	}
	turn := p.turnToken()
	select {
	case turn <- struct{}{}:
	case <-ctx.Done():
		return Decision{}, fmt.Errorf("waiting to confirm %s: %w", Key{req.Server, req.ServerTool}, ctx.Err())
	}
	release := func() { <-turn }
	if d, ok := p.decideWithoutAsking(req); ok {
		release()
		return d, nil
	}
	if err := ctx.Err(); err != nil {
		release()
		return Decision{}, fmt.Errorf("confirming %s: %w", Key{req.Server, req.ServerTool}, err)
	}

	type result struct {
		answer Answer
		err    error
	}
	done := make(chan result, 1)
	// The confirmer runs in its own goroutine so that a cancelled ctx
	// returns at once even if the confirmer is slow to notice. The turn is
	// held until the confirmer returns, so confirmers never overlap, and
	// the answer is recorded before the turn passes on.
	go func() {
		defer release()
		a, err := p.Confirmer.Confirm(ctx, req)
		if err == nil && ctx.Err() == nil {
			p.record(req, a)
		}
		done <- result{a, err}
	}()
	select {
	case res := <-done:
		if res.err != nil {
			return Decision{Asked: true}, fmt.Errorf("confirming %s: %w", Key{req.Server, req.ServerTool}, res.err)
		}
		switch res.answer {
		case ProceedOnce, AlwaysTool, AlwaysServer:
			return Decision{Proceed: true, Asked: true, Reason: Approved, Answer: res.answer}, nil
		}
		return Decision{Asked: true, Reason: Declined, Answer: Cancel}, nil
	case <-ctx.Done():
		return Decision{Asked: true}, fmt.Errorf("confirming %s: %w", Key{req.Server, req.ServerTool}, ctx.Err())
	}
}

// decideWithoutAsking applies steps 1 to 4 of Decide; ok is false when a
// person must be asked.
func (p *Policy) decideWithoutAsking(req Request) (d Decision, ok bool) {
	server, tool := Key{Server: req.Server}, Key{req.Server, req.ServerTool}
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.deny[server] || p.deny[tool]:
		return Decision{Reason: Denied}, true
	case req.Trusted:
		return Decision{Proceed: true, Reason: Trusted}, true
	case p.allow[server]:
		return Decision{Proceed: true, Reason: ServerAllowed}, true
	case p.allow[tool]:
		return Decision{Proceed: true, Reason: ToolAllowed}, true
	case p.AutoAllowReadOnly && isTrue(req.Annotations.ReadOnlyHint) && !isTrue(req.Annotations.DestructiveHint):
		return Decision{Proceed: true, Reason: ReadOnly}, true
	}
	return Decision{}, false
}

func isTrue(b *bool) bool { return b != nil && *b }

// record updates the allow-list after answer a to req.
func (p *Policy) record(req Request, a Answer) {
	switch a {
	case AlwaysTool:
		p.Allow(Key{req.Server, req.ServerTool})
	case AlwaysServer:
		p.Allow(Key{Server: req.Server})
	}
}

// turnToken returns the channel whose single slot is the confirmer's turn.
func (p *Policy) turnToken() chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.turn == nil {
		p.turn = make(chan struct{}, 1)
	}
	return p.turn
}
