package mcpconn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpgenai/bridge/mcpbridge/internal/tasks"
)

// A tool whose execution.taskSupport is "optional" or "required" may run as
// an MCP task (2025-11-25): the tools/call asks for one, the server answers
// at once with a task handle, and internal/tasks polls it to its end
// through the requests below, each bounded by Timeout like any request.
// MaxCallTime bounds the whole task. A call that asks for progress but is
// no task is kept alive by its progress instead (keepAlive).

// DefaultMaxCallTime bounds a call that may outlive Timeout (a task, or a
// call reporting progress) when Spec.MaxCallTime is zero.
const DefaultMaxCallTime = time.Hour

// taskGrace is how much longer than MaxCallTime a task is asked to be
// kept (its ttl).
const taskGrace = time.Minute

func (s *Spec) maxCallTime() time.Duration {
	if s.MaxCallTime > 0 {
		return s.MaxCallTime
	}
	return DefaultMaxCallTime
}

// CallTask is CallTool for a tool whose TaskSupport is "optional" or
// "required". When the server offers task-augmented tool calls (before
// 2026-07-28), the call asks for a task and waits for its end (on
// 2026-07-28 every tools/call may become a task; see tasks26.go): tasks/get
// at the server's poll interval, status messages reported as progress
// (with the progress of the last report) to a ctx from [WithProgress],
// questions of a task waiting for input answered through Spec.Elicit,
// tasks/result for the result. Each request is bounded by Timeout, the
// whole task by MaxCallTime; the task is cancelled (tasks/cancel) when ctx
// ends or a bound passes. A task that outlives its time to live, or that
// the server no longer knows, fails with an error saying so (see the
// sentinels of internal/tasks). Otherwise it is CallTool.
func (c *Conn) CallTask(ctx context.Context, name string, args any) (json.RawMessage, error) {
	return c.callTool(ctx, nil, name, args, true)
}

// offersTasks reports whether the server accepts task-augmented tools/call.
func (c *Conn) offersTasks() bool {
	t := c.init.Capabilities.Tasks
	return !IsModern(c.init.ProtocolVersion) && t != nil && t.Requests != nil && t.Requests.Tools != nil && t.Requests.Tools.Call != nil
}

// awaitTask waits for the task that raw, a tools/call result, may hold.
func (c *Conn) awaitTask(ctx context.Context, w *progressWaiter, raw json.RawMessage) (json.RawMessage, error) {
	modern := IsModern(c.init.ProtocolVersion)
	parse := tasks.ParseCreated
	if modern {
		parse = tasks.ParseExtension
	}
	t, ok, err := parse(raw)
	if err != nil {
		return nil, c.wrap(string(mcp.MethodToolsCall), err)
	}
	if !ok {
		return raw, nil // the server ran the call at once
	}
	return c.waitTask(ctx, w, t)
}

// waitTask waits for the task t of a tools/call, recorded for the
// TaskRecorder of ctx, if any, while it runs.
func (c *Conn) waitTask(ctx context.Context, w *progressWaiter, t tasks.Task) (json.RawMessage, error) {
	modern := IsModern(c.init.ProtocolVersion)
	defer c.recordTask(ctx, t)()
	o := tasks.Options{MaxTime: c.spec.maxCallTime(), Extension: modern}
	if modern {
		o.Input = taskPeer{c}
		if tw, _ := ctx.Value(TaskWaitKey{}).(TaskWaiter); tw != nil {
			if wctx, release, ok := tw.TaskContext(); ok {
				defer release()
				ctx = wctx
			}
		}
	}
	if w != nil {
		o.Status = w.status
	}
	// The task outlives the connection only on the server: when the
	// connection dies, so does the wait.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer c.calls.Remove(c.calls.Add(cancel))
	raw, err := tasks.Wait(ctx, taskPeer{c}, t, o)
	if err != nil {
		if derr := c.Err(); derr != nil {
			err = fmt.Errorf("%w (%w)", err, derr)
		}
		return nil, c.wrap(string(mcp.MethodToolsCall), err)
	}
	return raw, nil
}

// taskPeer sends a task's requests on the connection.
type taskPeer struct{ c *Conn }

func (p taskPeer) Get(ctx context.Context, id string) (json.RawMessage, error) {
	req := mcp.GetTaskRequest{Params: mcp.GetTaskParams{TaskId: id}}
	req.Header = p.c.taskHeader(id)
	return p.c.request(ctx, string(mcp.MethodTasksGet), noTarget, ownCtx{}, func(rctx context.Context) error {
		_, err := p.c.client.GetTask(rctx, req)
		return err
	})
}

