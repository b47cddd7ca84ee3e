package mcpbridge

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"runtime/pprof"
	"sync"
	"time"

	"google.golang.org/genai"

	chunks "github.com/mcpgenai/bridge/mcpbridge/internal/stream"
)

// ContentStreamer generates content as a stream of chunks: *genai.Models
// (client.Models) satisfies it.
type ContentStreamer interface {
	GenerateContentStream(ctx context.Context, model string, contents []*genai.Content, config *genai.GenerateContentConfig) iter.Seq2[*genai.GenerateContentResponse, error]
}

// RunEventKind says what a [RunEvent] reports.
type RunEventKind int

const (
	// RunText: a piece of the model's answer (Text), as it arrives.
	RunText RunEventKind = iota + 1
	// RunThought: a piece of the model's thoughts (Text), as it arrives.
	RunThought
	// RunRequest: a request succeeded (Request says what it carried);
	// it comes after the request's last text.
	RunRequest
	// RunCall: the model called a function (Call); the calls of a turn
	// come in order, before any of them runs.
	RunCall
	// RunProgress: a running call's server reported progress (Progress).
	// Only the latest report of a call is kept until it is delivered.
	RunProgress
	// RunCallResult: a call ended (Result), in the order calls end.
	RunCallResult
	// RunDone: the run ended (Run); always the last event.
	RunDone
)

// RunEvent is one step of [Bridge.RunStream]. Kind says which field is set.
// Its pointers are the run's own values: read them, do not modify them.
type RunEvent struct {
	Kind RunEventKind
	// Turn is the number of the request the event belongs to, from 1.
	Turn int
	// Text is a piece of text or thought (RunText, RunThought).
	Text string
	// Chunk is the chunk that carried Text, as the API sent it.
	Chunk *genai.GenerateContentResponse
	// Request says what a request carried (RunRequest).
	Request *RequestReport
	// Call is a function call of the model (RunCall).
	Call *genai.FunctionCall
	// Progress is a server's progress report (RunProgress).
	Progress *Progress
	// Result is an ended call's result (RunCallResult).
	Result *CallResult
	// Run is what the run did (RunDone), as [Bridge.Run] returns it.
	Run *RunResult
}

// RunStream is [Bridge.Run] on a stream: the same turns, with the same
// guarantees (declarations, selection, healing after a 400, host
// functions, confirmation, restoring, validation, redaction, call order in
// History, tracing, the callbacks of opts), sent with
// GenerateContentStream, and reported as they happen. It yields the
// model's text and thought pieces as their chunks arrive, each request's
// report, each function call, the progress of running calls and each
// call's result as it ends, and, last, a [RunDone] event whose Run is
// what Run would have returned, paired with the error Run would have
// returned (nil on success). Every other pair has a nil error.
//
// The model's turn in History holds the parts of all its chunks in the
// order the API sent them, thought signatures included. A stream that
// fails after some chunks arrived is not healed and not sent again: its
// error ends the run.
//
// On Vertex AI, a config whose ToolConfig.FunctionCallingConfig sets
// StreamFunctionCallArguments makes the model stream each call's
// arguments in pieces; RunStream assembles them into the call's Args
// (nested objects and arrays, strings joined, typed numbers, booleans and
// nulls) and runs the call as any other, reported once whole (RunCall).
// History holds the assembled call, not its pieces. Pieces that do not
// make one call end the run with an error wrapping [ErrStreamedCall] that
// names the call. The Gemini Developer API rejects the setting.
//
// Breaking out of the loop stops the run at once: the request or the
// running calls are cancelled (servers are told, where their transport
// allows), RunStream waits for them to end, and nothing is left running.
// Each event is yielded on the goroutine ranging over the sequence; the
// sequence may be ranged over once. A call that may report progress runs
// on a goroutine the Bridge keeps for the purpose (it ends after 30 s
// without work, or at Close); any other lone call of a turn runs on the
// caller's goroutine.
func (b *Bridge) RunStream(ctx context.Context, gen ContentStreamer, model string, history []*genai.Content,
	config *genai.GenerateContentConfig, opts *RunOptions) iter.Seq2[RunEvent, error] {
	return func(yield func(RunEvent, error) bool) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		d := &streamDriver{yield: yield, prog: newProgressSlot()}
		r, err := b.startRun(history, config, opts)
		if err == nil {
			err = d.drive(r, ctx, gen, model)
		}
		if errors.Is(err, errStopped) {
			return
		}
		yield(RunEvent{Kind: RunDone, Turn: r.res.Turns, Run: r.res}, err)
	}
}

