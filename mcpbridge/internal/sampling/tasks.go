package sampling

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"
)

// A server may ask for a sampling request to run as a task: the client
// answers at once with the task, runs the request in the background, and
// the server polls tasks/get and fetches tasks/result. Each server sees
// only its own tasks.

// Task limits.
const (
	maxTasksPerServer = 32
	maxTaskTTL        = 10 * time.Minute
	defaultTaskTTL    = 5 * time.Minute
	pollInterval      = 500 // ms, suggested to the server
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
	err              *RPCError
	done             chan struct{}
	cancel           context.CancelFunc
}

type tasks struct {
	life   context.Context
	end    context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex
	byID   map[string]*task
	closed bool
}

func newTasks() *tasks {
	ctx, cancel := context.WithCancel(context.Background())
	return &tasks{life: ctx, end: cancel, byID: map[string]*task{}}
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

// start runs run as a task of server and returns the CreateTaskResult.
// The task's context carries the values of ctx (its trace among them)
// but ends only with the task.
func (ts *tasks) start(ctx context.Context, server string, params json.RawMessage, run func(context.Context) (json.RawMessage, error)) (json.RawMessage, error) {
	var p struct {
		Task struct {
			TTL *int64 `json:"ttl"`
		} `json:"task"`
	}
	_ = json.Unmarshal(params, &p) // Parse already read it
	ttl := defaultTaskTTL
	if p.Task.TTL != nil && *p.Task.TTL > 0 {
		ttl = min(time.Duration(*p.Task.TTL)*time.Millisecond, maxTaskTTL)
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
		return nil, &RPCError{Code: CodeInternal, Message: "the client is closing"}
	}
	ts.expire(now)
	if ts.count(server) >= maxTasksPerServer {
		ts.mu.Unlock()
		stopLife()
		cancel()
		return nil, &RPCError{Code: CodeLimited, Message: fmt.Sprintf("at most %d sampling tasks per server", maxTasksPerServer)}
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
				t.message = t.err.Message
			} else {
				t.status, t.result = statusCompleted, res
			}
		}
		close(t.done)
	}()
	return out, nil
}

func asRPC(err error) *RPCError {
	if e, ok := err.(*RPCError); ok {
		return e
	}
	return &RPCError{Code: CodeInternal, Message: err.Error(), Err: err}
}

// count returns how many tasks server has. Under mu.
func (ts *tasks) count(server string) int {
	n := 0
	for _, t := range ts.byID {
		if t.server == server {
			n++
		}
	}
	return n
}

// expire forgets finished tasks whose time to live is over. Under mu.
func (ts *tasks) expire(now time.Time) {
	for id, t := range ts.byID {
		if t.status != statusWorking && now.Sub(t.created) > t.ttl {
			delete(ts.byID, id)
		}
	}
}

// handle answers a tasks/* request of server.
func (ts *tasks) handle(ctx context.Context, server, method string, params json.RawMessage) (json.RawMessage, error) {
	var p struct {
		TaskID string `json:"taskId"`
	}
	if len(params) > 0 {
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, &RPCError{Code: CodeInvalidParams, Message: "invalid params: " + err.Error()}
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
		return nil, &RPCError{Code: CodeInvalidParams, Message: fmt.Sprintf("unknown task %q", p.TaskID)}
	}
	switch method {
	case "tasks/get":
		defer ts.mu.Unlock()
		return json.Marshal(t.wire())
	case "tasks/cancel":
		defer ts.mu.Unlock()
		if t.status != statusWorking {
			return nil, &RPCError{Code: CodeInvalidParams, Message: fmt.Sprintf("task %q is already %s", t.id, t.status)}
		}
		t.status, t.updated, t.message = statusCancelled, time.Now(), "cancelled by the server"
		t.cancel()
		return json.Marshal(t.wire())
	case "tasks/result":
		ts.mu.Unlock()
		select {
		case <-t.done:
		case <-ctx.Done():
			return nil, &RPCError{Code: CodeInternal, Message: "cancelled while waiting for the task", Err: ctx.Err()}
		}
		ts.mu.Lock()
		defer ts.mu.Unlock()
		switch t.status {
		case statusCompleted:
			return withRelatedTask(t.result, t.id)
		case statusCancelled:
			return nil, &RPCError{Code: CodeInternal, Message: fmt.Sprintf("task %q was cancelled", t.id)}
		}
		return nil, t.err
	}
	ts.mu.Unlock()
	return nil, &RPCError{Code: -32601, Message: "method not found: " + method}
}

// withRelatedTask adds the related-task metadata to a result.
func withRelatedTask(raw json.RawMessage, id string) (json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, &RPCError{Code: CodeInternal, Message: "task result: " + err.Error()}
	}
	meta, _ := json.Marshal(map[string]any{"io.modelcontextprotocol/related-task": map[string]string{"taskId": id}})
	m["_meta"] = meta
	return json.Marshal(m)
}

// close cancels every task and waits for them.
func (ts *tasks) close() {
	ts.mu.Lock()
	ts.closed = true
	ts.mu.Unlock()
	ts.end()
	ts.wg.Wait()
}
