package mcpconn

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
)

func TestDialFaults(t *testing.T) {
	for _, tc := range []struct {
		name    string
		spec    Spec
		wantErr []string
	}{
		// Failures found at once: Timeout is testTimeout (or the default
		// 10 minutes), and an error that is the fault's, not a deadline,
		// shows Dial did not wait for it.
		{"missing command", Spec{Name: "x", Command: "mcpconn-no-such-command-xyz"}, []string{`"x"`, "executable file not found"}},
		{"missing path", Spec{Name: "x", Command: "/nonexistent/dir/server"}, []string{"no such file"}},
		{"no command", Spec{Name: "x"}, []string{`"x"`, "no command"}},
		{"no url", Spec{Name: "x", Kind: SSE}, []string{"no url"}},
		{"exits at once", stdioSpec("-exit-now=2"), []string{"exit status 2", "exiting at once as asked"}},
		{"exits at once with 0", stdioSpec("-exit-now=0"), []string{"status 0", "exiting at once as asked"}},
		// Servers that never answer: the short Timeout is under test
		// (TestStopStubbornProcess shows the process is then stopped).
		{"never initializes", withTimeout(stdioSpec("-never-init"), 500*time.Millisecond), []string{"initialize", "deadline exceeded", "timeout 500ms"}},
		{"never initializes, ignores stdin EOF", withTimeout(stdioSpec("-never-init", "-ignore-stdin-eof"), 300*time.Millisecond), []string{"deadline exceeded"}},
		{"only garbage on stdout", withTimeout(stdioSpec("-garbage=50", "-never-init"), 300*time.Millisecond), []string{"deadline exceeded"}},
		{"http refused", Spec{Name: "h", Kind: StreamableHTTP, URL: "http://127.0.0.1:1/mcp", Timeout: testTimeout}, []string{"initialize", "refused"}},
		{"auto refused", Spec{Name: "h", Kind: Auto, URL: "http://127.0.0.1:1/mcp", Timeout: testTimeout}, []string{"(http)", "refused"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Dial(context.Background(), tc.spec)
			if err == nil {
				_ = c.Close()
				t.Fatalf("Dial() = nil error, want one")
			}
			t.Logf("Dial() = %v", err)
			// The stderr tail rides beside the message, never in it.
			tail := StderrOf(err)
			if tail != "" && strings.Contains(err.Error(), tail) {
				t.Errorf("Dial() = %v, holds its stderr tail %q", err, tail)
			}
			for _, w := range tc.wantErr {
				if !strings.Contains(err.Error()+"\n"+tail, w) {
					t.Errorf("Dial() = %v (stderr %q), want it to contain %q", err, tail, w)
				}
			}
			wantDeadline := slices.ContainsFunc(tc.wantErr, func(w string) bool { return strings.Contains(w, "deadline") })
			if !wantDeadline && (strings.Contains(err.Error(), "deadline exceeded") || strings.Contains(err.Error(), "timeout")) {
				t.Errorf("Dial() = %v, want the fault's own error, not a timeout", err)
			}
		})
	}
}

func withTimeout(s Spec, d time.Duration) Spec {
	s.Timeout = d
	return s
}

func TestDialHonoursContext(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	c, err := Dial(ctx, stdioSpec("-never-init")) // Timeout: testTimeout
	if err == nil {
		_ = c.Close()
		t.Fatalf("Dial() = nil error, want deadline")
	}
	// ctx's deadline, not the spec's Timeout, ended the dial: a timeout
	// error would name it ("timeout 10s").
	if !errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "timeout") {
		t.Errorf("Dial() = %v, want context.DeadlineExceeded and no timeout", err)
	}
}

func TestStderrFlood(t *testing.T) {
	for _, tc := range []struct {
		name  string
		limit int
	}{
		{"default limit", 0},
		{"small limit", 1000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := stdioSpec("-stderr-bytes=10485760")
			s.StderrLimit = tc.limit
			// A stderr not drained would block the server before it
			// answers: Dial (and ListTools) succeeding is the proof.
			c := dialT(t, s)
			if _, err := c.ListTools(context.Background()); err != nil {
				t.Errorf("ListTools() = %v", err)
			}
			limit := tc.limit
			if limit == 0 {
				limit = DefaultStderrLimit
			}
			// stderr is read concurrently with stdout: wait for the line
			// written just before the server started answering.
			got := c.Stderr()
			for end := time.Now().Add(fast); !strings.HasSuffix(got, "mcptest: serving\n") && time.Now().Before(end); got = c.Stderr() {
				time.Sleep(10 * time.Millisecond)
			}
			if len(got) > limit {
				t.Errorf("len(Stderr()) = %d, want <= %d", len(got), limit)
			}
			if !strings.Contains(got, "mcptest: flood done") || !strings.HasSuffix(got, "mcptest: serving\n") {
				t.Errorf("Stderr() tail = %q, want the flood's end and the serving line", got[max(0, len(got)-200):])
			}
		})
	}
}

