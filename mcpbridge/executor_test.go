package mcpbridge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/confirm"
	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
)

// execServers are the servers of the executor tests: "main" (trusted, the
// exec tools), "slow" (trusted, only sleep) and "guarded" (not trusted,
// only echo). Tests that time out calls to "slow" give it a short call
// timeout with shortenCallTimeout once it connected.
func execServers() []ServerConfig {
	main := stdioServer("main", "-name=main", "-exec")
	main.Trust = true
	main.ExcludeTools = []string{"sleep", "echo"}
	slow := stdioServer("slow", "-name=slow")
	slow.Trust = true
	slow.IncludeTools = []string{"sleep"}
	guarded := stdioServer("guarded", "-name=guarded")
	guarded.IncludeTools = []string{"echo"}
	return []ServerConfig{main, slow, guarded}
}

// answers is a Confirmer that always gives one answer and counts the
// questions.
type answers struct {
	answer confirm.Answer
	asked  atomic.Int32
}

func (a *answers) Confirm(context.Context, confirm.Request) (confirm.Answer, error) {
	a.asked.Add(1)
	return a.answer, nil
}

// responseOf returns the Response map of r's function response.
func responseOf(r *CallResult) map[string]any {
	if fr := r.FunctionResponse(); fr != nil {
		return fr.Response
	}
	return nil
}

func TestExecuteErrorKinds(t *testing.T) {
	b := newBridge(t, &Options{Policy: &confirm.Policy{Confirmer: &answers{answer: confirm.Cancel}}}, execServers()...)
	discover(t, b)
	shortenCallTimeout(t, b, "slow", 300*time.Millisecond)
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()

	tests := []struct {
		name    string
		ctx     context.Context
		call    *genai.FunctionCall
		wantErr error  // nil: success
		want    string // substring of the response's error, or its exact output on success
	}{
		{"success restores the enum", nil, &genai.FunctionCall{ID: "c1", Name: "pick", Args: map[string]any{"size": "2"}},
			nil, "size=2 (float64)"},
		{"nil call", nil, nil, ErrUnknownTool, "empty function call"},
		{"unknown function", nil, &genai.FunctionCall{ID: "c2", Name: "nope"},
			ErrUnknownTool, `unknown function "nope"; available functions: add_tool, crash, echo, env, fail,`},
		{"denied by the person", nil, &genai.FunctionCall{ID: "c3", Name: "echo", Args: map[string]any{"text": "hi"}},
			ErrDenied, `function "echo" was not run: cancelled by the user`},
		{"enum value not allowed", nil, &genai.FunctionCall{Name: "pick", Args: map[string]any{"size": "4"}},
			ErrInvalidArguments, `invalid arguments for function "pick": at '/size': "4" is not one of "1", "2", "3"`},
		{"number outside the enum", nil, &genai.FunctionCall{Name: "pick", Args: map[string]any{"size": 7}},
			ErrInvalidArguments, `invalid arguments for function "pick": at '/size': value must be one of 1, 2, 3`},
		{"required property missing, nil args", nil, &genai.FunctionCall{Name: "profile"},
			ErrInvalidArguments, `at '': missing property 'id'`},
		{"pattern and extra property", nil, &genai.FunctionCall{Name: "profile", Args: map[string]any{"id": "x", "more": true}},
			ErrInvalidArguments, `does not match pattern '^u-[0-9]+$'`},
		{"args of the wrong shape", nil, &genai.FunctionCall{Name: "pick", Args: map[string]any{"size": []any{map[string]any{"a": nil}}}},
			ErrInvalidArguments, `at '/size'`},
		{"args that are not JSON", nil, &genai.FunctionCall{Name: "pick", Args: map[string]any{"size": math.Inf(1)}},
			ErrInvalidArguments, `invalid arguments for function "pick": not JSON: json: unsupported value: +Inf`},
		{"server timeout", nil, &genai.FunctionCall{Name: "sleep", Args: map[string]any{"ms": 5000}},
			ErrTimeout, `function "sleep" timed out: server "slow" did not answer within 300ms`},
		{"isError", nil, &genai.FunctionCall{Name: "fail", Args: map[string]any{"reason": "disk full"}},
			ErrToolError, "failed: disk full"},
		{"cancelled before the call", cancelled, &genai.FunctionCall{Name: "pick", Args: map[string]any{"size": "1"}},
			context.Canceled, `function "pick" was stopped: its caller cancelled the request before it finished: context canceled`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := tc.ctx
			if ctx == nil {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
			}
			// No wall-clock bound: a server timeout that did not apply
			// would let the 5s sleep succeed within ctx's 10s.
			r := b.Execute(ctx, tc.call)
			if tc.call != nil && (r.Name != tc.call.Name || r.ID != tc.call.ID) {
				t.Errorf("Execute(%s) name, id = %q, %q, want %q, %q", tc.name, r.Name, r.ID, tc.call.Name, tc.call.ID)
			}
			resp := responseOf(r)
			if tc.wantErr == nil {
				if r.Err != nil {
					t.Fatalf("Execute(%s).Err = %v, want nil", tc.name, r.Err)
				}
				if diff := cmp.Diff(map[string]any{"output": tc.want}, resp); diff != "" {
					t.Errorf("Execute(%s) response mismatch (-want +got):\n%s", tc.name, diff)
				}
				return
			}
			if !errors.Is(r.Err, tc.wantErr) {
				t.Errorf("Execute(%s).Err = %v, want %v", tc.name, r.Err, tc.wantErr)
			}
			for _, other := range []error{ErrUnknownTool, ErrDenied, ErrInvalidArguments, ErrTimeout, ErrToolError, ErrTransport, context.Canceled} {
				if other != tc.wantErr && errors.Is(r.Err, other) {
					t.Errorf("Execute(%s).Err = %v, also matches %v", tc.name, r.Err, other)
				}
			}
			msg, _ := resp["error"].(string)
			if !strings.Contains(msg, tc.want) || len(resp) != 1 {
				t.Errorf("Execute(%s) response = %v, want only an error containing %q", tc.name, resp, tc.want)
			}
			if !strings.HasPrefix(r.ReturnDisplay, "Error: ") {
				t.Errorf("Execute(%s).ReturnDisplay = %q, want an Error: line", tc.name, r.ReturnDisplay)
			}
		})
	}
}

