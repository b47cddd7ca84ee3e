package mcpconn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpgenai/bridge/mcpbridge/internal/tasks"
)

// A task outlives the process that waits for it: it runs on the server.
// A tools/call whose context carries a TaskRecorder tells it of the task
// the server made of it (over streamable HTTP, where another process can
// reach the task), and of the end of the wait, so that the recorder can
// keep a record while the task runs. ResumeTask waits for a recorded task
// from another connection, in this process or another one: on 2026-07-28
// the task is the server's alone (tasks/get carries its id in Mcp-Name);
// before, a server may know the task only within the session that
// created it, so a connection takes that session over (it was initialized
// already; mcp-go sends its Mcp-Session-Id) for as long as the wait lasts.

// TaskRecordKey is the context key of a [TaskRecorder].
type TaskRecordKey struct{}

// TaskRecorder is told of the task a tools/call became. Its methods are
// called on the caller's goroutine, must be safe for concurrent use, and
// bound their own time.
type TaskRecorder interface {
	// TaskStarted is told of the task before the wait for it begins.
	TaskStarted(ctx context.Context, h TaskHandle)
	// TaskEnded is told that the wait for the task ended with the task
	// (a result, its failure, its cancellation, the server losing it).
	// It is not told when the connection died during the wait: the task
	// may still run, and another wait may find it (see ResumeTask).
	TaskEnded(ctx context.Context, h TaskHandle)
}

// TaskHandle is what a wait for a task needs, in this process or another.
type TaskHandle struct {
	ID string
	// Protocol is the protocol revision the task was created in.
	Protocol string
	// Session is the Mcp-Session-Id of the streamable-HTTP session it was
	// created in (before 2026-07-28), "" when none.
	Session string
	// TTL is how long after its creation the server may discard it; 0
	// when it set no limit.
	TTL time.Duration
}

// recordTask tells the recorder of ctx, if any, of the task t of this
// connection, and returns what tells it of the end of the wait.
func (c *Conn) recordTask(ctx context.Context, t tasks.Task) (ended func()) {
	r, _ := ctx.Value(TaskRecordKey{}).(TaskRecorder)
	if r == nil || c.kind != StreamableHTTP {
		return func() {}
	}
	h := TaskHandle{ID: t.ID, Protocol: c.init.ProtocolVersion}
	if !IsModern(h.Protocol) {
		h.Session = c.client.GetSessionId()
	}
	if t.HasTTL {
		h.TTL = t.TTL
	}
	r.TaskStarted(ctx, h)
	return func() {
		if err := c.Err(); err != nil && !errors.Is(err, ErrClosed) {
			return // the connection died: the task may still run
		}
		r.TaskEnded(ctx, h)
	}
}

// ResumeTask waits for the task h, which a tools/call of another
// connection became, as CallTask would have after that tools/call: the
// same polling, questions, bounds (MaxCallTime counts from now) and
// cancellation when ctx ends; the TaskRecorder of ctx is told as for a
// call. A task created in another protocol era than the connection's, or
// over another transport than streamable HTTP, cannot be resumed: its
// error wraps [tasks.ErrLost].
func (c *Conn) ResumeTask(ctx context.Context, h TaskHandle) (json.RawMessage, error) {
	if c.kind != StreamableHTTP || IsModern(h.Protocol) != IsModern(c.init.ProtocolVersion) {
		return nil, c.wrap(string(mcp.MethodTasksGet), fmt.Errorf("task %q of protocol %s: %w: the connection is of %s over %s",
			cutText(h.ID, 64), h.Protocol, tasks.ErrLost, c.init.ProtocolVersion, c.kind))
	}
	conn := c
	if h.Session != "" && !IsModern(h.Protocol) && h.Session != c.client.GetSessionId() {
		s := c.spec
		s.join, s.Era = h.Session, h.Protocol
		// The session's notifications are not this connection's business.
		s.OnToolsChanged, s.OnPromptsChanged, s.OnResourceUpdated, s.OnResourcesChanged = nil, nil, nil, nil
		s.OnNextEra, s.OnClose, s.Subscriptions, s.LogLevel = nil, nil, nil, ""
		joined, err := dial(ctx, s, StreamableHTTP)
		if err != nil {
			return nil, err
		}
		defer joined.Close()
		conn = joined
	}
	w, _, done := conn.askProgress(ctx)
	defer done()
	t := tasks.Task{ID: h.ID, Status: tasks.Working, TTL: h.TTL, HasTTL: h.TTL > 0}
	return conn.waitTask(ctx, w, t)
}

// sessionOptions are the options of a streamable-HTTP transport: the
// stream that carries list_changed outside requests, or the session to
// take over.
func (s *Spec) sessionOptions() []transport.StreamableHTTPCOption {
	if s.join != "" {
		return []transport.StreamableHTTPCOption{transport.WithSession(s.join)}
	}
	// The GET stream that carries list_changed outside requests on a
	// legacy connection; mcp-go opens it only there. On 2026-07-28,
	// listen does the job.
	//lint:ignore SA1019 the replacement needs protocol 2026-07-28.
	return []transport.StreamableHTTPCOption{transport.WithContinuousListening()}
}