func TestGarbageStdout(t *testing.T) {
	c := dialT(t, stdioSpec("-garbage=100"))
	tools, err := c.ListTools(context.Background())
	if err != nil || len(tools) == 0 {
		t.Errorf("ListTools() after garbage = %d tools, %v, want tools", len(tools), err)
	}
}

func TestServerDies(t *testing.T) {
	for _, tc := range []struct {
		name    string
		trigger bool // call the crash tool, else create the crash file
		stderr  string
	}{
		{"crash tool", true, "crash tool called"},
		{"crash on its own", false, "crashing on schedule"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			crash := filepath.Join(t.TempDir(), "crash")
			s := stdioSpec("-crash-on-file=" + crash)
			closed := make(chan error, 2)
			s.OnClose = func(err error) { closed <- err }
			c := dialT(t, s)
			if tc.trigger {
				if _, err := c.CallTool(context.Background(), "crash", nil); err == nil {
					t.Errorf("CallTool(crash) = nil error, want one")
				}
			} else if err := os.WriteFile(crash, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-closed:
				if err == nil || !strings.Contains(err.Error(), "exit status 3") {
					t.Errorf("OnClose(%v), want exit status 3", err)
				}
			case <-time.After(fast):
				t.Fatalf("OnClose not called within %v", fast)
			}
			if err := c.Err(); err == nil || !strings.Contains(err.Error(), "exit status 3") {
				t.Errorf("Err() = %v, want exit status 3", err)
			}
			// ErrNotSent: the call failed without waiting for Timeout.
			_, err := c.CallTool(context.Background(), "echo", nil)
			if err == nil || !strings.Contains(err.Error(), "exit status 3") || !errors.Is(err, ErrNotSent) {
				t.Errorf("CallTool() on dead server = %v, want ErrNotSent with exit status 3", err)
			}
			if !strings.Contains(c.Stderr(), tc.stderr) {
				t.Errorf("Stderr() = %q, want %q", c.Stderr(), tc.stderr)
			}
		})
	}
}

// TestCallRightAfterExit sends a request after the server has exited but
// possibly before its death was recorded: the request must not be written
// to the closed transport, and its error says it was not sent, with the
// exit status.
func TestCallRightAfterExit(t *testing.T) {
	for i := range 10 {
		c := dialT(t, stdioSpec())
		if _, err := c.CallTool(context.Background(), "crash", nil); err == nil {
			t.Fatalf("run %d: CallTool(crash) = nil error, want one", i)
		}
		_, err := c.CallTool(context.Background(), "echo", nil)
		if !errors.Is(err, ErrNotSent) || !strings.Contains(err.Error(), "exit status 3") {
			t.Fatalf("run %d: CallTool() right after the exit = %v, want ErrNotSent with exit status 3", i, err)
		}
	}
}

func TestHTTPServerDies(t *testing.T) {
	for _, kind := range []Kind{SSE, StreamableHTTP} {
		t.Run(kind.String(), func(t *testing.T) {
			h := httpServer(t, kind, testserver.Options{})
			closed := make(chan error, 2)
			h.spec.OnClose = func(err error) { closed <- err }
			c := dialT(t, h.spec)
			h.Server.CloseClientConnections()
			h.Server.Close()
			// No request: the lost SSE stream, or the failed reconnect of
			// the HTTP listening stream, tells that the server is gone.
			select {
			case err := <-closed:
				if err == nil {
					t.Errorf("OnClose(nil), want an error")
				}
			case <-time.After(fast):
				t.Fatalf("OnClose not called within %v", fast)
			}
			if c.Err() == nil {
				t.Errorf("Err() = nil after the server stopped, want an error")
			}
			// Waiting for Timeout would end in a timeout error.
			if _, err := c.ListTools(context.Background()); err == nil || strings.Contains(err.Error(), "timed out") {
				t.Errorf("ListTools() on dead connection = %v, want an error without waiting for Timeout %v", err, h.spec.Timeout)
			}
		})
	}
}