func TestExecuteDeniedReasons(t *testing.T) {
	echo := &genai.FunctionCall{Name: "echo", Args: map[string]any{"text": "hi"}}
	t.Run("no policy: only trusted servers run", func(t *testing.T) {
		b := newBridge(t, nil, execServers()...)
		discover(t, b)
		r := b.Execute(context.Background(), echo)
		var de *DeniedError
		if !errors.As(r.Err, &de) || de.Reason != confirm.Unanswered || !errors.Is(r.Err, confirm.ErrNoConfirmer) {
			t.Errorf("Execute(echo) without policy = %v, want DeniedError Unanswered wrapping ErrNoConfirmer", r.Err)
		}
		if r := b.Execute(context.Background(), &genai.FunctionCall{Name: "lookup", Args: map[string]any{"name": "ann"}}); r.Err != nil {
			t.Errorf("Execute(lookup on a trusted server) without policy = %v, want it to run", r.Err)
		}
	})
	t.Run("deny-list wins over trust", func(t *testing.T) {
		p := &confirm.Policy{}
		p.Deny(confirm.Key{Server: "main", ServerTool: "lookup"})
		b := newBridge(t, &Options{Policy: p}, execServers()...)
		discover(t, b)
		r := b.Execute(context.Background(), &genai.FunctionCall{Name: "lookup", Args: map[string]any{"name": "ann"}})
		var de *DeniedError
		if !errors.As(r.Err, &de) || de.Reason != confirm.Denied || !strings.Contains(r.Err.Error(), "denied by policy") {
			t.Errorf("Execute(denied lookup) = %v, want DeniedError Denied", r.Err)
		}
	})
	t.Run("always allow asks once", func(t *testing.T) {
		a := &answers{answer: confirm.AlwaysTool}
		b := newBridge(t, &Options{Policy: &confirm.Policy{Confirmer: a}, PassUntrustedOutput: true}, execServers()...)
		discover(t, b)
		for i := range 3 {
			if r := b.Execute(context.Background(), echo); r.Err != nil || responseOf(r)["output"] != `{"text":"hi"}` {
				t.Errorf("Execute(echo) #%d = %v, %v, want the echo", i, responseOf(r), r.Err)
			}
		}
		if n := a.asked.Load(); n != 1 {
			t.Errorf("confirmer asked %d times, want 1", n)
		}
	})
}

func TestExecuteUnvalidated(t *testing.T) {
	var logs syncBuffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	b := newBridge(t, &Options{Logger: log}, mcptestExec("main"))
	discover(t, b)
	for _, x := range []any{5.0, "five", map[string]any{"deep": []any{1.0}}} {
		r := b.Execute(context.Background(), &genai.FunctionCall{Name: "loose", Args: map[string]any{"x": x}})
		want, _ := json.Marshal(map[string]any{"x": x})
		if r.Err != nil || responseOf(r)["output"] != string(want) {
			t.Errorf("Execute(loose %v) = %v, %v, want the arguments unvalidated", x, responseOf(r), r.Err)
		}
	}
	if n := strings.Count(logs.String(), "will not be validated"); n != 1 || !strings.Contains(logs.String(), "tool=loose") {
		t.Errorf("warnings about loose = %d, want 1:\n%s", n, logs.String())
	}
}

