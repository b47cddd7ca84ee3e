package mcpbridge

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"time"

	"github.com/mcpgenai/bridge/mcpbridge/internal/mcpconn"
	"github.com/mcpgenai/bridge/mcpbridge/internal/tasks"
	"github.com/mcpgenai/bridge/mcpbridge/store"
)

// With Options.Store, a call of the model (one with an id) whose tools/call
// a server over streamable HTTP answers with a task is recorded in the
// store while the Bridge waits for the task: the call's id, server, tool
// and a hash of its arguments, the task's id, protocol and session. The
// record goes when the wait ends with the task (its result, failure,
// cancellation, or the server losing it) and stays when the process dies
// or the connection is lost while the task runs. Execute of a call whose
// id, tool and arguments match a record waits for that task instead of
// calling the tool again: after a crash, any replica given the same call
// returns the task's result, and a call that reached the server is still
// never sent twice.

// storeTimeout bounds each request to the shared store: a store that does
// not answer costs the record of a task, not a call.
const storeTimeout = 5 * time.Second

// callIDKey carries the id of the model's function call to call.
type callIDKey struct{}

// withCallID returns ctx carrying the call's id, by which a shared store
// records its task (without a shared store, or for "", ctx itself).
func (b *Bridge) withCallID(ctx context.Context, id string) context.Context {
	if id == "" || b.shared == nil {
		return ctx
	}
	return context.WithValue(ctx, callIDKey{}, id)
}

// taskRecord is the mcpconn.TaskRecorder of one call: it keeps the call's
// task in the shared store while the Bridge waits for it.
type taskRecord struct {
	b    *Bridge
	key  store.TaskKey
	tool string
	args string
	// created is when the task was first recorded (a resumed one);
	// zero: now.
	created time.Time
}

// taskRecord returns the recorder of a call of tool with the raw
// arguments, nil when the call cannot be resumed from a record: no
// shared store, no call id, or a server whose tasks no other process can
// reach (stdio, SSE) or that makes no task of this tool.
func (b *Bridge) taskRecord(ctx context.Context, tool *Tool, raw json.RawMessage) *taskRecord {
	id, _ := ctx.Value(callIDKey{}).(string)
	s := b.byName[tool.Server]
	if b.shared == nil || id == "" || s == nil {
		return nil
	}
	b.mu.Lock()
	era, via := s.era, s.via
	b.mu.Unlock()
	if via != mcpconn.StreamableHTTP || tool.def.raw.TaskSupport == "" && !mcpconn.IsModern(era) {
		return nil
	}
	sum := sha256.Sum256(raw)
	return &taskRecord{b: b, key: store.TaskKey{User: UserOf(ctx), Server: tool.Server, Call: id}, tool: tool.ServerTool, args: hex.EncodeToString(sum[:])}
}

// TaskStarted records the task.
func (r *taskRecord) TaskStarted(ctx context.Context, h mcpconn.TaskHandle) {
	now := time.Now()
	t := &store.Task{Tool: r.tool, Args: r.args, ID: h.ID, Protocol: h.Protocol, Session: h.Session, Created: cmp.Or(r.created, now)}
	if h.TTL > 0 {
		t.Expires = now.Add(h.TTL)
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeTimeout)
	defer cancel()
	if err := r.b.shared.PutTask(ctx, r.key, t); err != nil {
		r.b.log.Warn("mcp task not recorded in the store; no other process can resume it", "server", r.key.Server, "tool", r.tool, "err", err)
	}
}

// TaskEnded forgets the task.
func (r *taskRecord) TaskEnded(ctx context.Context, _ mcpconn.TaskHandle) {
	r.forget(ctx)
}

func (r *taskRecord) forget(ctx context.Context) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeTimeout)
	defer cancel()
	if err := r.b.shared.DeleteTask(ctx, r.key); err != nil {
		r.b.log.Warn("mcp task record not deleted from the store", "server", r.key.Server, "tool", r.tool, "err", err)
	}
}

// resumeTask waits for the task recorded for the call of r, if there is
// one for the same tool and arguments; ok is false when there is none
// (the tool is then called). The wait is bounded as a task's is: by the
// server's MaxCallTime, ctx and the Bridge's life.
func (b *Bridge) resumeTask(ctx context.Context, tool *Tool, r *taskRecord) (out json.RawMessage, ok bool, err error) {
	lctx, cancel := context.WithTimeout(ctx, storeTimeout)
	t, err := b.shared.LoadTask(lctx, r.key)
	cancel()
	if err != nil {
		b.log.Warn("mcp task records not readable from the store; the tool is called", "server", tool.Server, "tool", tool.ServerTool, "err", err)
		return nil, false, nil
	}
	if t == nil || t.Tool != r.tool || t.Args != r.args {
		return nil, false, nil
	}
	b.log.Info("mcp tool call waits for the task recorded for it", "server", tool.Server, "tool", tool.ServerTool)
	r.created = t.Created
	h := mcpconn.TaskHandle{ID: t.ID, Protocol: t.Protocol, Session: t.Session}
	if !t.Expires.IsZero() {
		h.TTL = max(time.Until(t.Expires), time.Millisecond)
	}
	ctx, cancel, key := b.within(ctx, 0)
	defer cancel()
	defer b.inLife.Remove(key)
	cc := &callContext{call: elicitCall{tool: tool.ServerTool}, b: b, record: r}
	cc.Context = ctx
	err = b.onBoundedServer(cc, tool.Server, func(ctx context.Context, conn *mcpconn.Conn) (err error) {
		out, err = conn.ResumeTask(ctx, h)
		return err
	})
	if errors.Is(err, tasks.ErrLost) {
		r.forget(ctx)
	}
	return out, true, b.redact.redactErr(err)
}