func (p taskPeer) Result(ctx context.Context, id string) (json.RawMessage, error) {
	req := mcp.TaskResultRequest{}
	req.Params.TaskId = id
	return p.c.request(ctx, string(mcp.MethodTasksResult), noTarget, ownCtx{}, func(rctx context.Context) error {
		_, err := p.c.client.TaskResult(rctx, req)
		return err
	})
}

func (p taskPeer) Cancel(ctx context.Context, id string) error {
	req := mcp.CancelTaskRequest{}
	req.Params.TaskId = id
	req.Header = p.c.taskHeader(id)
	_, err := p.c.request(ctx, string(mcp.MethodTasksCancel), noTarget, ownCtx{}, func(rctx context.Context) error {
		_, err := p.c.client.CancelTask(rctx, req)
		return err
	})
	return err
}

// rejectedError is a request's error when the server answered it with a
// JSON-RPC error; its text is the error's own.
type rejectedError struct{ err error }

func (e rejectedError) Error() string        { return e.err.Error() }
func (e rejectedError) Unwrap() error        { return e.err }
func (e rejectedError) Is(target error) bool { return target == tasks.ErrRejected }

// keepAlive bounds a call that reports progress, or that the server may
// hold with a question to the host: Timeout counts from the last progress
// report or answered question (or the start), except while a question is
// being answered (see clock); MaxCallTime counts from the start. Its
// errors are built only when a bound passes, and it makes no closure of
// its own: a call that asks for progress costs little more than one that
// does not (RunStream asks on every call).
type keepAlive struct {
	ctx     context.Context // ends when a bound passes, or at end
	cancel  context.CancelCauseFunc
	mcancel context.CancelFunc
	timer   *time.Timer
	quiet   time.Duration   // the silence limit
	w       *progressWaiter // nil: the call asked for no progress
	c       *Conn
}

// callLimitError is the cause of a kept call's end: with quiet, no answer
// (and, with progress, no progress report) for d, the silence limit;
// otherwise the whole call's limit d (MaxCallTime). It is a deadline error.
type callLimitError struct {
	d               time.Duration
	quiet, progress bool
}

func (e *callLimitError) Error() string {
	switch {
	case e.quiet && e.progress:
		return fmt.Sprintf("%v: no answer and no progress for %v", context.DeadlineExceeded, e.d)
	case e.quiet:
		return fmt.Sprintf("%v: no answer for %v", context.DeadlineExceeded, e.d)
	}
	return fmt.Sprintf("%v: the call ran longer than its limit of %v", context.DeadlineExceeded, e.d)
}

func (e *callLimitError) Unwrap() error { return context.DeadlineExceeded }

// keepAlive returns the bounds of one call; w, when not nil, is the
// call's progress waiter, whose reports start the silence limit again.
func (c *Conn) keepAlive(ctx context.Context, w *progressWaiter) *keepAlive {
	most := c.spec.maxCallTime()
	mctx, mcancel := context.WithTimeoutCause(ctx, most, &callLimitError{d: most})
	kctx, kcancel := context.WithCancelCause(mctx)
	k := &keepAlive{ctx: kctx, cancel: kcancel, mcancel: mcancel, quiet: c.spec.timeout(), w: w, c: c}
	k.timer = time.AfterFunc(time.Hour, k.silent)
	k.timer.Stop()
	c.clock.start(k)
	if w != nil {
		w.setBeat(k)
	}
	return k
}

// silent ends the call: the silence limit passed.
func (k *keepAlive) silent() {
	k.cancel(&callLimitError{d: k.quiet, quiet: true, progress: k.w != nil})
}

// beat starts the silence limit again: a progress report came.
func (k *keepAlive) beat() { k.c.clock.beat(k) }

// end ends the call's context (for the connection's death).
func (k *keepAlive) end() { k.cancel(nil) }

// stop releases everything; after the call.
func (k *keepAlive) stop() {
	if k.w != nil {
		k.w.setBeat(nil)
	}
	k.c.clock.stop(k)
	k.cancel(nil)
	k.mcancel()
}

// IsRejected reports whether err is a request's error for which the server
// answered with a JSON-RPC error (rather than a timeout or a lost
// connection).
func IsRejected(err error) bool { return errors.Is(err, tasks.ErrRejected) }
