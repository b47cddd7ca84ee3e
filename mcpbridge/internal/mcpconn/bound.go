package mcpconn

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
)

// DefaultMaxMessageBytes bounds one message from a server (a stdio line, an
// SSE event, an HTTP response body) when Spec.MaxMessageBytes is zero.
const DefaultMaxMessageBytes = 64 << 20

// MaxDepth is how deeply the JSON of one message from a server may nest. mcp-go
// silently drops a line it cannot decode (Go's decoder stops at 10,000
// levels, and mcp-go's own decoding doubles the nesting it meets), so the
// request it answers would wait for its timeout. A deeper message is
// therefore dealt with before mcp-go sees it, on every transport: an array
// element that is too deep (a tool in a tools/list page, say) is replaced
// by a marker entry (see [TooDeepKey]) so that its siblings survive; a
// message too deep outside any array fails the request it answers at once,
// with an error saying so, or ends the connection when it answers none.
const MaxDepth = 2000

// ErrMessageTooLarge is wrapped by the error of a connection whose server
// sent a message over the limit.
var ErrMessageTooLarge = errors.New("message too large")

func (s *Spec) maxMessage() int {
	if s.MaxMessageBytes > 0 {
		return s.MaxMessageBytes
	}
	return DefaultMaxMessageBytes
}

// lineGuard hands a stdio server's output to mcp-go line by line, holding
// at most one line (up to the limit) in memory. A longer line ends the
// connection with an error wrapping ErrMessageTooLarge; a line nested
// deeper than MaxDepth is rewritten by guardDepth, or ends the connection.
type lineGuard struct {
	r       *bufio.Reader
	spec    *Spec
	max     int
	fail    func(error)
	pending []byte // output not yet handed out
	err     error
	late    *lateAnswer // sees each line, if set
}

// guardLines returns r, bounded as lineGuard says; fail is called once with
// the reason when the server broke a bound.
func guardLines(r io.Reader, s *Spec, fail func(error)) *lineGuard {
	return &lineGuard{r: bufio.NewReaderSize(r, 64<<10), spec: s, max: s.maxMessage(), fail: fail}
}

func (g *lineGuard) Read(p []byte) (int, error) {
	for len(g.pending) == 0 {
		if g.err != nil {
			return 0, g.err
		}
		g.fill()
	}
	n := copy(p, g.pending)
	g.pending = g.pending[n:]
	return n, nil
}

// fill reads the next whole line into pending, or sets err. A line that
// arrives whole in r's buffer is handed out from there, without a copy: the
// buffer only changes on r's next read, which is the next fill, once
// pending has been handed out. A longer line is read in pieces and put
// together once, at its length: growing one buffer as the pieces come
// would copy a long line several times over.
func (g *lineGuard) fill() {
	var line []byte
	var pieces [][]byte
	size := 0
	for {
		chunk, err := g.r.ReadSlice('\n')
		if size+len(chunk) > g.max {
			g.err = fmt.Errorf("%w: the server sent a line over %d bytes", ErrMessageTooLarge, g.max)
			g.fail(g.err)
			return
		}
		if err == bufio.ErrBufferFull {
			pieces = append(pieces, bytes.Clone(chunk))
			size += len(chunk)
			continue
		}
		if len(pieces) == 0 {
			line = chunk
		} else {
			line = make([]byte, 0, size+len(chunk))
			for _, p := range pieces {
				line = append(line, p...)
			}
			line = append(line, chunk...)
		}
		if err != nil {
			g.pending, g.err = line, err
			return
		}
		break
	}
	out, err := guardDepth(guardQuestion(line, g.spec))
	if err != nil {
		g.err = fmt.Errorf("%w: the server sent a message %v", ErrMessageTooLarge, err)
		g.fail(g.err)
		return
	}
	if g.late != nil {
		g.late.see(out)
	}
	g.pending = out
}

// TooDeepKey marks a list entry that was replaced because its JSON nested
// deeper than [MaxDepth]: the entry becomes {"name": <its name>,
// TooDeepKey: true}, and [Conn.ListTools] reports the tool as skipped.
const TooDeepKey = "_mcpbridgeTooDeep"

