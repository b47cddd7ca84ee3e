package tasks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

// A task of the io.modelcontextprotocol/tasks extension (2026-07-28) that
// needs input says input_required, and its state lists the requests it
// waits for in inputRequests: a map from keys the server chose to
// server-to-client requests ({"method": "elicitation/create", "params":
// ...}, sampling/createMessage, roots/list). The client answers each
// through the handler it has for that request, and sends the answers
// under the same keys with tasks/update, which the server only
// acknowledges; polling goes on. A key is never reused within a task, and
// the server lists a request again until its answer has been taken in, so
// each key is answered once.

// Input answers the input requests of an Extension task. Its methods are
// called on Wait's goroutine, one at a time.
type Input interface {
	// Answer answers one input request, a JSON object with "method" and
	// "params", through the host's handler for that method, and returns
	// the result that answers it (what the method's response would carry).
	// An error wrapping ErrInputUnsupported says no handler can answer it;
	// any other error is the handler's failure.
	Answer(ctx context.Context, request json.RawMessage) (json.RawMessage, error)
	// Update sends tasks/update with the answers (inputResponses), keyed
	// as the requests were. A server that answers with a JSON-RPC error
	// must give an error wrapping ErrRejected.
	Update(ctx context.Context, id string, responses map[string]json.RawMessage) error
}

// Bounds of input requests.
const (
	// MaxInputRequests bounds the input requests of one state of a task;
	// a state listing more is malformed.
	MaxInputRequests = 32
	// MaxInputKeyBytes bounds the key of an input request.
	MaxInputKeyBytes = 256
	// MaxInputsPerTask bounds the input requests answered over a task's
	// life: a server cannot keep a task asking forever.
	MaxInputsPerTask = 256
)

// ErrTooManyInputs: the task asked for more than MaxInputsPerTask inputs.
var ErrTooManyInputs = errors.New("task asked for too many inputs")

// ParseInputRequests reads the inputRequests of a task's state: a JSON
// object of at most MaxInputRequests members, each keyed by a non-empty
// string of at most MaxInputKeyBytes and holding an object whose "method"
// is a non-empty string. It returns the requests by key, as sent. Anything
// else wraps ErrMalformed; null or absent is an empty map.
func ParseInputRequests(raw json.RawMessage) (map[string]json.RawMessage, error) {
	if present(raw) == nil {
		return map[string]json.RawMessage{}, nil
	}
	var reqs map[string]json.RawMessage
	if err := json.Unmarshal(raw, &reqs); err != nil {
		return nil, fmt.Errorf("%w: inputRequests: %w", ErrMalformed, err)
	}
	if reqs == nil {
		return nil, fmt.Errorf("%w: inputRequests is not an object", ErrMalformed)
	}
	if len(reqs) > MaxInputRequests {
		return nil, fmt.Errorf("%w: %d input requests, at most %d", ErrMalformed, len(reqs), MaxInputRequests)
	}
	for k, r := range reqs {
		if k == "" || len(k) > MaxInputKeyBytes {
			return nil, fmt.Errorf("%w: input request key of %d bytes", ErrMalformed, len(k))
		}
		var m struct {
			Method string `json:"method"`
		}
		if !bytes.HasPrefix(bytes.TrimLeft(r, " \t\r\n"), []byte("{")) || json.Unmarshal(r, &m) != nil || m.Method == "" {
			return nil, fmt.Errorf("%w: input request %q is not a request", ErrMalformed, cut(k, 64))
		}
	}
	return reqs, nil
}

// inputs are the keys of the input requests answered so far.
type inputs map[string]bool

// answer answers the input requests of raw not answered yet, and sends the
// answers with tasks/update. On error it leaves w.cancel set when the task
// must be cancelled.
func (w *waiter) answer(ctx context.Context, raw json.RawMessage) error {
	w.cancel = true
	reqs, err := ParseInputRequests(raw)
	if err != nil {
		return fmt.Errorf("task %q: %w", w.id, err)
	}
	var fresh []string
	for k := range reqs {
		if !w.inputs[k] {
			fresh = append(fresh, k)
		}
	}
	if len(fresh) == 0 {
		return nil // answered already; the server has not taken it in yet
	}
	if w.o.Input == nil {
		return fmt.Errorf("task %q: %w", w.id, ErrInputUnsupported)
	}
	if len(w.inputs)+len(fresh) > MaxInputsPerTask {
		return fmt.Errorf("task %q: %w (more than %d)", w.id, ErrTooManyInputs, MaxInputsPerTask)
	}
	slices.Sort(fresh) // one at a time, in an order that does not vary
	responses := make(map[string]json.RawMessage, len(fresh))
	for _, k := range fresh {
		resp, err := w.o.Input.Answer(ctx, reqs[k])
		if err != nil {
			return fmt.Errorf("task %q: input request %q: %w", w.id, cut(k, 64), err)
		}
		responses[k] = resp
	}
	err = w.o.Input.Update(ctx, w.id, responses)
	if errors.Is(err, ErrRejected) {
		w.cancel = false
		return fmt.Errorf("task %q: %w: tasks/update: %w", w.id, ErrLost, err)
	}
	if err != nil {
		return fmt.Errorf("task %q: tasks/update: %w", w.id, err)
	}
	if w.inputs == nil {
		w.inputs = inputs{}
	}
	for _, k := range fresh {
		w.inputs[k] = true
	}
	w.cancel = false
	return nil
}
