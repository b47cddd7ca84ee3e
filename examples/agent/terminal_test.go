//go:build linux

package main

import (
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/mcpgenai/bridge/geminitest"
)

// openPTY returns the two ends of a new pseudo-terminal.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlocking the pty: %v", err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("naming the pty: %v", err)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("opening the pty's terminal: %v", err)
	}
	return m, s
}

// screen collects what the program writes to its terminal.
type screen struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

func (s *screen) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// waitFor waits until the screen shows want n times in all.
func (s *screen) waitFor(t *testing.T, want string, n int) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for strings.Count(s.String(), want) < n {
		if time.Now().After(deadline) {
			t.Fatalf("the terminal never showed %q (%d times); screen:\n%s", want, n, s.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestInATerminal runs the agent program on a real pseudo-terminal, as a
// person meets it: a line typed while the model works is not taken as the
// answer to the confirmation that follows, "y" runs the call, and /help,
// /prompts and /resources answer.
func TestInATerminal(t *testing.T) {
	fakeGemini(t,
		geminitest.Calls(geminitest.Call{ID: "1", Name: "add", Args: map[string]any{"a": 1, "b": 2}}),
		expect(t, "output", "1 + 2 = 3", geminitest.Text("three")),
	)
	master, slave := openPTY(t)
	defer master.Close()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, agentFlag, "-config", calcSettings(t))
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &unix.SysProcAttr{Setsid: true, Setctty: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	var scr screen
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			scr.Write(buf[:n])
			if err != nil {
				return
			}
		}
	}()
	typeLine := func(s string) {
		if _, err := master.WriteString(s + "\r"); err != nil {
			t.Fatalf("typing %q: %v", s, err)
		}
	}

	scr.waitFor(t, "> ", 1)
	typeLine("what is 1 + 2?")
	typeLine("s") // typed ahead, before any question: must not allow the server
	scr.waitFor(t, "Allow? [o]nce", 1)
	typeLine("y")
	scr.waitFor(t, "three", 1)
	typeLine("/help")
	scr.waitFor(t, "Commands:", 1)
	typeLine("/prompts")
	scr.waitFor(t, "Prompts:", 1)
	typeLine("/resources")
	scr.waitFor(t, "Resources:", 1)
	typeLine("/quit")
	if err := cmd.Wait(); err != nil {
		t.Errorf("agent exited with %v; screen:\n%s", err, scr.String())
	}
	master.Close()
	<-copied
	out := scr.String()
	if os.Getenv("AGENT_SHOW_SCREEN") != "" {
		t.Logf("screen:\n%s", out)
	}
	for _, want := range []string{
		"1 line(s) typed before this question were ignored",
		"✓ add",
		"/resources  the resources the servers list",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the terminal did not show %q; screen:\n%s", want, out)
		}
	}
}

// TestPromptWithStdinClosed: with -prompt and stdin from /dev/null nobody
// can be asked, so an untrusted call is refused with a reason the model can
// read, and no question is shown.
func TestPromptWithStdinClosed(t *testing.T) {
	fakeGemini(t,
		geminitest.Calls(geminitest.Call{ID: "1", Name: "add", Args: map[string]any{"a": 1, "b": 2}}),
		expect(t, "error", "nobody can be asked", geminitest.Text("could not")),
	)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, agentFlag, "-config", calcSettings(t), "-prompt", "what is 1 + 2?")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr // Stdin nil: /dev/null
	if err := cmd.Run(); err != nil {
		t.Fatalf("agent = %v; stderr:\n%s", err, stderr.String())
	}
	if stdout.String() != "could not\n" || strings.Contains(stderr.String(), "Allow?") {
		t.Errorf("agent stdout %q, stderr:\n%s\nwant the answer and no question", stdout.String(), stderr.String())
	}
}