// cutDeep returns line unchanged when its JSON nests at most maxDepth
// levels. Otherwise, when the too-deep part lies inside an element of an
// array (a tool in a tools/list page, say), each such element is replaced
// by {"name": <its name>, TooDeepKey: true}, so the list's other entries
// survive and the replaced one can be reported; a line that is too deep
// outside any array is refused. Bytes inside strings are never counted.
func cutDeep(line []byte, maxDepth int) ([]byte, error) {
	if withinDepth(line, maxDepth) {
		return line, nil
	}
	type open struct {
		pos   int
		array bool
	}
	var stack []open
	var out []byte
	copied := 0  // line[:copied] is in out (when out != nil)
	skipTo := -1 // depth whose element is being replaced; -1 when none
	inString, escaped := false, false
	for i := 0; i < len(line); i++ {
		c := line[i]
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			stack = append(stack, open{pos: i, array: c == '['})
			if len(stack) > maxDepth && skipTo < 0 {
				// Replace the element of the outermost array: the
				// list entry.
				e := -1
				for d := range stack {
					if stack[d].array && d+1 < len(stack) {
						e = d + 1
						break
					}
				}
				if e < 0 {
					return nil, fmt.Errorf("nested more than %d levels deep", maxDepth)
				}
				skipTo = e
			}
		case '}', ']':
			if len(stack) == 0 {
				return line, nil // not JSON: mcp-go reports it
			}
			top := len(stack) - 1
			if top == skipTo {
				start := stack[top].pos
				if out == nil {
					out = make([]byte, 0, len(line))
				}
				out = append(out, line[copied:start]...)
				name, _ := json.Marshal(entryName(line[start : i+1]))
				out = fmt.Appendf(out, `{"name":%s,%q:true}`, name, TooDeepKey)
				copied = i + 1
				skipTo = -1
			}
			stack = stack[:top]
		}
	}
	if out == nil {
		return line, nil
	}
	return append(out, line[copied:]...), nil
}

// withinDepth reports whether the brackets of line, outside strings, never
// nest more than maxDepth levels: the common case, checked without
// allocating. It may say false for text that is not JSON; cutDeep's full
// scan then decides.
func withinDepth(line []byte, maxDepth int) bool {
	depth := 0
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '"':
			i = stringEnd(line, i) - 1
		case '{', '[':
			depth++
			if depth > maxDepth {
				return false
			}
		case '}', ']':
			depth--
		}
	}
	return true
}

// entryName returns the string value of the "name" key of the object obj at
// its own top level, or "".
func entryName(obj []byte) string {
	var v string
	if raw := topLevel(obj, "name"); raw != nil && json.Unmarshal(raw, &v) == nil {
		return v
	}
	return ""
}

// stringEnd returns the index just after the string starting at b[i].
func stringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(b)
}

// limitBody bounds the body of resp: an SSE stream per event (the bytes
// between blank lines), anything else as a whole. Past the limit, Read
// fails with an error wrapping ErrMessageTooLarge, which is also passed to
// fail.
func limitBody(resp *http.Response, max int, fail func(error)) {
	if resp == nil || resp.Body == nil {
		return
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	resp.Body = &boundedBody{ReadCloser: resp.Body, max: max, events: mt == "text/event-stream", fail: fail}
}

type boundedBody struct {
	io.ReadCloser
	max    int
	events bool
	fail   func(error)
	n      int  // bytes of the current event (or body)
	nl     bool // the last byte was a line feed
	err    error
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	n, err := b.ReadCloser.Read(p)
	for _, c := range p[:n] {
		b.n++
		if b.events {
			switch {
			case c == '\n' && b.nl:
				b.n = 0 // a blank line ends the event
			case c == '\r':
				continue
			}
			b.nl = c == '\n'
		}
	}
	if b.n > b.max {
		what := "a response body"
		if b.events {
			what = "an SSE event"
		}
		b.err = fmt.Errorf("%w: the server sent %s over %d bytes", ErrMessageTooLarge, what, b.max)
		b.fail(b.err)
		return 0, b.err
	}
	return n, err
}
