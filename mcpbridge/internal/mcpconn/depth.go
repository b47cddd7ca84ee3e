package mcpconn

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
)

// tooDeepCode is the JSON-RPC error code of a response that guardDepth
// replaced (JSON-RPC's "internal error": the client could not use it).
const tooDeepCode = -32603

// guardDepth returns msg as mcp-go may read it: unchanged when its JSON
// nests at most MaxDepth levels; with too-deep list entries replaced (see
// cutDeep); or, when the depth lies outside any array and msg is a response
// (an "id" and no "method" at its top level), as a JSON-RPC error response
// for the same id, so that the request fails at once instead of waiting for
// its timeout. Any other too-deep message is an error.
func guardDepth(msg []byte) ([]byte, error) { return guardDepthN(msg, MaxDepth) }

// guardDepthN is guardDepth with maxDepth in place of MaxDepth.
func guardDepthN(msg []byte, maxDepth int) ([]byte, error) {
	out, err := cutDeep(msg, maxDepth)
	if err == nil {
		return out, nil
	}
	id := topLevel(msg, "id")
	if id == nil || topLevel(msg, "method") != nil {
		return nil, err
	}
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":"the server's response %s; mcpbridge dropped it"}}`,
		id, tooDeepCode, err), nil
}

// topLevel returns the raw value of key at the top level of the JSON object
// obj, when it is a string or a number; nil otherwise. Nothing is decoded
// beyond that value, so obj may nest arbitrarily deep.
func topLevel(obj []byte, key string) json.RawMessage {
	j := topLevelValue(obj, key)
	if j < 0 {
		return nil
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(obj[j:]))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return nil
	}
	switch v.(type) {
	case string, json.Number:
		raw, _ := json.Marshal(v)
		return raw
	}
	return nil
}

// topLevelValue returns where the value of key at the top level of the
// JSON object obj begins, or -1 when obj has no such key. Only the keys
// on the way are decoded.
func topLevelValue(obj []byte, key string) int {
	depth := 0
	for i := 0; i < len(obj); i++ {
		switch obj[i] {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		case '"':
			end := stringEnd(obj, i)
			var k string
			if depth != 1 || json.Unmarshal(obj[i:end], &k) != nil || k != key {
				i = end - 1
				continue
			}
			j := end
			for j < len(obj) && (obj[j] == ' ' || obj[j] == '\t' || obj[j] == '\r' || obj[j] == '\n' || obj[j] == ':') {
				j++
			}
			if j >= len(obj) {
				return -1
			}
			return j
		}
	}
	return -1
}

// guardBody makes the body of resp pass guardQuestion and guardDepth
// before mcp-go reads it:
// a JSON body as a whole, an SSE stream event by event (the streamable
// HTTP transport's answers and the SSE transport's messages). A too-deep
// message that guardDepth refuses fails the read with an error wrapping
// ErrMessageTooLarge, which is also passed to fail. The body must already
// be bounded (see limitBody): a message is held in memory whole.
func guardBody(resp *http.Response, s *Spec, fail func(error)) {
	if resp == nil || resp.Body == nil {
		return
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch mt {
	case "application/json":
		resp.Body = &depthBody{body: resp.Body, spec: s, fail: fail}
	case "text/event-stream":
		resp.Body = &depthBody{body: resp.Body, spec: s, fail: fail, events: bufio.NewReaderSize(resp.Body, 64<<10)}
	}
}

// depthBody hands out a body message by message, each passed through
// guardDepth.
type depthBody struct {
	body    io.ReadCloser
	spec    *Spec
	events  *bufio.Reader // nil for a JSON body
	fail    func(error)
	pending []byte
	err     error
}

func (b *depthBody) Close() error { return b.body.Close() }

func (b *depthBody) Read(p []byte) (int, error) {
	for len(b.pending) == 0 {
		if b.err != nil {
			return 0, b.err
		}
		if b.events == nil {
			b.readJSON()
		} else {
			b.readEvent()
		}
	}
	n := copy(p, b.pending)
	b.pending = b.pending[n:]
	return n, nil
}

// readJSON reads the whole body into pending.
func (b *depthBody) readJSON() {
	msg, err := io.ReadAll(b.body)
	if err != nil {
		b.pending, b.err = msg, err
		return
	}
	b.err = io.EOF
	b.pending = b.guard(msg)
}

// readEvent reads one SSE event (up to and including its blank line) into
// pending. When its data changed, the event's data lines are replaced by
// one line holding the guarded JSON.
func (b *depthBody) readEvent() {
	var lines [][]byte
	var data []byte
	hasData := false
	for {
		line, err := b.events.ReadBytes('\n')
		if len(line) > 0 {
			lines = append(lines, line)
			text := bytes.TrimRight(line, "\r\n")
			if v, ok := bytes.CutPrefix(text, []byte("data:")); ok {
				if hasData {
					data = append(data, '\n')
				}
				data = append(data, bytes.TrimPrefix(v, []byte(" "))...)
				hasData = true
			}
			if len(text) > 0 && err == nil {
				continue
			}
		}
		if err != nil {
			b.err = err
		}
		break
	}
	if !hasData {
		b.pending = bytes.Join(lines, nil)
		return
	}
	out := b.guard(data)
	if b.err != nil && out == nil {
		return
	}
	if bytes.Equal(out, data) {
		b.pending = bytes.Join(lines, nil)
		return
	}
	var ev []byte
	for _, line := range lines {
		if text := bytes.TrimRight(line, "\r\n"); len(text) > 0 && !bytes.HasPrefix(text, []byte("data:")) {
			ev = append(ev, line...)
		}
	}
	// JSON holds no raw line feed inside a string: one between tokens is
	// white space.
	ev = append(ev, "data: "...)
	ev = append(ev, bytes.ReplaceAll(out, []byte("\n"), []byte(" "))...)
	b.pending = append(ev, "\n\n"...)
}

// guard returns msg passed through guardDepth; on a refusal it sets err,
// calls fail and returns nil.
func (b *depthBody) guard(msg []byte) []byte {
	out, err := guardDepth(guardQuestion(msg, b.spec))
	if err != nil {
		b.err = fmt.Errorf("%w: the server sent a message %v", ErrMessageTooLarge, err)
		b.fail(b.err)
		return nil
	}
	return out
}