// syncBuffer is a bytes.Buffer safe for concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestExecuteAllRunsConcurrently(t *testing.T) {
	cfg := stdioServer("main", "-name=main", "-gather")
	cfg.Trust = true
	b := newBridge(t, nil, cfg)
	discover(t, b)
	// Each gather call returns only once all 5 are in flight at the
	// server: calls made one after another would wait until ctx ends.
	calls := make([]*genai.FunctionCall, 5)
	for i := range calls {
		calls[i] = &genai.FunctionCall{ID: fmt.Sprint(i), Name: "gather", Args: map[string]any{"n": len(calls)}}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for i, r := range mustDeclare(t, b).ExecuteAll(ctx, calls) {
		if r.Err != nil || r.ID != fmt.Sprint(i) || responseOf(r)["output"] != "gathered 5" {
			t.Errorf("ExecuteAll result %d = %s, %v, %v, want id %d and gathered 5 (all calls in flight at once)", i, r.ID, responseOf(r), r.Err, i)
		}
	}
}

func TestExecuteCancellation(t *testing.T) {
	cfg := stdioServer("s")
	cfg.Trust = true
	b := newBridge(t, nil, cfg)
	discover(t, b)
	sleep := &genai.FunctionCall{Name: "sleep", Args: map[string]any{"ms": 5000}}

	// Ignoring the cancellation would end in the 5s sleep's success or
	// the server's 10s timeout, not in context.Canceled.
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	r := b.Execute(ctx, sleep)
	if !errors.Is(r.Err, context.Canceled) || errors.Is(r.Err, ErrTimeout) || errors.Is(r.Err, ErrTransport) {
		t.Errorf("Execute(sleep) cancelled after 100ms = %v, want context.Canceled only", r.Err)
	}

	ctx, cancel = context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	r = b.Execute(ctx, sleep)
	if !errors.Is(r.Err, context.DeadlineExceeded) || errors.Is(r.Err, ErrTimeout) {
		t.Errorf("Execute(sleep) past the caller's deadline = %v, want context.DeadlineExceeded, not ErrTimeout", r.Err)
	}
	// The server is still usable.
	if r := b.Execute(context.Background(), &genai.FunctionCall{Name: "echo"}); r.Err != nil {
		t.Errorf("Execute(echo) after cancellations = %v", r.Err)
	}
}

func TestExecuteCrashThenReconnect(t *testing.T) {
	cfg := stdioServer("s")
	cfg.Trust = true
	b := newBridge(t, &Options{ReconnectInterval: -1}, cfg)
	discover(t, b)
	events, cancel := b.Subscribe()
	defer cancel()
	r := b.Execute(context.Background(), &genai.FunctionCall{ID: "x", Name: "crash"})
	if !errors.Is(r.Err, ErrTransport) || !strings.Contains(r.Err.Error(), `function "crash": call failed: mcp server "s"`) {
		t.Errorf("Execute(crash) = %v, want ErrTransport naming the server", r.Err)
	}
	waitEvent(t, events, "s DISCONNECTED", func(e Event) bool {
		return e.Kind == EventServerState && e.Server == "s" && e.State == Disconnected
	})
	r = b.Execute(context.Background(), &genai.FunctionCall{Name: "echo", Args: map[string]any{"text": "back"}})
	if r.Err != nil || responseOf(r)["output"] != `{"text":"back"}` {
		t.Errorf("Execute(echo) after the crash = %v, %v, want a reconnect and the echo", responseOf(r), r.Err)
	}
	_ = b.Close()
	r = b.Execute(context.Background(), &genai.FunctionCall{Name: "echo"})
	if !errors.Is(r.Err, ErrTransport) || !errors.Is(r.Err, ErrClosed) {
		t.Errorf("Execute after Close = %v, want ErrTransport and ErrClosed", r.Err)
	}
}

func TestExecuteHugeArgs(t *testing.T) {
	cfg := stdioServer("s")
	cfg.Trust = true
	b := newBridge(t, &Options{TextLimit: 1000}, cfg)
	discover(t, b)
	big := strings.Repeat("x", 1<<20)
	r := b.Execute(context.Background(), &genai.FunctionCall{Name: "echo", Args: map[string]any{"text": big}})
	if r.Err != nil {
		t.Fatalf("Execute(echo 1 MiB) = %v", r.Err)
	}
	out, _ := responseOf(r)["output"].(string)
	if n := len([]rune(out)); n > 1100 || !strings.Contains(out, "[... 1047587 of 1048587 characters (1047587 bytes) cut from the middle ...]") {
		t.Errorf("Execute(echo 1 MiB) output = %d characters, want 1000 kept and a note: %.200q", n, out)
	}
}

