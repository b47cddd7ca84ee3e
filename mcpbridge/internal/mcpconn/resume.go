package mcpconn

import (
	"bytes"
	"context"
	"io"
	"mime"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// A streamable-HTTP server of the 2025 revisions may end an SSE stream
// whenever it likes, having sent an event id and a retry delay: the client
// is to come back after that delay with a GET carrying the id as
// Last-Event-ID, and the server replays what it sent meanwhile (SEP-1699).
// mcp-go does this for the stream of a POST, but reopens its standalone GET
// stream (the one that carries list_changed, log messages and resource
// updates outside requests) after a fixed second and without
// Last-Event-ID, so whatever the server sent in between is lost
// (listenForever in client/transport/streamable_http.go, v1.2.1).
//
// resumeTransport therefore resumes that stream under mcp-go: the body
// mcp-go reads goes on, past the server's end of the stream, with the
// resumed stream's events. mcp-go sees one stream that never ended.
//
// The 2026-07-28 revision has no GET stream and no Last-Event-ID (mcp-go
// never opens the one and never sends the other there): notifications come
// on the stream of a subscriptions/listen request, and a stream that ends is
// a request to send again, which Conn.listen does.

// Bounds of the resumption: the delay a server may ask for (longer asks
// are cut to maxResumeDelay, shorter ones raised to minResumeDelay), the
// delay when it named none, and how many resumptions in a row may fail
// (an error, a refusal, a stream that ends with no event) before the
// stream is handed back to mcp-go as ended, which opens a new one after a
// second as it always did. Each failure doubles the delay, up to
// maxResumeDelay.
const (
	maxResumeDelay     = 30 * time.Second
	minResumeDelay     = 100 * time.Millisecond
	defaultResumeDelay = time.Second
	maxResumeFailures  = 4
)

// resumeTransport resumes the standalone GET event streams of base (see
// above). Requests that carry Last-Event-ID already (mcp-go resuming the
// stream of a POST) and every other request pass through untouched.
// open, when not nil, is told of every GET's round trip (see getOpen).
type resumeTransport struct {
	base http.RoundTripper
	open *getOpen
}

func (t *resumeTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	t.open.seen(req)
	if err != nil || req.Method != http.MethodGet || req.Header.Get("Last-Event-ID") != "" || !isEventStream(resp) {
		return resp, err
	}
	ctx, cancel := context.WithCancel(req.Context())
	resp.Body = &resumingBody{base: t.base, req: req, ctx: ctx, cancel: cancel, body: resp.Body}
	return resp, nil
}

// isEventStream reports whether resp is a 200 with an SSE body.
func isEventStream(resp *http.Response) bool {
	if resp == nil || resp.StatusCode != http.StatusOK {
		return false
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	return mt == "text/event-stream"
}

// resumingBody is the body of a GET event stream. When the server ends
// it (a clean end of the body, not a broken connection or a bound
// exceeded) after an event with an id, it waits the server's retry delay
// and reads on from a GET with Last-Event-ID. It is read by one goroutine;
// Close may come from another, and ends a wait or a resumption at once.
type resumingBody struct {
	base   http.RoundTripper
	req    *http.Request
	ctx    context.Context // req's, ended by Close
	cancel context.CancelFunc

	mu     sync.Mutex
	body   io.ReadCloser
	closed bool

	events   sseTracker // read by Read's goroutine only
	failures int        // resumptions in a row that failed
	resumed  bool       // the current body is a resumption's
	seen     int        // events.dispatched when the current body began
}

func (b *resumingBody) Read(p []byte) (int, error) {
	for {
		b.mu.Lock()
		body := b.body
		b.mu.Unlock()
		n, err := body.Read(p)
		b.events.feed(p[:n])
		if n > 0 || err != io.EOF {
			if err == io.EOF {
				err = nil // the end is looked at by the next Read
			}
			return n, err
		}
		if !b.resume() {
			return 0, io.EOF
		}
	}
}

// resume replaces the ended body with the resumed stream's, reporting
// whether it did. It tries again, with a longer delay each time, while
// resumptions fail, up to maxResumeFailures in a row. A stream that ended
// within an event is not resumed: mcp-go would join its cut line to the
// next stream's first.
func (b *resumingBody) resume() bool {
	if b.events.dispatched > b.seen {
		b.failures = 0 // the stream that ended brought something
	} else if b.resumed {
		b.failures++ // a resumed stream that brought nothing counts as failed
	}
	if !b.events.atBoundary() {
		return false
	}
	for b.failures < maxResumeFailures {
		id, ok := b.events.lastID()
		if !ok || b.ctx.Err() != nil {
			return false
		}
		delay := b.events.delay() << b.failures
		if delay > maxResumeDelay || delay <= 0 {
			delay = maxResumeDelay
		}
		if !b.sleep(delay) {
			return false
		}
		next := b.req.Clone(b.ctx)
		next.Header.Set("Last-Event-ID", id)
		resp, err := b.base.RoundTrip(next)
		switch {
		case err != nil:
		case isEventStream(resp):
			b.mu.Lock()
			closed := b.closed
			if !closed {
				_ = b.body.Close()
				b.body = resp.Body
			}
			b.mu.Unlock()
			if closed {
				_ = resp.Body.Close()
				return false
			}
			b.resumed, b.seen = true, b.events.dispatched
			return true
		default:
			_ = resp.Body.Close()
			if resp.StatusCode >= 400 && resp.StatusCode < 500 &&
				resp.StatusCode != http.StatusRequestTimeout && resp.StatusCode != http.StatusTooManyRequests {
				// The server refuses this id (it may not know it, or not
				// resume at all): trying again changes nothing.
				return false
			}
		}
		b.failures++
	}
	return false
}

// sleep waits d, reporting false if the body was closed (or its request
// ended) first.
func (b *resumingBody) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-b.ctx.Done():
		return false
	}
}

