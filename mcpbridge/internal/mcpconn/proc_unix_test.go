//go:build unix

package mcpconn

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestStopStubbornProcess: a process (and its child) ignoring stdin EOF and
// SIGTERM is killed after the grace periods, and stop returns.
func TestStopStubbornProcess(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	tl := newTail(1024)
	s := Spec{Name: "stubborn", Command: "sh", Args: []string{"-c", `trap "" TERM; echo started >&2; sleep 30 & wait; sleep 30`}}
	p, err := startProc(&s, tl)
	if err != nil {
		t.Fatalf("startProc() = %v", err)
	}
	// The shell set its trap before it wrote "started": wait for that
	// line rather than guess how long starting takes.
	for end := time.Now().Add(fast); !strings.Contains(tl.String(), "started"); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("stderr = %q after %v, want started", tl.String(), fast)
		}
	}
	p.stop()
	select {
	case <-p.exited:
	default:
		t.Fatalf("process not reaped after stop()")
	}
	// Without the kill, stop would wait for the 30s sleeps and the shell
	// would exit 0; SIGKILL shows the grace periods ran out and stop
	// killed it.
	var exit *exec.ExitError
	if !errors.As(p.waitErr, &exit) {
		t.Fatalf("process ended with %v, want killed by SIGKILL", p.waitErr)
	}
	if ws, ok := exit.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Errorf("process ended with %v, want killed by SIGKILL", p.waitErr)
	}
	if !strings.Contains(tl.String(), "started") {
		t.Errorf("stderr = %q, want started", tl.String())
	}
}

// TestStopWholeGroup: a background program in the server's process group is
// stopped by stop even when the server itself has already exited.
func TestStopWholeGroup(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	tl := newTail(1024)
	s := Spec{Name: "leader-exits", Command: "sh", Args: []string{"-c", `sleep 60 </dev/null >/dev/null 2>&1 & echo "pid $!" >&2; exit 0`}}
	p, err := startProc(&s, tl)
	if err != nil {
		t.Fatalf("startProc() = %v", err)
	}
	<-p.exited
	var pid int
	for end := time.Now().Add(2 * time.Second); pid == 0 && time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		_, _ = fmt.Sscanf(tl.String(), "pid %d", &pid)
	}
	if pid == 0 || !alive(pid) {
		t.Fatalf("background child not running (stderr %q)", tl.String())
	}
	p.stop()
	for end := time.Now().Add(2 * time.Second); alive(pid) && time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
	}
	if alive(pid) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("background child %d survived stop()", pid)
	}
}

// alive reports whether pid runs (a zombie waiting to be reaped does not).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true // no /proc: trust kill
	}
	_, after, _ := strings.Cut(string(b), ") ")
	return !strings.HasPrefix(after, "Z")
}
