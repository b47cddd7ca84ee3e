package mcpconn

import (
	"bufio"
	"io"
	"log/slog"
	"sync"
)

// maxLogLine caps how much of one stderr line goes into a log record.
const maxLogLine = 4096

// tail keeps the last limit bytes written to it (plus one byte, to know
// whether the kept text starts at a line boundary). It never grows beyond
// about twice its limit.
type tail struct {
	limit int
	mu    sync.Mutex
	buf   []byte
}

func newTail(limit int) *tail { return &tail{limit: limit} }

// Write appends p, dropping the oldest bytes beyond the limit.
func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(p)
	keep := t.limit + 1
	if len(p) > keep {
		p = p[len(p)-keep:]
	}
	t.buf = append(t.buf, p...)
	if len(t.buf) > 2*keep {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-keep:]...)
	}
	return n, nil
}

// String returns at most limit bytes: the most recent output. When older
// output was dropped, a partial first line is dropped too (see [Tail]).
func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return Tail(string(t.buf), 0, t.limit)
}

// drainStderr reads r until it fails, keeping everything in t and logging
// each line at the level stderrLevel gives it. It is the only reader of a
// child's stderr, so the child can never block on a full pipe while this
// runs.
func drainStderr(r io.Reader, t *tail, log *slog.Logger) {
	br := bufio.NewReaderSize(r, 64*1024)
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(chunk) > 0 {
			_, _ = t.Write(chunk)
			if len(line) < maxLogLine {
				line = append(line, chunk[:min(len(chunk), maxLogLine-len(line))]...)
			}
			if chunk[len(chunk)-1] == '\n' {
				logStderr(log, trimEOL(line))
				line = line[:0]
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			if len(line) > 0 {
				logStderr(log, line)
			}
			return
		}
	}
}

func trimEOL(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}
