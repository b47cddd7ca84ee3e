package agent

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"runtime/pprof"
	"sync"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/mcpbridge"
	chunks "github.com/mcpgenai/bridge/mcpbridge/agent/internal/stream"
)

// ContentStreamer generates content as a stream of chunks: *genai.Models
// (client.Models) satisfies it.
type ContentStreamer interface {
	GenerateContentStream(ctx context.Context, model string, contents []*genai.Content, config *genai.GenerateContentConfig) iter.Seq2[*genai.GenerateContentResponse, error]
}

// EventKind says what an [Event] reports.
type EventKind int

const (
	// EventText: a piece of the model's answer (Text), as it arrives.
	EventText EventKind = iota + 1
	// EventThought: a piece of the model's thoughts (Text), as it arrives.
	EventThought
	// EventRequest: a request succeeded (Request says what it carried);
	// it comes after the request's last text.
	EventRequest
	// EventCall: the model called a function (Call); the calls of a turn
	// come in order, before any of them runs.
	EventCall
	// EventProgress: a running call's server reported progress
	// (Progress). Only the latest report of a call is kept until it is
	// delivered.
	EventProgress
	// EventResult: a call ended (Result), in the order calls end.
	EventResult
	// EventDone: the run ended (Run); always the last event.
	EventDone
)

// Event is one step of [Agent.RunStream]. Kind says which field is set.
// Its pointers are the run's own values: read them, do not modify them.
type Event struct {
	// Kind says what happened, and so which of the fields below is set.
	Kind EventKind
	// Turn is the number of the request the event belongs to, from 1.
	Turn int
	// Text is a piece of text or thought (EventText, EventThought).
	Text string
	// Chunk is the chunk that carried Text, as the API sent it.
	Chunk *genai.GenerateContentResponse
	// Request says what a request carried (EventRequest).
	Request *mcpbridge.RequestReport
	// Call is a function call of the model (EventCall).
	Call *genai.FunctionCall
	// Progress is a server's progress report (EventProgress).
	Progress *mcpbridge.Progress
	// Result is an ended call's result (EventResult).
	Result *mcpbridge.CallResult
	// Run is what the run did (EventDone), as [Agent.Run] returns it.
	Run *RunResult
}

// RunStream is [Agent.Run] on a stream: the same turns, with the same
// guarantees (declarations, selection, healing after a 400, host
// functions, background calls, confirmation, restoring, validation,
// redaction, call order in History, tracing, the callbacks of the
// Options), sent with GenerateContentStream, and reported as they happen.
// It yields the model's text and thought pieces as their chunks arrive,
// each request's report, each function call, the progress of running
// calls and each call's result as it ends, and, last, an [EventDone] event
// whose Run is what Run would have returned, paired with the error Run
// would have returned (nil on success). Every other pair has a nil error.
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
// nulls) and runs the call as any other, reported once whole (EventCall).
// History holds the assembled call, not its pieces. Pieces that do not
// make one call end the run with an error wrapping [ErrStreamedCall] that
// names the call. The Gemini Developer API rejects the setting.
//
// Every call of a Bridge tool asks its server for progress: the reports
// come as EventProgress events (and to [Options.OnProgress]).
//
// Breaking out of the loop stops the run at once: the request or the
// running calls are cancelled (servers are told, where their transport
// allows), RunStream waits for them to end, and nothing is left running.
// Each event is yielded on the goroutine ranging over the sequence; the
// sequence may be ranged over once. A call that may report progress runs
// on a goroutine the Agent keeps for the purpose (it ends after 30 s
// without work, or at Close); any other lone call of a turn runs on the
// caller's goroutine.
func (a *Agent) RunStream(ctx context.Context, gen ContentStreamer, model string, history []*genai.Content,
	config *genai.GenerateContentConfig) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		d := &streamDriver{yield: yield, prog: newProgressSlot()}
		r, err := a.startRun(history, config)
		if err == nil {
			err = d.drive(r, ctx, gen, model)
		}
		if errors.Is(err, errStopped) {
			return
		}
		yield(Event{Kind: EventDone, Turn: r.res.Turns, Run: r.res}, err)
	}
}

// errStopped is the error a driver returns when its caller broke out of
// the loop.
var errStopped = errors.New("the caller stopped the run")

// streamDriver drives a run on a stream, yielding its events.
type streamDriver struct {
	yield   func(Event, error) bool
	stopped bool
	prog    *progressSlot
}

// emit yields ev; it reports false, and remembers, when the caller stopped.
func (d *streamDriver) emit(ev Event) bool {
	if d.stopped {
		return false
	}
	if !d.yield(ev, nil) {
		d.stopped = true
	}
	return !d.stopped
}

