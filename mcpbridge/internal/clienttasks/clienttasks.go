// Package clienttasks keeps the tasks a client runs at its servers'
// request (MCP 2025-11-25): a server may ask for its sampling/createMessage
// or elicitation/create to run as a task, and the client then answers at
// once with the task, runs the request in the background, and the server
// polls tasks/get, fetches tasks/result, lists (tasks/list) and cancels
// (tasks/cancel) them. Each server sees only its own tasks. The package
// knows nothing of what the tasks do or of transports.
//
//	s := clienttasks.New()
//	defer s.Close()
//	created, err := s.Start(ctx, "files", params, run) // a CreateTaskResult
//	state, err := s.Handle(ctx, "files", "tasks/get", getParams)
package clienttasks

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/mcpgenai/bridge/mcpbridge/internal/rpcerr"
)

// Bounds of the tasks.
const (
	// MaxPerServer is how many tasks one server may have at a time (with
	// those that ended and whose time to live is not over).
	MaxPerServer = 32
	// MaxTTL bounds the time to live a server may ask for; DefaultTTL is
	// what one that asks for none gets.
	MaxTTL     = 10 * time.Minute
	DefaultTTL = 5 * time.Minute
	// pollInterval is the interval suggested to the server, in ms.
	pollInterval = 500
)

// Task statuses.
const (
	statusWorking   = "working"
	statusCompleted = "completed"
	statusFailed    = "failed"
	statusCancelled = "cancelled"
)

type task struct {
	server, id       string
	created, updated time.Time
	ttl              time.Duration
	status, message  string
	result           json.RawMessage
	err              rpcerr.Coder
	done             chan struct{}
	cancel           context.CancelFunc
}

// Store keeps the tasks of any number of servers. Its methods are safe for
// concurrent use. Close it to end the tasks still running.
type Store struct {
	life   context.Context
	end    context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex
	byID   map[string]*task
	closed bool
}

// New returns an empty Store.
func New() *Store {
	ctx, cancel := context.WithCancel(context.Background())
	return &Store{life: ctx, end: cancel, byID: map[string]*task{}}
}

// wireTask is a Task as it travels.
type wireTask struct {
	TaskID        string `json:"taskId"`
	Status        string `json:"status"`
	StatusMessage string `json:"statusMessage,omitempty"`
	CreatedAt     string `json:"createdAt"`
	LastUpdatedAt string `json:"lastUpdatedAt"`
	TTL           int64  `json:"ttl"`
	PollInterval  int64  `json:"pollInterval"`
}

func (t *task) wire() wireTask {
	return wireTask{TaskID: t.id, Status: t.status, StatusMessage: t.message,
		CreatedAt: t.created.UTC().Format(time.RFC3339Nano), LastUpdatedAt: t.updated.UTC().Format(time.RFC3339Nano),
		TTL: t.ttl.Milliseconds(), PollInterval: pollInterval}
}

// Start runs run as a task of server, whose request had params (their
// "task" member gives the time to live asked for, bounded by MaxTTL), and
// returns the CreateTaskResult at once. The task's context carries the
// values of ctx (its trace among them) but ends only with the task: when
// run returns, when the server cancels it, or at Close. run's result is
// what tasks/result answers; its error, the error tasks/result answers
// (with its JSON-RPC code when it has an RPCCode method, else -32603). A
// server past MaxPerServer tasks, or a closed Store, is an *rpcerr.Error.
func (ts *Store) Start(ctx context.Context, server string, params json.RawMessage, run func(context.Context) (json.RawMessage, error)) (json.RawMessage, error) {
	var p struct {
		Task struct {
			TTL *int64 `json:"ttl"`
		} `json:"task"`
	}
	_ = json.Unmarshal(params, &p) // a bad ttl is no ttl
	ttl := DefaultTTL
	if p.Task.TTL != nil && *p.Task.TTL > 0 {
		ttl = min(time.Duration(min(*p.Task.TTL, MaxTTL.Milliseconds()))*time.Millisecond, MaxTTL)
	}
	var b [16]byte
	_, _ = rand.Read(b[:])
	now := time.Now()
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stopLife := context.AfterFunc(ts.life, cancel)
	t := &task{server: server, id: hex.EncodeToString(b[:]), created: now, updated: now, ttl: ttl,
		status: statusWorking, done: make(chan struct{}), cancel: cancel}
	ts.mu.Lock()
	if ts.closed {
		ts.mu.Unlock()
		stopLife()
		cancel()
		return nil, &rpcerr.Error{Code: rpcerr.Internal, Message: "the client is closing"}
	}
	ts.expire(now)
	if ts.count(server) >= MaxPerServer {
		ts.mu.Unlock()
		stopLife()
		cancel()
		return nil, &rpcerr.Error{Code: rpcerr.Limited, Message: fmt.Sprintf("at most %d tasks per server", MaxPerServer)}
	}
	ts.byID[t.id] = t
	out, _ := json.Marshal(struct {
		Task wireTask `json:"task"`
	}{t.wire()})
	ts.wg.Add(1)
	ts.mu.Unlock()
	go func() {
		defer ts.wg.Done()
		defer stopLife()
		defer cancel()
		res, err := run(ctx)
		ts.mu.Lock()
		defer ts.mu.Unlock()
		if t.status == statusWorking {
			t.updated = time.Now()
			if err != nil {
				t.status, t.err = statusFailed, asRPC(err)
				t.message = t.err.Error()
			} else {
				t.status, t.result = statusCompleted, res
			}
		}
		close(t.done)
	}()
	return out, nil
}

