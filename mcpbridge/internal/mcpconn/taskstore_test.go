package mcpconn

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mcpgenai/bridge/mcpbridge/internal/tasks"
	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
)

// taskLog is a TaskRecorder that passes on what it is told.
type taskLog struct {
	started, ended chan TaskHandle
}

func newTaskLog() *taskLog {
	return &taskLog{started: make(chan TaskHandle, 4), ended: make(chan TaskHandle, 4)}
}

func (r *taskLog) TaskStarted(_ context.Context, h TaskHandle) { r.started <- h }
func (r *taskLog) TaskEnded(_ context.Context, h TaskHandle)   { r.ended <- h }

type callResult struct {
	raw json.RawMessage
	err error
}

// startRecorded calls tool as a task on c with a taskLog and returns the
// task's handle once the server has made it, and the call's result to
// come.
func startRecorded(t *testing.T, c *Conn, tool string, args map[string]any) (TaskHandle, *taskLog, <-chan callResult) {
	t.Helper()
	rec := newTaskLog()
	done := make(chan callResult, 1)
	go func() {
		raw, err := c.CallTask(context.WithValue(t.Context(), TaskRecordKey{}, rec), tool, args)
		done <- callResult{raw, err}
	}()
	select {
	case h := <-rec.started:
		return h, rec, done
	case r := <-done:
		t.Fatalf("CallTask(%s) = %s, %v before any task was recorded", tool, r.raw, r.err)
	}
	return TaskHandle{}, nil, nil
}

// TestResumeTask: a task one connection waits for is waited for by
// another connection too, which returns its result: on 2025-11-25 by
// taking over the session the task was created in (the server knows the
// task only there), on 2026-07-28 by asking the server. The first wait
// tells its taskLog when the task ended; a task of another era cannot be
// resumed.
func TestResumeTask(t *testing.T) {
	t.Run("2025-11-25", func(t *testing.T) {
		spec := taskSpec(t, StreamableHTTP, testserver.Tasks{On: true})
		first, second := dialT(t, spec), dialT(t, spec)
		h, rec, done := startRecorded(t, first, "slow_task", map[string]any{"ms": 500})
		if h.ID == "" || h.Session == "" || h.Session == second.client.GetSessionId() || IsModern(h.Protocol) {
			t.Fatalf("handle %+v: want the task's id, its session (not the second connection's) and a legacy protocol", h)
		}
		// Without the session, the server does not know the task.
		alone := h
		alone.Session = ""
		if raw, err := second.ResumeTask(t.Context(), alone); !errors.Is(err, tasks.ErrLost) {
			t.Fatalf("ResumeTask without the session = %s, %v; want ErrLost (the test shows nothing otherwise)", raw, err)
		}
		raw, err := second.ResumeTask(t.Context(), h)
		if err != nil || !strings.Contains(string(raw), "done after 500") {
			t.Fatalf("ResumeTask = %s, %v; want the task's result", raw, err)
		}
		if r := <-done; r.err != nil || !strings.Contains(string(r.raw), "done after 500") {
			t.Errorf("the first wait = %s, %v; want the result too", r.raw, r.err)
		}
		if got := <-rec.ended; got.ID != h.ID {
			t.Errorf("TaskEnded(%+v), want %s", got, h.ID)
		}
		if second.Err() != nil {
			t.Errorf("the second connection after resuming: %v; want it alive", second.Err())
		}
	})
	t.Run("2026-07-28", func(t *testing.T) {
		spec, _ := tasks26Spec(t, StreamableHTTP)
		first, second := dialT(t, spec), dialT(t, spec)
		h, _, done := startRecorded(t, first, "work", map[string]any{"ms": 300})
		if h.Session != "" || !IsModern(h.Protocol) || h.TTL <= 0 {
			t.Fatalf("handle %+v: want no session, protocol 2026-07-28 and the server's ttl", h)
		}
		raw, err := second.ResumeTask(t.Context(), h)
		if err != nil || !strings.Contains(string(raw), "worked 300 ms") {
			t.Fatalf("ResumeTask = %s, %v; want the task's result", raw, err)
		}
		<-done
		other := h
		other.Protocol = "2025-11-25"
		if raw, err := second.ResumeTask(t.Context(), other); !errors.Is(err, tasks.ErrLost) {
			t.Errorf("ResumeTask of a legacy task on a 2026-07-28 connection = %s, %v; want ErrLost", raw, err)
		}
	})
	t.Run("stdio", func(t *testing.T) {
		c := dialT(t, taskSpec(t, Stdio, testserver.Tasks{On: true}))
		rec := newTaskLog()
		raw, err := c.CallTask(context.WithValue(t.Context(), TaskRecordKey{}, rec), "slow_task", map[string]any{"ms": 10})
		if err != nil || len(rec.started) != 0 {
			t.Errorf("CallTask over stdio = %s, %v, %d recorded; want no record: no other process can reach the task", raw, err, len(rec.started))
		}
	})
}
