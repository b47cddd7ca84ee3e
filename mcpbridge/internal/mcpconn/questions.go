package mcpconn

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mcpgenai/bridge/mcpbridge/internal/rpcerr"
)

// A server may ask the host something while it works: a form or a page to
// visit (elicitation), a model's completion (sampling), the roots. Each
// question may reach a person or cost a model call, so each kind is
// bounded per tool call and per minute, in every era and transport:
// questions are admitted where they enter the connection (the handlers
// mcp-go calls, the requests the taps take, a task's input requests), and
// one past a bound is refused with an error for the server. The tool call
// it came during then ends at once with the same error (its context is
// cancelled with it as the cause), so the server is told and the caller
// learns why.
//
// Which call a question belongs to: on 2026-07-28 it comes within the call
// (an input_required result, or a task's input requests); before it, over
// streamable HTTP, on the call's own response stream. Otherwise (over
// stdio, or on the standalone stream of streamable HTTP, before
// 2026-07-28) nothing ties a question to a call: it then counts for every
// call of the connection in flight or, when none is, for the last one
// that ended. So the questions a server sent all at once, which arrive
// after their call was ended for them, are refused with it.

// Ask is a kind of question of a server.
type Ask int

// The kinds of question.
const (
	AskForm     Ask = iota // elicitation/create, form mode
	AskURL                 // elicitation/create, URL mode; a page named by URLElicitationRequired
	AskSampling            // sampling/createMessage
	AskRoots               // roots/list
	numAsks
)

var askNames = [numAsks]string{"forms", "pages to visit", "sampling requests", "roots requests"}

// String returns the kind as a plural noun ("forms", "sampling requests").
func (a Ask) String() string {
	if a < 0 || a >= numAsks {
		return "questions"
	}
	return askNames[a]
}

// Limit bounds one kind of question; a value of 0 or less means no bound.
type Limit struct {
	// PerCall is how many may come during one tool call.
	PerCall int
	// PerMinute is how many one server may ask in any minute.
	PerMinute int
}

// ErrTooManyQuestions is wrapped by the error of a question past a bound,
// and of the tool call it ended.
var ErrTooManyQuestions = errors.New("too many questions")

// QuestionError is the error of a question past its bound.
type QuestionError struct {
	Kind      Ask
	Limit     int
	PerMinute bool // the bound per minute, not per call
}

func (e *QuestionError) Error() string {
	if e.PerMinute {
		return fmt.Sprintf("%v: the server asked more than %d %v in a minute", ErrTooManyQuestions, e.Limit, e.Kind)
	}
	return fmt.Sprintf("%v: the server asked more than %d %v during one tool call", ErrTooManyQuestions, e.Limit, e.Kind)
}

// Is reports whether target is ErrTooManyQuestions.
func (e *QuestionError) Is(target error) bool { return target == ErrTooManyQuestions }

// RPCCode is the JSON-RPC error code the server reads: a limit of the
// client.
func (e *QuestionError) RPCCode() int { return rpcerr.Limited }

// Questions bounds the questions of one server per minute, across its
// connections (a reconnect does not start a new minute), with the bounds
// per call its connections apply. Its methods are safe for concurrent use.
type Questions struct {
	limits [numAsks]Limit
	mu     sync.Mutex
	times  [numAsks][]time.Time // the last questions of each kind, oldest first
}

// NewQuestions returns the bounds of one server: limits by kind.
func NewQuestions(limits map[Ask]Limit) *Questions {
	q := &Questions{}
	for k, l := range limits {
		if k >= 0 && k < numAsks {
			q.limits[k] = l
		}
	}
	return q
}

// Fresh returns bounds with q's limits and none of its questions counted
// (those of another user's connections to the same server); nil for nil.
func (q *Questions) Fresh() *Questions {
	if q == nil {
		return nil
	}
	return &Questions{limits: q.limits}
}

