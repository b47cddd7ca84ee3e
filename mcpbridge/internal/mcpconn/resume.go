package mcpconn

import (
	"bytes"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// A streamable-HTTP server may close an SSE stream at any time and expect
// the client to resume it: after the delay its last retry field named, with
// a GET carrying the id of the last event received as Last-Event-ID
// (SEP-1699). mcp-go does so for the stream of a POST, but reopens its GET
// stream after a second, without Last-Event-ID, so the events sent in
// between are lost. resumeTransport resumes a GET stream itself: the body
// mcp-go reads continues, past the close, with the resumed stream's events.

// maxRetry bounds the retry delay a server may ask for.
const maxRetry = time.Minute

// resumeTransport resumes the GET event streams of its base.
type resumeTransport struct{ base http.RoundTripper }

func (t *resumeTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil || req.Method != http.MethodGet || !isEventStream(resp) {
		return resp, err
	}
	resp.Body = &resumingBody{t: t, req: req, body: resp.Body}
	return resp, nil
}

// isEventStream reports whether resp is a 200 with an SSE body.
func isEventStream(resp *http.Response) bool {
	return resp != nil && resp.StatusCode == http.StatusOK &&
		bytes.HasPrefix([]byte(resp.Header.Get("Content-Type")), []byte("text/event-stream"))
}

// resumingBody is a GET stream's body that, when the server closes it
// after a whole event whose id it knows, and named a retry delay, waits
// that long and reads on from a GET with Last-Event-ID.
type resumingBody struct {
	t   *resumeTransport
	req *http.Request

	mu     sync.Mutex
	body   io.ReadCloser
	closed bool
	events sseTracker
}

func (b *resumingBody) Read(p []byte) (int, error) {
	for {
		b.mu.Lock()
		body := b.body
		b.mu.Unlock()
		n, err := body.Read(p)
		b.events.feed(p[:n])
		if err != io.EOF || n > 0 {
			if err == io.EOF {
				err = nil // handed on now; the end comes with the next Read
			}
			return n, err
		}
		if !b.resume() {
			return 0, io.EOF
		}
	}
}

// resume opens the continuation of the stream, reporting whether it did.
func (b *resumingBody) resume() bool {
	id, retry, ok := b.events.resumable()
	if !ok {
		return false
	}
	ctx := b.req.Context()
	timer := time.NewTimer(retry)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-timer.C:
	}
	next := b.req.Clone(ctx)
	next.Header.Set("Last-Event-ID", id)
	resp, err := b.t.base.RoundTrip(next)
	if err != nil {
		return false
	}
	if !isEventStream(resp) {
		_ = resp.Body.Close()
		return false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		_ = resp.Body.Close()
		return false
	}
	_ = b.body.Close()
	b.body = resp.Body
	return true
}

func (b *resumingBody) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	return b.body.Close()
}

// sseTracker follows an SSE stream's fields as its bytes pass: the id of
// the last whole event, the last retry delay, and whether the bytes so far
// end at an event's end.
type sseTracker struct {
	line     []byte // the current line's start, at most maxFieldLine bytes
	long     bool   // the current line is longer than that
	idBuf    string // the id field of the event being read
	hasIDBuf bool
	lastID   string // the id of the last whole event
	hasID    bool
	retry    time.Duration // 0 until a retry field named one
	boundary bool          // the bytes so far end with an empty line
	any      bool          // any byte came
}

// maxFieldLine bounds the id and retry lines the tracker reads; a longer
// line is not one of them.
const maxFieldLine = 1024

func (s *sseTracker) feed(p []byte) {
	for len(p) > 0 {
		s.any = true
		i := bytes.IndexAny(p, "\r\n")
		if i < 0 {
			s.take(p)
			s.boundary = false
			return
		}
		s.take(p[:i])
		s.endLine()
		// \r\n counts as one line end.
		if p[i] == '\r' && i+1 < len(p) && p[i+1] == '\n' {
			i++
		}
		p = p[i+1:]
	}
}

func (s *sseTracker) take(p []byte) {
	if s.long || len(s.line)+len(p) > maxFieldLine {
		s.long, s.line = true, s.line[:0]
		return
	}
	s.line = append(s.line, p...)
}

func (s *sseTracker) endLine() {
	line, long := s.line, s.long
	s.line, s.long = s.line[:0], false
	if long {
		s.boundary = false
		return
	}
	if len(line) == 0 {
		// An empty line ends the event (a second one ends nothing).
		if s.hasIDBuf {
			s.lastID, s.hasID = s.idBuf, true
		}
		s.boundary = true
		return
	}
	s.boundary = false
	name, value, _ := bytes.Cut(line, []byte(":"))
	value = bytes.TrimPrefix(value, []byte(" "))
	switch string(name) {
	case "id":
		if bytes.IndexByte(value, 0) < 0 {
			s.idBuf, s.hasIDBuf = string(value), true
		}
	case "retry":
		if ms, err := strconv.ParseUint(string(value), 10, 32); err == nil {
			s.retry = min(time.Duration(ms)*time.Millisecond, maxRetry)
		}
	}
}

// resumable returns the Last-Event-ID and the delay to resume with, and
// whether the stream may be resumed: it ended after a whole event, an
// event had an id and the server named a retry delay.
func (s *sseTracker) resumable() (id string, retry time.Duration, ok bool) {
	return s.lastID, s.retry, s.any && s.boundary && s.hasID && s.lastID != "" && s.retry > 0
}