// asRPC returns err as an error with a JSON-RPC code (-32603 when it has
// none of its own).
func asRPC(err error) rpcerr.Coder {
	var rc rpcerr.Coder
	if errors.As(err, &rc) {
		return rc
	}
	return &rpcerr.Error{Code: rpcerr.Internal, Message: err.Error(), Err: err}
}

// count returns how many tasks server has. Under mu.
func (ts *Store) count(server string) int {
	n := 0
	for _, t := range ts.byID {
		if t.server == server {
			n++
		}
	}
	return n
}

// expire forgets finished tasks whose time to live is over. Under mu.
func (ts *Store) expire(now time.Time) {
	for id, t := range ts.byID {
		if t.status != statusWorking && now.Sub(t.created) > t.ttl {
			delete(ts.byID, id)
		}
	}
}

// Handle answers a request of server about its tasks (tasks/get,
// tasks/result, tasks/list or tasks/cancel) with params as sent, and
// returns the JSON result. tasks/result waits for the task's end within
// ctx. A task of another server is unknown. Errors are *rpcerr.Error or, for the
// result of a failed task, the error its run returned.
func (ts *Store) Handle(ctx context.Context, server, method string, params json.RawMessage) (json.RawMessage, error) {
	var p struct {
		TaskID string `json:"taskId"`
	}
	if len(params) > 0 {
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, &rpcerr.Error{Code: rpcerr.InvalidParams, Message: "invalid params: " + err.Error()}
		}
	}
	ts.mu.Lock()
	ts.expire(time.Now())
	if method == "tasks/list" {
		var list []*task
		for _, t := range ts.byID {
			if t.server == server {
				list = append(list, t)
			}
		}
		slices.SortFunc(list, func(a, b *task) int { return a.created.Compare(b.created) })
		out := struct {
			Tasks []wireTask `json:"tasks"`
		}{Tasks: []wireTask{}}
		for _, t := range list {
			out.Tasks = append(out.Tasks, t.wire())
		}
		ts.mu.Unlock()
		return json.Marshal(out)
	}
	t := ts.byID[p.TaskID]
	if t == nil || t.server != server {
		ts.mu.Unlock()
		return nil, &rpcerr.Error{Code: rpcerr.InvalidParams, Message: fmt.Sprintf("unknown task %q", p.TaskID)}
	}
	switch method {
	case "tasks/get":
		defer ts.mu.Unlock()
		return json.Marshal(t.wire())
	case "tasks/cancel":
		defer ts.mu.Unlock()
		if t.status != statusWorking {
			return nil, &rpcerr.Error{Code: rpcerr.InvalidParams, Message: fmt.Sprintf("task %q is already %s", t.id, t.status)}
		}
		t.status, t.updated, t.message = statusCancelled, time.Now(), "cancelled by the server"
		t.cancel()
		return json.Marshal(t.wire())
	case "tasks/result":
		ts.mu.Unlock()
		select {
		case <-t.done:
		case <-ctx.Done():
			return nil, &rpcerr.Error{Code: rpcerr.Internal, Message: "cancelled while waiting for the task", Err: ctx.Err()}
		}
		ts.mu.Lock()
		defer ts.mu.Unlock()
		switch t.status {
		case statusCompleted:
			return withRelatedTask(t.result, t.id)
		case statusCancelled:
			return nil, &rpcerr.Error{Code: rpcerr.Internal, Message: fmt.Sprintf("task %q was cancelled", t.id)}
		}
		return nil, t.err
	}
	ts.mu.Unlock()
	return nil, &rpcerr.Error{Code: rpcerr.MethodNotFound, Message: "method not found: " + method}
}

// withRelatedTask adds the related-task metadata to a result.
func withRelatedTask(raw json.RawMessage, id string) (json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, &rpcerr.Error{Code: rpcerr.Internal, Message: "task result: " + err.Error()}
	}
	meta, _ := json.Marshal(map[string]any{"io.modelcontextprotocol/related-task": map[string]string{"taskId": id}})
	m["_meta"] = meta
	return json.Marshal(m)
}

// Close cancels every task still running and waits for them to end.
// Start fails afterwards.
func (ts *Store) Close() {
	ts.mu.Lock()
	ts.closed = true
	ts.mu.Unlock()
	ts.end()
	ts.wg.Wait()
}