func (b *resumingBody) Close() error {
	b.cancel()
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	return b.body.Close()
}

// sseTracker follows the fields of an event stream as its bytes go by,
// as the SSE specification reads them: the last event id (set by an id
// field, taking effect when its event is dispatched by an empty line) and
// the reconnection time (a retry field of ASCII digits only). Lines end
// with \r\n, \n or \r, also when split between two reads. Lines longer than
// maxFieldLine are no field it cares for; its memory stays within that.
type sseTracker struct {
	line    []byte // the start of the current line, at most maxFieldLine bytes
	long    bool   // the current line is longer than that
	afterCR bool   // the bytes so far end with \r: a \n next ends nothing
	endsLF  bool   // the bytes so far end with \n
	fields  bool   // the current event has had a field line
	content bool   // the current event has had an id or data field

	idBuf      string // the last event id buffer
	id         string // the last event id: idBuf as of the last dispatch
	retry      time.Duration
	hasRetry   bool
	dispatched int // events with an id or data field ended by an empty line
}

// maxFieldLine bounds the lines the tracker keeps: an id or retry line
// longer than this is not taken.
const maxFieldLine = 1024

func (s *sseTracker) feed(p []byte) {
	if len(p) > 0 {
		s.endsLF = p[len(p)-1] == '\n'
	}
	for len(p) > 0 {
		if s.afterCR {
			s.afterCR = false
			if p[0] == '\n' {
				p = p[1:]
				continue
			}
		}
		i := bytes.IndexAny(p, "\r\n")
		if i < 0 {
			s.take(p)
			return
		}
		s.take(p[:i])
		s.endLine()
		if p[i] == '\r' {
			s.afterCR = true
		}
		p = p[i+1:]
	}
}

// take adds p to the current line, keeping at most maxFieldLine bytes.
func (s *sseTracker) take(p []byte) {
	if s.line == nil {
		s.line = make([]byte, 0, maxFieldLine)
	}
	if room := maxFieldLine - len(s.line); len(p) > room {
		p, s.long = p[:room], true
	}
	s.line = append(s.line, p...)
}

func (s *sseTracker) endLine() {
	line, long := s.line, s.long
	s.line, s.long = s.line[:0], false
	switch {
	case long:
		// Too long for an id or retry worth taking; a long data line
		// still makes an event.
		s.fields = true
		if bytes.HasPrefix(line, []byte("data:")) {
			s.content = true
		}
		return
	case len(line) == 0:
		// Dispatch: the id buffer becomes the last event id, whether or
		// not the event had data (a priming event has none).
		s.id = s.idBuf
		if s.content {
			s.dispatched++
		}
		s.fields, s.content = false, false
		return
	case line[0] == ':':
		return // a comment
	}
	s.fields = true
	name, value, _ := bytes.Cut(line, []byte(":"))
	value = bytes.TrimPrefix(value, []byte(" "))
	switch string(name) {
	case "data":
		s.content = true
	case "id":
		s.content = true
		if bytes.IndexByte(value, 0) < 0 {
			s.idBuf = string(value)
		}
	case "retry":
		if ms, ok := parseDigits(value); ok {
			s.retry, s.hasRetry = ms, true
		}
	}
}

// atBoundary reports whether the bytes so far end between two events,
// with a line feed (mcp-go reads lines up to a \n).
func (s *sseTracker) atBoundary() bool {
	return s.endsLF && len(s.line) == 0 && !s.long && !s.fields
}

// lastID returns the id to resume from, if an event has given one.
func (s *sseTracker) lastID() (string, bool) { return s.id, s.id != "" }

// delay returns the reconnection time: the server's, within
// [minResumeDelay, maxResumeDelay], or defaultResumeDelay.
func (s *sseTracker) delay() time.Duration {
	if !s.hasRetry {
		return defaultResumeDelay
	}
	return min(max(s.retry, minResumeDelay), maxResumeDelay)
}

// parseDigits reads a retry value: ASCII digits only, in milliseconds;
// values past maxResumeDelay are cut to it.
func parseDigits(b []byte) (time.Duration, bool) {
	if len(b) == 0 {
		return 0, false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	ms, err := strconv.ParseUint(string(b), 10, 64)
	if err != nil || ms > uint64(maxResumeDelay/time.Millisecond) {
		return maxResumeDelay, true
	}
	return time.Duration(ms) * time.Millisecond, true
}