// ErrStreamedCall is wrapped by the error of [Bridge.RunStream] when a
// function call whose arguments Vertex AI streamed in pieces does not
// assemble: a malformed JSON path, a value put twice, pieces past the
// bounds (depth 64, 8 MiB, 1,048,576 pieces per call), a call cut off by
// the end of the stream. The message names the call and the piece.
var ErrStreamedCall = chunks.ErrPartialCall

// errStopped is the error a driver returns when its caller broke out of
// the loop.
var errStopped = errors.New("the caller stopped the run")

// streamDriver drives a run on a stream, yielding its events.
type streamDriver struct {
	yield   func(RunEvent, error) bool
	stopped bool
	prog    *progressSlot
}

// emit yields ev; it reports false, and remembers, when the caller stopped.
func (d *streamDriver) emit(ev RunEvent) bool {
	if d.stopped {
		return false
	}
	if !d.yield(ev, nil) {
		d.stopped = true
	}
	return !d.stopped
}

func (d *streamDriver) drive(r *run, ctx context.Context, gen ContentStreamer, model string) error {
	ctx = r.progressContext(ctx, d.prog.put)
	send := func(ctx context.Context, cfg *genai.GenerateContentConfig) (*genai.GenerateContentResponse, error) {
		return d.send(ctx, gen, model, r, cfg)
	}
	for {
		t, err := r.next(ctx, send)
		if d.stopped {
			return errStopped
		}
		if err != nil || t == nil {
			if t == nil && err == nil {
				d.emit(RunEvent{Kind: RunRequest, Turn: r.res.Turns, Request: lastReport(r.res)})
			}
			return err
		}
		if !d.emit(RunEvent{Kind: RunRequest, Turn: r.res.Turns, Request: lastReport(r.res)}) {
			return errStopped
		}
		for _, c := range t.calls {
			if !d.emit(RunEvent{Kind: RunCall, Turn: r.res.Turns, Call: c}) {
				return errStopped
			}
		}
		results, err := d.runCalls(ctx, r, t)
		if err != nil {
			return err
		}
		r.answer(t, results)
	}
}

// lastReport returns a copy of the last request's report.
func lastReport(res *RunResult) *RequestReport {
	if len(res.Requests) == 0 {
		return nil
	}
	rep := res.Requests[len(res.Requests)-1]
	return &rep
}

// send streams one request, yielding its text as it arrives, and returns
// the assembled answer.
func (d *streamDriver) send(ctx context.Context, gen ContentStreamer, model string, r *run, cfg *genai.GenerateContentConfig) (*genai.GenerateContentResponse, error) {
	var acc chunks.Accumulator
	for chunk, err := range gen.GenerateContentStream(ctx, model, r.res.History, cfg) {
		if err != nil {
			if acc.Chunks() > 0 {
				return nil, &midStreamError{fmt.Errorf("the stream broke after %d chunks: %w", acc.Chunks(), err)}
			}
			return nil, err
		}
		if err := acc.Add(chunk); err != nil {
			return nil, &midStreamError{err}
		}
		for p := range chunks.Pieces(chunk) {
			kind := RunText
			if p.Thought {
				kind = RunThought
			}
			if !d.emit(RunEvent{Kind: kind, Turn: r.res.Turns, Text: p.Text, Chunk: chunk}) {
				return nil, &midStreamError{errStopped}
			}
		}
	}
	if err := acc.Err(); err != nil {
		return nil, &midStreamError{err}
	}
	if resp := acc.Response(); resp != nil {
		return resp, nil
	}
	return nil, fmt.Errorf("%w: the stream ended without a chunk", ErrNoAnswer)
}

// handoffIdle is how long a goroutine that ran a turn's calls waits for
// the next turn's before it ends.
const handoffIdle = 30 * time.Second

