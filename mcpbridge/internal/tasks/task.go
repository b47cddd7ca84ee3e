// Package tasks drives an MCP task to its end: a tools/call that the
// server answered with a task handle instead of a result (MCP 2025-11-25's
// task-augmented requests, and the io.modelcontextprotocol/tasks extension
// of 2026-07-28). It reads the task's state in either shape, polls
// tasks/get at the server's interval, fetches the result, answers what the
// task asks for, and cancels the task when the caller gives up or a bound
// passes. It knows no transport: a [Peer] sends the requests.
//
//	t, ok, err := tasks.ParseCreated(raw) // raw: the tools/call result
//	if err != nil || !ok {
//		return raw, err // not a task: raw is the result
//	}
//	result, err := tasks.Wait(ctx, peer, t, tasks.Options{MaxTime: time.Hour})
package tasks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"
)

// Status is the state of a task.
type Status string

// The states of a task. Completed, Failed and Cancelled are terminal.
const (
	Working       Status = "working"
	InputRequired Status = "input_required"
	Completed     Status = "completed"
	Failed        Status = "failed"
	Cancelled     Status = "cancelled"
)

// Terminal reports whether s is a state a task never leaves.
func (s Status) Terminal() bool {
	return s == Completed || s == Failed || s == Cancelled
}

// MaxIDBytes bounds a task id; a longer one is refused as malformed.
const MaxIDBytes = 1024

// MaxMessageBytes bounds a status message; a longer one is cut.
const MaxMessageBytes = 4096

// Task is the state of a task as the server last reported it.
type Task struct {
	ID      string
	Status  Status
	Message string // the server's statusMessage, cut at MaxMessageBytes
	// TTL is how long after its creation the server may discard the task;
	// HasTTL is false when the server set no limit.
	TTL    time.Duration
	HasTTL bool
	// PollInterval is the server's suggested polling interval; 0 when it
	// suggested none.
	PollInterval time.Duration
	// Result, Error and InputRequests are the inlined payloads of a
	// 2026-07-28 task (nil when absent): the final result of a completed
	// task, the JSON-RPC error of a failed one, the requests of one that
	// needs input.
	Result        json.RawMessage
	Error         json.RawMessage
	InputRequests json.RawMessage
}

// ErrMalformed is wrapped by the error of a task state that cannot be read.
var ErrMalformed = errors.New("malformed task")

// wire is a task in either protocol's words: 2025-11-25 says ttl and
// pollInterval, 2026-07-28 ttlMs and pollIntervalMs.
type wire struct {
	ResultType     string          `json:"resultType"`
	TaskID         json.RawMessage `json:"taskId"`
	Status         string          `json:"status"`
	StatusMessage  json.RawMessage `json:"statusMessage"`
	TTL            json.RawMessage `json:"ttl"`
	TTLMs          json.RawMessage `json:"ttlMs"`
	PollInterval   json.RawMessage `json:"pollInterval"`
	PollIntervalMs json.RawMessage `json:"pollIntervalMs"`
	Result         json.RawMessage `json:"result"`
	Error          json.RawMessage `json:"error"`
	InputRequests  json.RawMessage `json:"inputRequests"`
}

// ParseCreated reads a tools/call result. It reports ok when the result is
// a task handle: {"task": {...}} (2025-11-25) or {"resultType": "task", ...}
// (2026-07-28); otherwise the result is the call's own, and t is zero. A
// handle that cannot be read is an error wrapping [ErrMalformed].
func ParseCreated(raw json.RawMessage) (t Task, ok bool, err error) {
	return parseCreated(raw, false)
}

// ParseExtension is ParseCreated for a result of 2026-07-28, where only a
// result with resultType "task" is a task handle (a CreateTaskResult of the
// io.modelcontextprotocol/tasks extension, SEP-2663): a "task" member of
// another result is the result's own.
func ParseExtension(raw json.RawMessage) (t Task, ok bool, err error) {
	return parseCreated(raw, true)
}

func parseCreated(raw json.RawMessage, extension bool) (t Task, ok bool, err error) {
	// Most results are not tasks: look before decoding.
	if !bytes.Contains(raw, []byte(`"task"`)) {
		return Task{}, false, nil
	}
	var outer struct {
		ResultType string          `json:"resultType"`
		Task       json.RawMessage `json:"task"`
	}
	if json.Unmarshal(raw, &outer) != nil {
		return Task{}, false, nil // not an object: not a task; the caller reads it as a result
	}
	switch {
	case outer.ResultType == "task":
		t, err = Parse(raw)
	case !extension && outer.ResultType == "" && len(outer.Task) > 0 && !bytes.Equal(outer.Task, []byte("null")):
		t, err = Parse(outer.Task)
	default:
		return Task{}, false, nil
	}
	return t, true, err
}

// Parse reads a task's state: a tasks/get result, or the task of a
// created-task result, in either protocol's words. The id must be a
// non-empty string of at most MaxIDBytes and the status one of the five
// known; a missing, negative or absurd ttl or poll interval counts as not
// given. Anything else wrong wraps [ErrMalformed].
func Parse(raw json.RawMessage) (Task, error) {
	var w wire
	if err := json.Unmarshal(raw, &w); err != nil {
		return Task{}, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	var t Task
	if json.Unmarshal(w.TaskID, &t.ID) != nil || t.ID == "" {
		return Task{}, fmt.Errorf("%w: no task id", ErrMalformed)
	}
	if len(t.ID) > MaxIDBytes {
		return Task{}, fmt.Errorf("%w: task id of %d bytes", ErrMalformed, len(t.ID))
	}
	t.Status = Status(w.Status)
	switch t.Status {
	case Working, InputRequired, Completed, Failed, Cancelled:
	default:
		return Task{}, fmt.Errorf("%w: unknown status %q", ErrMalformed, cut(w.Status, 64))
	}
	var msg string
	if json.Unmarshal(w.StatusMessage, &msg) == nil {
		t.Message = cut(msg, MaxMessageBytes)
	}
	ttl := w.TTLMs
	if len(ttl) == 0 {
		ttl = w.TTL
	}
	t.TTL, t.HasTTL = millis(ttl)
	poll := w.PollIntervalMs
	if len(poll) == 0 {
		poll = w.PollInterval
	}
	t.PollInterval, _ = millis(poll)
	t.Result = present(w.Result)
	t.Error = present(w.Error)
	t.InputRequests = present(w.InputRequests)
	return t, nil
}

// maxMillis is the largest duration read from a server: about 292 years
// would overflow; a year is already "never".
const maxMillis = int64(365 * 24 * time.Hour / time.Millisecond)

// millis reads a duration in milliseconds; ok is false when raw is absent,
// null, not a number, negative or more than a year.
func millis(raw json.RawMessage) (time.Duration, bool) {
	var f float64
	if present(raw) == nil || json.Unmarshal(raw, &f) != nil || f < 0 || math.IsNaN(f) || f > float64(maxMillis) {
		return 0, false
	}
	return time.Duration(f * float64(time.Millisecond)), true
}

// present returns raw, or nil when it is absent or null.
func present(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil
	}
	return raw
}

// cut returns s cut at n bytes, on a rune boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
