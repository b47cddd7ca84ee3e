package mcpconn

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"
)

// Shutdown grace periods of a stdio child: after stdin is closed, then after
// SIGTERM. Variables so tests could shorten them.
var (
	stdinGrace = 1 * time.Second
	termGrace  = 1 * time.Second
)

// proc is a stdio server process whose three pipes belong to us: mcp-go's
// stdio transport is given the stdin and stdout ends (transport.NewIO), and
// the process, its exit and its stderr are managed here.
type proc struct {
	cmd     *exec.Cmd
	stdin   *os.File // write end of the child's stdin
	stdout  *os.File // read end of the child's stdout
	stderr  *os.File // read end of the child's stderr
	outEOF  chan struct{}
	errDone chan struct{} // closed when stderr ended
	exited  chan struct{} // closed once Wait returned
	waitErr error         // valid after exited is closed
	wg      sync.WaitGroup
}

// startProc starts the command of s. On error nothing is left running.
func startProc(s *Spec, t *tail) (*proc, error) {
	if s.Dir != "" {
		// exec reports a missing directory as a missing executable.
		if fi, err := os.Stat(s.Dir); err != nil {
			return nil, fmt.Errorf("working directory %s: %w", s.Dir, err)
		} else if !fi.IsDir() {
			return nil, fmt.Errorf("working directory %s: not a directory", s.Dir)
		}
	}
	cmd := exec.Command(s.Command, s.Args...)
	cmd.Dir = s.Dir
	cmd.Env = s.Env
	setProcAttr(cmd)
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("stdin pipe: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW)
		return nil, fmt.Errorf("stdout pipe: %w", err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW, outR, outW)
		return nil, fmt.Errorf("stderr pipe: %w", err)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	err = cmd.Start()
	closeAll(inR, outW, errW) // the child holds its own copies now
	if err != nil {
		closeAll(inW, outR, errR)
		return nil, fmt.Errorf("start %s: %w", s.Command, err)
	}
	p := &proc{cmd: cmd, stdin: inW, stdout: outR, stderr: errR, outEOF: make(chan struct{}), errDone: make(chan struct{}), exited: make(chan struct{})}
	log := s.logger()
	p.wg.Add(2)
	go func() {
		defer p.wg.Done()
		defer close(p.errDone)
		drainStderr(errR, t, log)
	}()
	go func() {
		defer p.wg.Done()
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// stdoutReader returns the child's stdout; outEOF is closed when it ends.
func (p *proc) stdoutReader() io.Reader {
	return &eofReader{r: p.stdout, done: p.outEOF}
}

// exitErr describes how the process ended; call after exited is closed.
func (p *proc) exitErr() error {
	if p.waitErr != nil {
		return fmt.Errorf("process exited: %w", p.waitErr)
	}
	return errors.New("process exited with status 0")
}

// stop ends the process: close stdin and wait, then SIGTERM and wait, then
// SIGKILL (process group where supported). Where process groups exist, the
// rest of the group is stopped too (SIGTERM, then SIGKILL after the grace),
// even when the server itself had already exited. It returns once the
// process has been reaped and every goroutine of p has ended.
func (p *proc) stop() {
	_ = p.stdin.Close()
	if !waitClosed(p.exited, stdinGrace) {
		signalTerm(p.cmd)
		if !waitClosed(p.exited, termGrace) {
			signalKill(p.cmd)
			<-p.exited
		}
	}
	stopGroup(p.cmd, termGrace)
	// A grandchild may still hold the pipes: close our ends so the readers end.
	_ = p.stdout.Close()
	_ = p.stderr.Close()
	p.wg.Wait()
}

func waitClosed(ch <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-t.C:
		return false
	}
}

func closeAll(fs ...*os.File) {
	for _, f := range fs {
		_ = f.Close()
	}
}

// eofReader closes done once r reports any error (EOF or closed).
type eofReader struct {
	r    io.Reader
	done chan struct{}
	once sync.Once
}

func (e *eofReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil {
		e.once.Do(func() { close(e.done) })
	}
	return n, err
}
