package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// script is a Peer whose tasks/get answers come from a list (the last one
// repeats), recording every request with the time it came.
type script struct {
	mu      sync.Mutex
	gets    []string // raw tasks/get results; "reject" answers with ErrRejected
	result  string   // the tasks/result answer; "reject" rejects
	log     []string
	start   time.Time
	blockRe bool // tasks/result waits for ctx
}

func (s *script) note(what string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log = append(s.log, fmt.Sprintf("%v %s", time.Since(s.start).Round(time.Millisecond), what))
}

func (s *script) Get(ctx context.Context, id string) (json.RawMessage, error) {
	s.note("get " + id)
	s.mu.Lock()
	g := s.gets[0]
	if len(s.gets) > 1 {
		s.gets = s.gets[1:]
	}
	s.mu.Unlock()
	if g == "reject" {
		return nil, fmt.Errorf("%w: task not found", ErrRejected)
	}
	return json.RawMessage(g), nil
}

func (s *script) Result(ctx context.Context, id string) (json.RawMessage, error) {
	s.note("result " + id)
	if s.blockRe {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	if s.result == "reject" {
		return nil, fmt.Errorf("%w: boom", ErrRejected)
	}
	return json.RawMessage(s.result), nil
}

func (s *script) Cancel(ctx context.Context, id string) error {
	s.note("cancel " + id)
	return nil
}

// Answer answers roots/list and elicitation/create; the rest is
// unsupported.
func (s *script) Answer(ctx context.Context, req json.RawMessage) (json.RawMessage, error) {
	var m struct{ Method string }
	_ = json.Unmarshal(req, &m)
	s.note("answer " + m.Method)
	if m.Method == "sampling/createMessage" {
		return nil, fmt.Errorf("%w: no sampler", ErrInputUnsupported)
	}
	return json.RawMessage(`{}`), nil
}

// Update rejects the update of the task "lost".
func (s *script) Update(ctx context.Context, id string, responses map[string]json.RawMessage) error {
	keys := ""
	for k := range responses {
		keys += " " + k
	}
	s.note("update " + id + keys)
	if id == "lost" {
		return fmt.Errorf("%w: no such task", ErrRejected)
	}
	return nil
}

// answerer marks the test cases whose Options.Input is the script.
var answerer Input = &script{}

func TestWait(t *testing.T) {
	working := `{"taskId":"t","status":"working","pollInterval":1000,"statusMessage":"%s"}`
	ask := `{"resultType":"complete","taskId":"t","status":"input_required","inputRequests":{"a":{"method":"elicitation/create","params":{"message":"?"}}}}`
	tests := []struct {
		name    string
		first   Task
		gets    []string
		result  string
		o       Options
		ctxEnd  time.Duration // the caller gives up after this; 0 = never
		want    string
		err     error
		log     []string
		reports []string
	}{
		{
			name:  "completes after polls",
			first: Task{ID: "t", Status: Working, Message: "one", PollInterval: time.Second},
			gets: []string{fmt.Sprintf(working, "one"), fmt.Sprintf(working, "two"),
				`{"taskId":"t","status":"completed","statusMessage":"done"}`},
			result:  `{"content":[]}`,
			want:    `{"content":[]}`,
			log:     []string{"1s get t", "2s get t", "3s get t", "3s result t"},
			reports: []string{"one", "two", "done"},
		},
		{
			name:  "default interval grows",
			first: Task{ID: "t", Status: Working},
			gets:  []string{`{"taskId":"t","status":"working"}`, `{"taskId":"t","status":"working"}`, `{"taskId":"t","status":"working"}`, `{"resultType":"complete","taskId":"t","status":"completed","result":{"content":[{"type":"text","text":"hi"}]}}`},
			want:  `{"content":[{"type":"text","text":"hi"}]}`,
			log:   []string{"100ms get t", "300ms get t", "700ms get t", "1.5s get t"},
		},
		{
			name:   "failed",
			first:  Task{ID: "t", Status: Working, PollInterval: time.Second},
			gets:   []string{`{"taskId":"t","status":"failed","statusMessage":"disk full"}`},
			result: "reject",
			err:    ErrFailed,
			log:    []string{"1s get t", "1s result t"},
		},
		{
			name:  "failed inline",
			first: Task{ID: "t", Status: Failed, Error: json.RawMessage(`{"code":-32603,"message":"broke"}`)},
			err:   ErrFailed,
		},
		{
			name:  "cancelled by the server",
			first: Task{ID: "t", Status: Cancelled, Message: "shutting down"},
			err:   ErrCancelled,
		},
		{
			name:  "lost",
			first: Task{ID: "t", Status: Working, PollInterval: time.Second},
			gets:  []string{"reject"},
			err:   ErrLost,
			log:   []string{"1s get t"},
		},
		{
			name:  "another task answered",
			first: Task{ID: "t", Status: Working, PollInterval: time.Second},
			gets:  []string{`{"taskId":"u","status":"working"}`},
			err:   ErrLost,
			log:   []string{"1s get t"},
		},
		{
			name:  "ttl of zero",
			first: Task{ID: "t", Status: Working, HasTTL: true},
			gets:  []string{fmt.Sprintf(working, "")},
			err:   ErrExpired,
			log:   []string{"0s cancel t"},
		},
		{
			name:  "outlives its ttl",
			first: Task{ID: "t", Status: Working, TTL: 2500 * time.Millisecond, HasTTL: true, PollInterval: time.Second},
			gets:  []string{`{"taskId":"t","status":"working","ttl":2500}`},
			err:   ErrExpired,
			log:   []string{"1s get t", "2s get t", "2.5s get t", "2.5s cancel t"},
		},
		{
			name:  "never ends",
			first: Task{ID: "t", Status: Working, PollInterval: time.Second},
			gets:  []string{`{"taskId":"t","status":"working"}`},
			o:     Options{MaxTime: 2500 * time.Millisecond},
			err:   ErrTooLong,
			log:   []string{"1s get t", "2s get t", "2.5s cancel t"},
		},
		{
			name:   "caller gives up",
			first:  Task{ID: "t", Status: Working, PollInterval: time.Second},
			gets:   []string{`{"taskId":"t","status":"working"}`},
			ctxEnd: 1500 * time.Millisecond,
			err:    context.Canceled,
			log:    []string{"1s get t", "1.5s cancel t"},
		},
		{
			name:  "malformed poll",
			first: Task{ID: "t", Status: Working, PollInterval: time.Second},
			gets:  []string{`{"taskId":"t","status":"done"}`},
			err:   ErrMalformed,
			log:   []string{"1s get t", "1s cancel t"},
		},
		{
			name:   "input required",
			first:  Task{ID: "t", Status: InputRequired, PollInterval: time.Second},
			result: `{"content":[]}`,
			want:   `{"content":[]}`,
			log:    []string{"0s result t"},
		},
		{
			name:  "extension input without a handler",
			first: Task{ID: "t", Status: InputRequired, InputRequests: json.RawMessage(`{"a":{"method":"elicitation/create"}}`)},
			err:   ErrInputUnsupported,
			log:   []string{"0s cancel t"},
		},
		{
			name:  "extension input answered once",
			first: Task{ID: "t", Status: Working, PollInterval: time.Second},
			gets: []string{ask, ask, // the server has not taken the answer in yet
				`{"resultType":"complete","taskId":"t","status":"input_required","inputRequests":{"a":{"method":"elicitation/create"},"b":{"method":"roots/list"}}}`,
				`{"resultType":"complete","taskId":"t","status":"completed","result":{"content":[]}}`},
			o:    Options{Extension: true, Input: answerer},
			want: `{"content":[]}`,
			log: []string{"1s get t", "1s answer elicitation/create", "1s update t a", "2s get t",
				"3s get t", "3s answer roots/list", "3s update t b", "4s get t"},
		},
		{
			name:  "extension input refused by the host",
			first: Task{ID: "t", Status: Working, PollInterval: time.Second},
			gets:  []string{`{"taskId":"t","status":"input_required","inputRequests":{"a":{"method":"sampling/createMessage"}}}`},
			o:     Options{Extension: true, Input: answerer},
			err:   ErrInputUnsupported,
			log:   []string{"1s get t", "1s answer sampling/createMessage", "1s cancel t"},
		},
		{
			name:  "extension update of a lost task",
			first: Task{ID: "lost", Status: InputRequired, InputRequests: json.RawMessage(`{"a":{"method":"roots/list"}}`)},
			o:     Options{Extension: true, Input: answerer},
			err:   ErrLost,
			log:   []string{"0s answer roots/list", "0s update lost a"},
		},
		{
			name:  "extension malformed input requests",
			first: Task{ID: "t", Status: InputRequired, InputRequests: json.RawMessage(`["a"]`)},
			o:     Options{Extension: true, Input: answerer},
			err:   ErrMalformed,
			log:   []string{"0s cancel t"},
		},
		{
			name:  "extension completed without a result",
			first: Task{ID: "t", Status: Working, PollInterval: time.Second},
			gets:  []string{`{"taskId":"t","status":"completed"}`},
			o:     Options{Extension: true},
			err:   ErrMalformed,
			log:   []string{"1s get t"},
		},
		{
			name:  "extension failed without an error",
			first: Task{ID: "t", Status: Failed, Message: "gave up"},
			o:     Options{Extension: true},
			err:   ErrFailed,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := &script{gets: tt.gets, result: tt.result, start: time.Now()}
				if tt.o.Input != nil {
					tt.o.Input = s
				}
				if s.gets == nil {
					s.gets = []string{"reject"}
				}
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				if tt.ctxEnd > 0 {
					time.AfterFunc(tt.ctxEnd, cancel)
				}
				var reports []string
				o := tt.o
				o.Status = func(m string) { reports = append(reports, m) }
				raw, err := Wait(ctx, s, tt.first, o)
				if !errors.Is(err, tt.err) || string(raw) != tt.want {
					t.Fatalf("Wait = %s, %v; want %s, %v", raw, err, tt.want, tt.err)
				}
				if diff := cmp.Diff(tt.log, s.log); diff != "" {
					t.Errorf("requests (-want +got):\n%s", diff)
				}
				if tt.reports != nil {
					if diff := cmp.Diff(tt.reports, reports); diff != "" {
						t.Errorf("status reports (-want +got):\n%s", diff)
					}
				}
			})
		})
	}
}

// TestWaitInputTimeout: a tasks/result that runs out of its own time while
// the task waits for input is followed by polling, not by an error.
func TestWaitInputTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &timeoutResult{}
		raw, err := Wait(t.Context(), s, Task{ID: "t", Status: InputRequired, PollInterval: time.Second}, Options{})
		if err != nil || string(raw) != `{"content":[]}` {
			t.Fatalf("Wait = %s, %v; want the result", raw, err)
		}
		if s.results != 2 {
			t.Errorf("tasks/result sent %d times, want 2", s.results)
		}
	})
}

type timeoutResult struct{ results int }

func (s *timeoutResult) Get(context.Context, string) (json.RawMessage, error) {
	return json.RawMessage(`{"taskId":"t","status":"completed"}`), nil
}

func (s *timeoutResult) Result(ctx context.Context, _ string) (json.RawMessage, error) {
	s.results++
	if s.results == 1 {
		return nil, context.DeadlineExceeded
	}
	return json.RawMessage(`{"content":[]}`), nil
}

func (s *timeoutResult) Cancel(context.Context, string) error { return nil }