func TestCallCancelAndTimeout(t *testing.T) {
	for _, kind := range kinds {
		t.Run(kind.String(), func(t *testing.T) {
			// Connect with the generous timeout, then bound each request
			// by 400ms: starting the server is not what is timed here.
			c := dialT(t, specFor(t, kind, testserver.Options{}))
			c.spec.Timeout = 400 * time.Millisecond
			// The sleeps outlast every deadline here: a call that ended
			// otherwise than by its deadline would succeed.
			sleep := map[string]any{"ms": 60000}

			ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
			defer cancel()
			_, err := c.CallTool(ctx, "sleep", sleep)
			if !errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "timed out after") {
				t.Errorf("CallTool(sleep) with cancelled ctx = %v, want the caller's deadline exceeded, not Timeout", err)
			}

			_, err = c.CallTool(context.Background(), "sleep", sleep)
			if err == nil || !strings.Contains(err.Error(), "timed out after 400ms") {
				t.Errorf("CallTool(sleep) past Timeout = %v, want timed out after 400ms", err)
			}
			if c.Err() != nil {
				t.Errorf("Err() after a timeout = %v, want nil (still alive)", c.Err())
			}
			// The connection still serves calls. This one is not timed:
			// on a loaded machine an echo took 300ms, and failed one run
			// in sixty within 400ms.
			c.spec.Timeout = testTimeout
			if _, err := c.CallTool(context.Background(), "echo", map[string]any{"text": "still here"}); err != nil {
				t.Errorf("CallTool(echo) after timeouts = %v, want nil", err)
			}
		})
	}
}

func TestUnknownContentKept(t *testing.T) {
	for _, kind := range kinds {
		t.Run(kind.String(), func(t *testing.T) {
			c := dialT(t, specFor(t, kind, testserver.Options{}))
			raw, err := c.CallTool(context.Background(), "weird", nil)
			if err != nil {
				t.Fatalf("CallTool(weird) = %v, want raw result", err)
			}
			if !strings.Contains(string(raw), `"hologram"`) || !strings.Contains(string(raw), `"before"`) {
				t.Errorf("CallTool(weird) = %s, want both blocks", raw)
			}
		})
	}
}

func TestToolErrorsAreResults(t *testing.T) {
	c := dialT(t, stdioSpec())
	_, err := c.CallTool(context.Background(), "no_such_tool", nil)
	if err == nil || !strings.Contains(err.Error(), "no_such_tool") {
		t.Errorf("CallTool(no_such_tool) = %v, want the server's error", err)
	}
	if c.Err() != nil {
		t.Errorf("Err() after a JSON-RPC error = %v, want nil", c.Err())
	}
}

func TestCloseEndsProcess(t *testing.T) {
	c, err := Dial(context.Background(), stdioSpec())
	if err != nil {
		t.Fatalf("Dial() = %v", err)
	}
	for range 3 {
		if err := c.Close(); err != nil {
			t.Errorf("Close() = %v, want nil", err)
		}
	}
	select {
	case <-c.proc.exited:
		// The test server exits 0 on stdin EOF, Close's first step; on
		// SIGTERM it exits 1, and SIGKILL shows as a signal. Status 0 shows
		// that Close ended it without its grace periods.
		if st := c.proc.cmd.ProcessState; st == nil || !st.Exited() || st.ExitCode() != 0 {
			t.Errorf("after Close, ProcessState = %v, want exit status 0 (ended by stdin EOF)", st)
		}
	default:
		t.Errorf("after Close, the process has not been reaped")
	}
	if !errors.Is(c.Err(), ErrClosed) {
		t.Errorf("Err() after Close = %v, want ErrClosed", c.Err())
	}
	if _, err := c.ListTools(context.Background()); !errors.Is(err, ErrClosed) {
		t.Errorf("ListTools() after Close = %v, want ErrClosed", err)
	}
}

