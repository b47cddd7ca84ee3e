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
	// The shell set its trap before it wrote "started": wait for that
	// line rather than guess how long starting takes.
	for end := time.Now().Add(fast); !strings.Contains(tl.String(), "started"); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("stderr = %q after %v, want started", tl.String(), fast)
		}
	}
	start := time.Now()
	p.stop()
	// Without the kill, stop would wait for the 30s sleeps.
	if d := time.Since(start); d > fast {
		t.Errorf("stop() took %v, want < %v (grace periods %v and %v)", d, fast, stdinGrace, termGrace)
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
