package mcpconn

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/mcpgenai/bridge/mcpbridge/internal/rpcerr"
)

// A server's request of the client (a question: elicitation/create,
// sampling/createMessage, roots/list, or tasks/* about the tasks the
// client runs for it) is decoded by mcp-go into maps before any handler
// sees it: a 50 MB sampling request costs several times its size in heap
// before a handler could refuse it. So the size of a server's request is
// checked on the raw message, where every message from a server is read
// (a stdio line, an SSE event, an HTTP body): one over its method's bound
// is handed on as a stub, the same request with params that say only how
// long it was ({TooLargeKey: <bytes>}), and the tap answers the stub with
// an error. Only messages longer than the smallest bound are looked at
// (two scans of their top level), and a response is never changed here.
//
// On 2026-07-28 the questions come inside a response instead (an
// input_required result, a task's state that lists inputRequests): such a
// response longer than the largest bound is handed on as an error
// response for its request.

// TooLargeKey is the only member of the params of a server's request that
// was too large to be read (see Spec.QuestionBytes); its value is the
// request's size in bytes.
const TooLargeKey = "_mcpbridgeTooLarge"

// DefaultQuestionBytes bounds a server's request whose method
// Spec.QuestionBytes does not name.
const DefaultQuestionBytes = 64 << 10

// questionBytes returns the bound of a server's request of method.
func (s *Spec) questionBytes(method string) int {
	if n, ok := s.QuestionBytes[method]; ok && n > 0 {
		return n
	}
	return DefaultQuestionBytes
}

// smallestQuestion returns the least bound of a server's request: a
// message no longer is never looked at.
func (s *Spec) smallestQuestion() int {
	n := DefaultQuestionBytes
	for _, b := range s.QuestionBytes {
		if b > 0 {
			n = min(n, b)
		}
	}
	return n
}

// largestQuestion returns the greatest bound of a server's request.
func (s *Spec) largestQuestion() int {
	n := DefaultQuestionBytes
	if len(s.QuestionBytes) > 0 {
		n = max(n, slices.Max(slices.Collect(maps.Values(s.QuestionBytes))))
	}
	return n
}

// guardQuestion returns msg, or, when msg is a server's request (an "id"
// and a "method" at its top level) longer than its method's bound, its
// stub (see TooLargeKey); or, when msg is a response whose result asks
// the client for input (2026-07-28: resultType or status
// "input_required") and is longer than the largest bound, an error
// response for the same id.
func guardQuestion(msg []byte, s *Spec) []byte {
	if len(msg) <= s.smallestQuestion() {
		return msg
	}
	id := topLevel(msg, "id")
	if id == nil {
		return msg // a notification, or not JSON-RPC
	}
	method := topLevel(msg, "method")
	var stub []byte
	if method == nil {
		if len(msg) <= s.largestQuestion() || !asksInput(topLevelObject(msg, "result")) {
			return msg
		}
		stub = fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32000,"message":"the server asked for input in a result of %d bytes, more than the client's limit of %d"}}`,
			id, len(msg), s.largestQuestion())
	} else {
		var m string
		if json.Unmarshal(method, &m) != nil || len(msg) <= s.questionBytes(m) || isStub(topLevelObject(msg, "params")) {
			return msg
		}
		stub = fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"method":%s,"params":{%q:%d}}`, id, method, TooLargeKey, len(msg))
	}
	if bytes.HasSuffix(msg, []byte("\n")) {
		stub = append(stub, '\n') // a stdio line stays a line
	}
	return stub
}

// isStub reports whether params are a stub's (see TooLargeKey).
func isStub(params []byte) bool {
	return len(params) < 64 && bytes.Contains(params, []byte(`"`+TooLargeKey+`"`))
}

// asksInput reports whether result, a JSON object, asks the client for
// input: its resultType or status (a task's state) is input_required.
func asksInput(result []byte) bool {
	if result == nil || !needsInput(result) {
		return false
	}
	want := []byte(`"input_required"`)
	return bytes.Equal(topLevel(result, "resultType"), want) || bytes.Equal(topLevel(result, "status"), want)
}

// topLevelObject returns the raw value of key at the top level of the JSON
// object obj when it is an object, nil otherwise.
func topLevelObject(obj []byte, key string) []byte {
	j := topLevelValue(obj, key)
	if j < 0 || obj[j] != '{' {
		return nil
	}
	return obj[j:valueEnd(obj, j)]
}

// valueEnd returns the index just after the object or array that starts
// at b[i].
func valueEnd(b []byte, i int) int {
	depth := 0
	for j := i; j < len(b); j++ {
		switch b[j] {
		case '"':
			j = stringEnd(b, j) - 1
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return j + 1
			}
		}
	}
	return len(b)
}

// tooLarge returns the error answering a stub of guardQuestion, or nil
// when params are not a stub's.
func (s *Spec) tooLarge(method string, params any) error {
	p, ok := params.(map[string]any)
	if !ok || len(p) != 1 {
		return nil
	}
	n, ok := p[TooLargeKey].(float64)
	if !ok {
		return nil
	}
	return &rpcerr.Error{Code: rpcerr.Limited, Message: fmt.Sprintf("%s request of %d bytes exceeds the client's limit of %d", method, int64(n), s.questionBytes(method))}
}
