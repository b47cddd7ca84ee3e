//go:build unix

package mcpconn

import (
	"os/exec"
	"strings"
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
	time.Sleep(100 * time.Millisecond)
	start := time.Now()
	p.stop()
	if d, max := time.Since(start), stdinGrace+termGrace+time.Second; d > max {
		t.Errorf("stop() took %v, want < %v", d, max)
	}
	select {
	case <-p.exited:
	default:
		t.Errorf("process not reaped after stop()")
	}
	if !strings.Contains(tl.String(), "started") {
		t.Errorf("stderr = %q, want started", tl.String())
	}
}
