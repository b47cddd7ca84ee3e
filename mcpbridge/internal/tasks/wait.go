package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Peer sends the task requests to the server that holds the task. Each
// request is bounded by ctx and by the Peer's own request timeout. A
// request the server answered with a JSON-RPC error returns an error
// wrapping [ErrRejected]; any other failure (a timeout, a lost
// connection) must not wrap it.
type Peer interface {
	// Get sends tasks/get and returns its raw result.
	Get(ctx context.Context, id string) (json.RawMessage, error)
	// Result sends tasks/result (2025-11-25), which the server answers
	// when the task has ended, and returns its raw result: what the
	// tools/call would have returned. Questions the task asks meanwhile
	// reach the Peer's elicitation handler.
	Result(ctx context.Context, id string) (json.RawMessage, error)
	// Cancel sends tasks/cancel.
	Cancel(ctx context.Context, id string) error
}

// Sentinels for errors.Is.
var (
	// ErrRejected is wrapped by a Peer's error when the server answered
	// with a JSON-RPC error.
	ErrRejected = errors.New("server answered with an error")
	// ErrLost: the server no longer knows the task (it answered tasks/get
	// with an error, or with another task's state).
	ErrLost = errors.New("server lost the task")
	// ErrExpired: the task outlived the time to live the server gave it
	// and had not ended.
	ErrExpired = errors.New("task outlived its time to live")
	// ErrTooLong: the task had not ended within Options.MaxTime.
	ErrTooLong = errors.New("task ran longer than allowed")
	// ErrFailed: the server reported that the task failed.
	ErrFailed = errors.New("task failed")
	// ErrCancelled: the server reported the task cancelled, without the
	// caller asking.
	ErrCancelled = errors.New("task was cancelled by the server")
	// ErrInputUnsupported: a 2026-07-28 task asked for input that no
	// handler of the host can give (no Options.Input, or an input request
	// of a kind the host does not answer).
	ErrInputUnsupported = errors.New("task asked for input the client cannot give")
)

// Defaults and bounds of polling.
const (
	// FirstPoll is the wait before the first tasks/get when the server
	// suggested no interval; each further wait without a suggestion
	// doubles, up to MaxDefaultPoll.
	FirstPoll      = 100 * time.Millisecond
	MaxDefaultPoll = 2 * time.Second
	// MinPoll and MaxPoll bound a server's suggestion: a server cannot
	// make us poll in a tight loop, nor wait longer than a minute
	// between looks.
	MinPoll = 10 * time.Millisecond
	MaxPoll = time.Minute
	// CancelTimeout bounds the tasks/cancel sent when the caller gives up.
	CancelTimeout = 5 * time.Second
)

// Options tune [Wait].
type Options struct {
	// MaxTime bounds the whole task, from the start of Wait; 0 means no
	// bound but ctx.
	MaxTime time.Duration
	// Status, when not nil, receives the task's status message each time
	// it changes (not the empty one), in order, on Wait's goroutine.
	Status func(message string)
	// Extension says the task is one of the io.modelcontextprotocol/tasks
	// extension (2026-07-28): there is no tasks/result (a terminal state
	// carries the result or error itself), and a task that needs input
	// lists its requests in inputRequests, answered through Input and
	// tasks/update. False: a task of 2025-11-25.
	Extension bool
	// Input answers the input requests of an Extension task; nil: such a
	// task that asks for input is cancelled and fails with
	// ErrInputUnsupported.
	Input Input
}

// Wait drives the task t, as the server created it, to its end and returns
// the raw result the tools/call would have returned. It polls tasks/get at
// the server's interval (see [FirstPoll] when none), fetches tasks/result
// when the task completes or (2025-11-25) needs input, answers the input
// requests of an Extension task once each (see [Input]), and returns:
//   - the result, for a completed task;
//   - an error wrapping ErrFailed or ErrCancelled when the task ended so;
//   - ErrLost when the server no longer knows the task id;
//   - ErrExpired when the task was still running after its TTL (counted
//     from when t was received, so a server's clock does not matter);
//   - ErrTooLong after Options.MaxTime, and ctx's error when ctx ends.
//
// In the last three cases, and when a request fails, the task is cancelled
// (tasks/cancel, bounded by CancelTimeout) before Wait returns. Wait starts
// no goroutine.
func Wait(ctx context.Context, p Peer, t Task, o Options) (json.RawMessage, error) {
	received := time.Now()
	var cancel context.CancelFunc
	if o.MaxTime > 0 {
		ctx, cancel = context.WithTimeoutCause(ctx, o.MaxTime, ErrTooLong)
	} else {
		ctx, cancel = context.WithCancel(ctx)
	}
	defer cancel()
	w := waiter{p: p, id: t.ID, o: o, wait: FirstPoll}
	raw, err := w.run(ctx, t, received)
	switch {
	case err == nil:
	case ctx.Err() != nil:
		// Whatever failed, it failed because the time was up.
		w.cancelTask(ctx)
		err = fmt.Errorf("task %q: %w", t.ID, context.Cause(ctx))
		if errors.Is(err, ErrTooLong) {
			err = fmt.Errorf("%w (limit %v); it was cancelled", err, o.MaxTime)
		}
	case w.cancel:
		w.cancelTask(ctx)
	}
	return raw, err
}