func TestExecuteAllConcurrent(t *testing.T) {
	var inConfirm, maxInConfirm atomic.Int32
	confirmer := confirm.ConfirmerFunc(func(context.Context, confirm.Request) (confirm.Answer, error) {
		n := inConfirm.Add(1)
		defer inConfirm.Add(-1)
		for {
			m := maxInConfirm.Load()
			if n <= m || maxInConfirm.CompareAndSwap(m, n) {
				break
			}
		}
		time.Sleep(5 * time.Millisecond)
		return confirm.ProceedOnce, nil
	})
	b := newBridge(t, &Options{Policy: &confirm.Policy{Confirmer: confirmer}, PassUntrustedOutput: true}, execServers()...)
	discover(t, b)
	var calls []*genai.FunctionCall
	var want []map[string]any
	for i := range 10 {
		id := fmt.Sprintf("id-%d", i)
		switch i % 3 {
		case 0:
			calls = append(calls, &genai.FunctionCall{ID: id, Name: "echo", Args: map[string]any{"text": id}})
			want = append(want, map[string]any{"output": fmt.Sprintf(`{"text":%q}`, id)})
		case 1:
			calls = append(calls, &genai.FunctionCall{ID: id, Name: "lookup", Args: map[string]any{"name": strings.Repeat("a", i)}})
			want = append(want, map[string]any{"output": fmt.Sprintf(`{"id":"u-%d"}`, i)})
		case 2:
			calls = append(calls, &genai.FunctionCall{ID: id, Name: "pick", Args: map[string]any{"size": "3"}})
			want = append(want, map[string]any{"output": "size=3 (float64)"})
		}
	}
	results := mustDeclare(t, b).ExecuteAll(context.Background(), calls)
	var got []map[string]any
	for i, r := range results {
		if r.ID != calls[i].ID || r.Name != calls[i].Name {
			t.Errorf("ExecuteAll result %d = %s/%s, want %s/%s", i, r.Name, r.ID, calls[i].Name, calls[i].ID)
		}
		got = append(got, responseOf(r))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ExecuteAll responses mismatch (-want +got):\n%s", diff)
	}
	if m := maxInConfirm.Load(); m != 1 {
		t.Errorf("confirmers overlapping at most %d, want 1", m)
	}
	if got := mustDeclare(t, b).ExecuteAll(context.Background(), nil); len(got) != 0 {
		t.Errorf("ExecuteAll(nil) = %v, want empty", got)
	}
}

// TestExecuteConcurrentSameBridge runs many Executes at once for -race.
func TestExecuteConcurrentSameBridge(t *testing.T) {
	b := newBridge(t, nil, execServers()...)
	discover(t, b)
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			r := b.Execute(context.Background(), &genai.FunctionCall{Name: "pick", Args: map[string]any{"size": fmt.Sprint(i%3 + 1)}})
			if want := fmt.Sprintf("size=%d (float64)", i%3+1); r.Err != nil || responseOf(r)["output"] != want {
				t.Errorf("Execute(pick %d) = %v, %v, want %s", i%3+1, responseOf(r), r.Err, want)
			}
		})
	}
	wg.Wait()
}

func TestExecuteTimeoutEachTransport(t *testing.T) {
	for _, tr := range transports {
		t.Run(string(tr), func(t *testing.T) {
			cfg := serverFor(t, "s", tr, testserver.Options{})
			cfg.Trust = true
			b := newBridge(t, nil, cfg)
			discover(t, b)
			shortenCallTimeout(t, b, "s", 300*time.Millisecond)
			r := b.Execute(context.Background(), &genai.FunctionCall{Name: "sleep", Args: map[string]any{"ms": 5000}})
			if !errors.Is(r.Err, ErrTimeout) || errors.Is(r.Err, ErrTransport) {
				t.Errorf("Execute(sleep 5s) with timeout 300ms over %v = %v, want ErrTimeout", tr, r.Err)
			}
			// The server still serves calls. This one is not timed: on a
			// starved core an echo took longer than 300ms.
			shortenCallTimeout(t, b, "s", cfg.Timeout)
			if r := b.Execute(context.Background(), &genai.FunctionCall{Name: "echo"}); r.Err != nil {
				t.Errorf("Execute(echo) after the timeout over %v = %v", tr, r.Err)
			}
		})
	}
}