// allow counts a question of kind at now and reports whether it is
// within the bound per minute.
func (q *Questions) allow(kind Ask, now time.Time) bool {
	n := q.limits[kind].PerMinute
	if n <= 0 {
		return true
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	ts := q.times[kind]
	i := 0
	for i < len(ts) && now.Sub(ts[i]) >= time.Minute {
		i++
	}
	ts = ts[i:]
	if len(ts) >= n {
		q.times[kind] = ts
		return false
	}
	q.times[kind] = append(ts, now)
	return true
}

// asking is one tool call's count of the questions it brought.
type asking struct {
	mu   sync.Mutex
	n    [numAsks]int
	fail context.CancelCauseFunc // ends the call
}

type askingKey struct{}

// callSet is the set of a connection's tool calls that may bring
// questions, and the last of them that ended.
type callSet struct {
	mu   sync.Mutex
	set  map[*asking]struct{}
	last *asking
}

// beginAsking returns ctx for a tool call that may bring questions (the
// spec offers something to ask), carrying the call's count, and a
// function to call when the call has returned. ctx is cancelled, with a
// *QuestionError as its cause, when a question of the call passes its
// bound.
func (c *Conn) beginAsking(ctx context.Context) (context.Context, func()) {
	if !c.spec.offersQuestions() {
		return ctx, func() {}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	a := &asking{fail: cancel}
	c.asking.mu.Lock()
	if c.asking.set == nil {
		c.asking.set = map[*asking]struct{}{}
	}
	c.asking.set[a] = struct{}{}
	c.asking.mu.Unlock()
	return context.WithValue(ctx, askingKey{}, a), func() {
		c.asking.mu.Lock()
		delete(c.asking.set, a)
		c.asking.last = a
		c.asking.mu.Unlock()
		cancel(nil)
	}
}

// offersQuestions reports whether a server may ask the host anything.
func (s *Spec) offersQuestions() bool { return s.asksHost() || s.Roots != nil }

// admit counts a question of kind that came with ctx and returns nil when
// it is within its bounds. Otherwise it returns the *QuestionError for
// the server, and ends with it the calls the question counted for (past
// the bound per minute, all of them; past the bound per call, those that
// passed it).
func (c *Conn) admit(ctx context.Context, kind Ask) error {
	q := c.spec.Questions
	if q == nil {
		return nil
	}
	var calls []*asking
	if a, _ := ctx.Value(askingKey{}).(*asking); a != nil {
		calls = []*asking{a}
	} else {
		c.asking.mu.Lock()
		for a := range c.asking.set {
			calls = append(calls, a)
		}
		if len(calls) == 0 && c.asking.last != nil {
			calls = append(calls, c.asking.last)
		}
		c.asking.mu.Unlock()
	}
	var refused error
	if !q.allow(kind, time.Now()) {
		refused = &QuestionError{Kind: kind, Limit: q.limits[kind].PerMinute, PerMinute: true}
		for _, a := range calls {
			a.fail(refused)
		}
	}
	limit := q.limits[kind].PerCall
	for _, a := range calls {
		a.mu.Lock()
		a.n[kind]++
		over := limit > 0 && a.n[kind] > limit
		a.mu.Unlock()
		if over && refused == nil {
			refused = &QuestionError{Kind: kind, Limit: limit}
		}
		if over {
			a.fail(refused)
		}
	}
	if refused != nil {
		c.log.Debug("mcp server question refused", "err", refused)
	}
	return refused
}

// questionCause returns the *QuestionError that ended ctx, if one did.
func questionCause(ctx context.Context) error {
	var qe *QuestionError
	if errors.As(context.Cause(ctx), &qe) {
		return qe
	}
	return nil
}

// AdmitPages counts n pages to visit that the server named when it
// refused a tool call until they are visited (URLElicitationRequired),
// and returns nil when they are within the bounds of [AskURL]: at most
// PerCall of them, and within the bound per minute. Otherwise it returns
// a *QuestionError; the pages are not to be put to the host.
func (c *Conn) AdmitPages(n int) error {
	q := c.spec.Questions
	if q == nil {
		return nil
	}
	if l := q.limits[AskURL].PerCall; l > 0 && n > l {
		return &QuestionError{Kind: AskURL, Limit: l}
	}
	now := time.Now()
	for range n {
		if !q.allow(AskURL, now) {
			return &QuestionError{Kind: AskURL, Limit: q.limits[AskURL].PerMinute, PerMinute: true}
		}
	}
	return nil
}