func (d *streamDriver) drive(r *run, ctx context.Context, gen ContentStreamer, model string) error {
	ctx = r.a.withProgress(ctx, d.prog.put)
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
				d.emit(Event{Kind: EventRequest, Turn: r.res.Turns, Request: lastReport(r.res)})
			}
			return err
		}
		if !d.emit(Event{Kind: EventRequest, Turn: r.res.Turns, Request: lastReport(r.res)}) {
			return errStopped
		}
		for _, c := range t.calls {
			if !d.emit(Event{Kind: EventCall, Turn: r.res.Turns, Call: c}) {
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
func lastReport(res *RunResult) *mcpbridge.RequestReport {
	if len(res.Requests) == 0 {
		return nil
	}
	rep := res.Requests[len(res.Requests)-1]
	return &rep
}

// send streams one request, yielding its text as it arrives, and returns
// the assembled answer.
func (d *streamDriver) send(ctx context.Context, gen ContentStreamer, model string, r *run, cfg *genai.GenerateContentConfig) (*genai.GenerateContentResponse, error) {
	acc := chunks.Accumulator{Partial: ErrStreamedCall}
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
			kind := EventText
			if p.Thought {
				kind = EventThought
			}
			if !d.emit(Event{Kind: kind, Turn: r.res.Turns, Text: p.Text, Chunk: chunk}) {
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

// runCalls runs t's calls on another goroutine and yields their progress
// and results as they come; it returns the results in call order. When
// the caller stops, it cancels the calls, waits for them and returns
// errStopped. A turn of one call that cannot report progress runs on the
// caller's goroutine: there is nothing to yield until it ends.
func (d *streamDriver) runCalls(ctx context.Context, r *run, t *turn) ([]*mcpbridge.CallResult, error) {
	n := r.res.Turns
	if len(t.calls) == 1 && !r.mayReport(t, t.calls[0]) {
		results := r.runCalls(ctx, t, nil)
		if !d.emit(Event{Kind: EventResult, Turn: n, Result: results[0]}) {
			return nil, errStopped
		}
		return results, nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var ended chan *mcpbridge.CallResult
	var onEnd func(*mcpbridge.CallResult)
	if len(t.calls) > 1 { // a single call's result comes with done: one wake-up less
		ended = make(chan *mcpbridge.CallResult, len(t.calls)) // never blocks a call
		onEnd = func(res *mcpbridge.CallResult) { ended <- res }
	}
	done := make(chan []*mcpbridge.CallResult, 1)
	r.a.handoff.Go(func() { // a kept goroutine: a new one's stack would grow again
		pprof.SetGoroutineLabels(ctx) // the caller's profiler labels, as a new goroutine would inherit
		done <- r.runCalls(ctx, t, onEnd)
	})
	for {
		select {
		case res := <-ended:
			if !d.emit(Event{Kind: EventResult, Turn: n, Result: res}) {
				cancel()
			}
		case <-d.prog.ready:
			for _, p := range d.prog.take() {
				if !d.emit(Event{Kind: EventProgress, Turn: n, Progress: &p}) {
					cancel()
				}
			}
		case results := <-done:
			for len(ended) > 0 {
				d.emit(Event{Kind: EventResult, Turn: n, Result: <-ended})
			}
			if onEnd == nil {
				d.emit(Event{Kind: EventResult, Turn: n, Result: results[0]})
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
// turn waits for it: only a call of a Bridge tool has a server to report
// it; a host function, the fallback, a call that fails before it starts
// (an unknown function) and a background call (started and answered at
// once) do not.
func (r *run) mayReport(t *turn, c *genai.FunctionCall) bool {
	if c == nil || r.a.isBackground(t.d, c.Name) {
		return false
	}
	_, ok := t.d.Tool(c.Name)
	return ok
}

// progressSlot keeps the latest progress report of each running call
// until the driver takes them: a server's reader never waits for the
// caller, and memory is bounded by the number of calls.
type progressSlot struct {
	ready chan struct{} // one token when reports wait
	mu    sync.Mutex
	order []progressKey
	last  map[progressKey]mcpbridge.Progress // nil until the first report
}

type progressKey struct{ name, id string }

func newProgressSlot() *progressSlot {
	return &progressSlot{ready: make(chan struct{}, 1)}
}

// put keeps p as its call's latest report.
func (s *progressSlot) put(p mcpbridge.Progress) {
	k := progressKey{p.Name, p.ID}
	s.mu.Lock()
	if s.last == nil {
		s.last = map[progressKey]mcpbridge.Progress{}
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
func (s *progressSlot) take() []mcpbridge.Progress {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.order) == 0 {
		return nil
	}
	out := make([]mcpbridge.Progress, 0, len(s.order))
	for _, k := range s.order {
		out = append(out, s.last[k])
	}
	s.order = s.order[:0]
	clear(s.last)
	return out
}