// runCalls runs t's calls on another goroutine and yields their progress
// and results as they come; it returns the results in call order. When
// the caller stops, it cancels the calls, waits for them and returns
// errStopped. A turn of one call that cannot report progress runs on the
// caller's goroutine: there is nothing to yield until it ends.
func (d *streamDriver) runCalls(ctx context.Context, r *run, t *turn) ([]*CallResult, error) {
	n := r.res.Turns
	if len(t.calls) == 1 && !r.mayReport(t, t.calls[0]) {
		results := r.runCalls(ctx, t, nil)
		if !d.emit(RunEvent{Kind: RunCallResult, Turn: n, Result: results[0]}) {
			return nil, errStopped
		}
		return results, nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var ended chan *CallResult
	var onEnd func(int, *CallResult)
	if len(t.calls) > 1 { // a single call's result comes with done: one wake-up less
		ended = make(chan *CallResult, len(t.calls)) // never blocks a call
		onEnd = func(_ int, res *CallResult) { ended <- res }
	}
	done := make(chan []*CallResult, 1)
	r.b.handoff.Go(func() { // a kept goroutine: a new one's stack would grow again
		pprof.SetGoroutineLabels(ctx) // the caller's profiler labels, as a new goroutine would inherit
		done <- r.runCalls(ctx, t, onEnd)
	})
	for {
		select {
		case res := <-ended:
			if !d.emit(RunEvent{Kind: RunCallResult, Turn: n, Result: res}) {
				cancel()
			}
		case <-d.prog.ready:
			for _, p := range d.prog.take() {
				if !d.emit(RunEvent{Kind: RunProgress, Turn: n, Progress: &p}) {
					cancel()
				}
			}
		case results := <-done:
			for len(ended) > 0 {
				d.emit(RunEvent{Kind: RunCallResult, Turn: n, Result: <-ended})
			}
			if onEnd == nil {
				d.emit(RunEvent{Kind: RunCallResult, Turn: n, Result: results[0]})
			}
			d.prog.take() // reports that came with the last results are stale
			if d.stopped {
				return nil, errStopped
			}
			return results, nil
		}
	}
}

// mayReport reports whether call c of t may report progress while the
// turn waits for it: only a call of an MCP tool has a server to report
// it; a host function, the fallback, a call that fails before it starts
// (an unknown function) and a long call (started in the background, see
// [LongCalls]) do not.
func (r *run) mayReport(t *turn, c *genai.FunctionCall) bool {
	if c == nil || r.hosts.has(c.Name) {
		return false
	}
	if long := r.o.LongCalls; long != nil && long.isLong(c.Name, r.b.taskRequired(r.hosts, t.req, c.Name)) {
		return false
	}
	if t.req.mcp[c.Name] != nil {
		return true
	}
	_, ok := r.b.Tool(c.Name)
	return ok
}

// progressSlot keeps the latest progress report of each running call
// until the driver takes them: a server's reader never waits for the
// caller, and memory is bounded by the number of calls.
type progressSlot struct {
	ready chan struct{} // one token when reports wait
	mu    sync.Mutex
	order []progressKey
	last  map[progressKey]Progress // nil until the first report
}

type progressKey struct{ name, id string }

func newProgressSlot() *progressSlot {
	return &progressSlot{ready: make(chan struct{}, 1)}
}

// put keeps p as its call's latest report.
func (s *progressSlot) put(p Progress) {
	k := progressKey{p.Name, p.ID}
	s.mu.Lock()
	if s.last == nil {
		s.last = map[progressKey]Progress{}
	}
	if _, ok := s.last[k]; !ok {
		s.order = append(s.order, k)
	}
	s.last[k] = p
	s.mu.Unlock()
	select {
	case s.ready <- struct{}{}:
	default:
	}
}

// take returns the waiting reports, in the order their calls first
// reported, and forgets them.
func (s *progressSlot) take() []Progress {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.order) == 0 {
		return nil
	}
	out := make([]Progress, 0, len(s.order))
	for _, k := range s.order {
		out = append(out, s.last[k])
	}
	s.order = s.order[:0]
	clear(s.last)
	return out
}