// TestCallToolIn checks the call that runs in its caller's context: a
// deadline within Timeout is the caller's (and ends the call as such), a
// later one leaves the call its own Timeout without ending the caller's
// context, and a connection that closes during the call ends the caller's
// context through its cancel.
func TestCallToolIn(t *testing.T) {
	c := dialT(t, stdioSpec())
	c.spec.Timeout = 400 * time.Millisecond
	sleep := map[string]any{"ms": 60000} // outlasts every deadline here

	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := c.CallToolIn(ctx, cancel, "sleep", sleep)
	if !errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "timed out after") {
		t.Errorf("CallToolIn(sleep) within the caller's deadline = %v, want the caller's deadline exceeded", err)
	}

	ctx, cancel = context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err = c.CallToolIn(ctx, cancel, "sleep", sleep)
	if err == nil || !strings.Contains(err.Error(), "timed out after 400ms") {
		t.Errorf("CallToolIn(sleep) with a deadline past Timeout = %v, want timed out after 400ms", err)
	}
	if ctx.Err() != nil {
		t.Errorf("caller's context after the call's own timeout: %v, want still live", ctx.Err())
	}

	// Close during the call. Under load the Close may come before the
	// request is written (ErrNotSent: legal, but not the case under test),
	// so that outcome tries again on a fresh connection.
	for attempt := 1; ; attempt++ {
		c := dialT(t, stdioSpec())
		c.spec.Timeout = time.Minute
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		closer := time.AfterFunc(100*time.Millisecond, func() { _ = c.Close() })
		_, err = c.CallToolIn(ctx, cancel, "sleep", sleep)
		closer.Stop()
		ctxErr := ctx.Err()
		cancel()
		if errors.Is(err, ErrNotSent) && attempt < 5 {
			continue
		}
		if !errors.Is(err, ErrClosed) || errors.Is(err, ErrNotSent) {
			t.Errorf("CallToolIn(sleep) during Close = %v, want ErrClosed after the request was sent", err)
		}
		if !errors.Is(ctxErr, context.Canceled) {
			t.Errorf("caller's context after Close during the call: %v, want cancelled", ctxErr)
		}
		break
	}
}

func TestCloseDuringCall(t *testing.T) {
	c, err := Dial(context.Background(), stdioSpec())
	if err != nil {
		t.Fatalf("Dial() = %v", err)
	}
	errc := make(chan error, 1)
	go func() {
		_, err := c.CallTool(context.Background(), "sleep", map[string]any{"ms": 10000})
		errc <- err
	}()
	time.Sleep(100 * time.Millisecond)
	_ = c.Close()
	select {
	case err := <-errc:
		if !errors.Is(err, ErrClosed) {
			t.Errorf("CallTool() during Close = %v, want ErrClosed", err)
		}
	case <-time.After(fast):
		t.Fatalf("CallTool() still running %v after Close", fast)
	}
}

func TestHandwrittenToolList(t *testing.T) {
	t.Run("exact bytes, no name skipped, duplicate kept once", func(t *testing.T) {
		c := dialT(t, stdioSpec("-handwritten=once"))
		tools, err := c.ListTools(context.Background())
		if err != nil {
			t.Fatalf("ListTools() = %v", err)
		}
		if len(tools) != 1 || tools[0].Name != "spaced" {
			t.Fatalf("ListTools() = %v, want one tool named spaced", toolNames(tools))
		}
		if got, want := string(tools[0].InputSchema), `{ "type" : "object", "z":1,"a":{"const":2} }`; got != want {
			t.Errorf("InputSchema = %s, want exactly %s", got, want)
		}
		a := tools[0].Annotations
		if a.DestructiveHint == nil || !*a.DestructiveHint || a.ReadOnlyHint != nil {
			t.Errorf("Annotations = %+v, want destructiveHint true and the badly typed readOnlyHint dropped", a)
		}
	})
	t.Run("cursor loop", func(t *testing.T) {
		c := dialT(t, stdioSpec("-handwritten=loop"))
		// Stopping at the repeated cursor, not at Timeout: the error says so.
		_, err := c.ListTools(context.Background())
		if err == nil || !strings.Contains(err.Error(), `cursor "same" repeated`) {
			t.Errorf("ListTools() = %v, want a repeated cursor error", err)
		}
	})
}

func TestHugeToolList(t *testing.T) {
	c := dialT(t, stdioSpec("-tools=5000"))
	start := time.Now()
	tools, err := c.ListTools(context.Background())
	if err != nil {
		t.Fatalf("ListTools() = %v", err)
	}
	if len(tools) < 5000 {
		t.Errorf("ListTools() = %d tools, want at least 5000", len(tools))
	}
	t.Logf("5000-tool list read in %v", time.Since(start))
}