// waiter is the state of one Wait.
type waiter struct {
	p      Peer
	id     string
	o      Options
	last   string        // the last status message reported
	inputs inputs        // the input requests answered (Extension)
	wait   time.Duration // the next default poll interval
	poll   time.Duration // the server's last suggested interval; 0 = none yet
	cancel bool          // whether the task must be cancelled on error
}

func (w *waiter) run(ctx context.Context, t Task, received time.Time) (json.RawMessage, error) {
	ttl, hasTTL := t.TTL, t.HasTTL
	for {
		w.cancel = false // the task may have ended
		w.report(t.Message)
		if t.HasTTL {
			ttl, hasTTL = t.TTL, true
		}
		if t.PollInterval > 0 {
			w.poll = t.PollInterval // a later state without one keeps it
		}
		switch t.Status {
		case Completed:
			if t.Result != nil {
				return t.Result, nil
			}
			if w.o.Extension {
				return nil, fmt.Errorf("task %q: %w: completed without a result", w.id, ErrMalformed)
			}
			return w.result(ctx)
		case Failed:
			if t.Error != nil {
				return nil, fmt.Errorf("task %q: %w: %s", w.id, ErrFailed, errorText(t.Error, t.Message))
			}
			if w.o.Extension {
				return nil, fmt.Errorf("task %q: %w: %s", w.id, ErrFailed, orNone(t.Message))
			}
			if _, err := w.p.Result(ctx, w.id); err != nil {
				return nil, fmt.Errorf("task %q: %w: %w", w.id, ErrFailed, err)
			}
			return nil, fmt.Errorf("task %q: %w: %s", w.id, ErrFailed, orNone(t.Message))
		case Cancelled:
			return nil, fmt.Errorf("task %q: %w: %s", w.id, ErrCancelled, orNone(t.Message))
		case InputRequired:
			if w.o.Extension || t.InputRequests != nil {
				// 2026-07-28: answer what was not answered yet, then
				// poll on.
				if err := w.answer(ctx, t.InputRequests); err != nil {
					return nil, err
				}
				break
			}
			// 2025-11-25: the questions come while tasks/result waits,
			// and it answers once the task has ended.
			raw, err := w.p.Result(ctx, w.id)
			if err == nil || errors.Is(err, ErrRejected) || ctx.Err() != nil {
				return raw, w.resultErr(err)
			}
			// The request's own bound passed: look at the task again.
		}
		w.cancel = true
		if hasTTL && time.Since(received) >= ttl {
			return nil, fmt.Errorf("task %q: %w (%v) and was still %s; it was cancelled", w.id, ErrExpired, ttl, t.Status)
		}
		if err := w.sleep(ctx, ttl, hasTTL, received); err != nil {
			return nil, err
		}
		raw, err := w.p.Get(ctx, w.id)
		if errors.Is(err, ErrRejected) {
			w.cancel = false
			return nil, fmt.Errorf("task %q: %w: %w", w.id, ErrLost, err)
		}
		if err != nil {
			return nil, fmt.Errorf("task %q: tasks/get: %w", w.id, err)
		}
		next, err := Parse(raw)
		if err != nil {
			return nil, fmt.Errorf("task %q: tasks/get: %w", w.id, err)
		}
		if next.ID != w.id {
			w.cancel = false
			return nil, fmt.Errorf("task %q: %w: tasks/get answered for task %q", w.id, ErrLost, cut(next.ID, 64))
		}
		t = next
	}
}

// sleep waits for the next poll: the server's interval, or the default
// one, which grows; never past the task's TTL.
func (w *waiter) sleep(ctx context.Context, ttl time.Duration, hasTTL bool, received time.Time) error {
	d := w.poll
	if d == 0 {
		d = w.wait
		w.wait = min(2*w.wait, MaxDefaultPoll)
	}
	d = min(max(d, MinPoll), MaxPoll)
	if hasTTL {
		if left := ttl - time.Since(received); left < d {
			d = max(left, 0)
		}
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}

// result fetches the result of a completed task.
func (w *waiter) result(ctx context.Context) (json.RawMessage, error) {
	raw, err := w.p.Result(ctx, w.id)
	return raw, w.resultErr(err)
}

func (w *waiter) resultErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrRejected):
		// A task that failed is reported through tasks/result's error.
		return fmt.Errorf("task %q: %w: %w", w.id, ErrFailed, err)
	}
	w.cancel = true
	return fmt.Errorf("task %q: tasks/result: %w", w.id, err)
}

// report hands a changed status message to Options.Status.
func (w *waiter) report(msg string) {
	if msg == "" || msg == w.last || w.o.Status == nil {
		return
	}
	w.last = msg
	w.o.Status(msg)
}

// cancelTask tells the server to stop the task, within CancelTimeout of
// the end of ctx (which has ended or is about to be abandoned).
func (w *waiter) cancelTask(ctx context.Context) {
	cctx, stop := context.WithTimeout(context.WithoutCancel(ctx), CancelTimeout)
	defer stop()
	_ = w.p.Cancel(cctx, w.id)
}

// errorText is the message of a JSON-RPC error object, or fallback.
func errorText(raw json.RawMessage, fallback string) string {
	var e struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	if json.Unmarshal(raw, &e) != nil || e.Message == "" {
		return orNone(fallback)
	}
	return fmt.Sprintf("%s (code %d)", cut(e.Message, MaxMessageBytes), e.Code)
}

func orNone(s string) string {
	if s == "" {
		return "no reason given"
	}
	return s
}
