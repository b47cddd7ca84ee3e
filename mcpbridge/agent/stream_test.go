package agent

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/geminitest"
	"github.com/mcpgenai/bridge/mcpbridge"
)

// collect ranges over seq and returns its events and the final error; it
// fails the test when an error comes with any event but the last.
func collect(t *testing.T, seq func(func(Event, error) bool)) ([]Event, error) {
	t.Helper()
	var evs []Event
	var last error
	for ev, err := range seq {
		if err != nil && ev.Kind != EventDone {
			t.Errorf("event %d (%v) came with error %v; only EventDone may carry one", len(evs), ev.Kind, err)
		}
		evs = append(evs, ev)
		last = err
	}
	if len(evs) == 0 || evs[len(evs)-1].Kind != EventDone {
		t.Fatalf("RunStream ended without a EventDone event (%d events)", len(evs))
	}
	return evs, last
}

// kinds describes events compactly: "text:Hel" "call:lookup" "result:lookup" ...
func kinds(evs []Event) []string {
	var out []string
	for _, ev := range evs {
		switch ev.Kind {
		case EventText:
			out = append(out, "text:"+ev.Text)
		case EventThought:
			out = append(out, "thought:"+ev.Text)
		case EventRequest:
			out = append(out, fmt.Sprintf("request:%d", ev.Turn))
		case EventCall:
			out = append(out, "call:"+ev.Call.Name)
		case EventResult:
			out = append(out, "result:"+ev.Result.Name)
		case EventProgress:
			out = append(out, "progress:"+ev.Progress.Name)
		case EventDone:
			out = append(out, "done")
		}
	}
	return out
}

func TestRunStreamChunks(t *testing.T) {
	a := newAgent(t, discovered(t, nil, mcptestExec("main")), nil)
	ctx := context.Background()
	seen := make(chan string, 4)
	srv := geminitest.New(t, nil, geminitest.Reply(geminitest.Response{
		Parts: []*genai.Part{{Text: "thinking", Thought: true}, {Text: "Hel"}, {Text: "lo"}},
		BeforeChunk: func(i int) {
			if i == 2 { // the caller has "Hel" before "lo" is even written
				if got := <-seen; got != "Hel" {
					t.Errorf("before chunk 2 the caller saw %q, want \"Hel\"", got)
				}
			}
		},
	}))
	var evs []Event
	for ev, err := range a.RunStream(ctx, srv.Client(ctx).Models, e2eModel, prompt(), nil) {
		if err != nil {
			t.Fatalf("RunStream() = %v", err)
		}
		if ev.Kind == EventText {
			seen <- ev.Text
		}
		evs = append(evs, ev)
	}
	want := []string{"thought:thinking", "text:Hel", "text:lo", "request:1", "done"}
	if diff := cmp.Diff(want, kinds(evs)); diff != "" {
		t.Errorf("events mismatch (-want +got):\n%s", diff)
	}
	res := evs[len(evs)-1].Run
	if res.Response.Text() != "Hello" || res.Turns != 1 {
		t.Errorf("Run.Response = %q after %d turns, want \"Hello\" after 1", res.Response.Text(), res.Turns)
	}
	wantAnswer := &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{{Text: "thinking", Thought: true}, {Text: "Hel"}, {Text: "lo"}}}
	if diff := cmp.Diff(wantAnswer, res.History[len(res.History)-1]); diff != "" {
		t.Errorf("the answer in History is not the parts as sent (-want +got):\n%s", diff)
	}
	if evs[1].Chunk == nil || evs[1].Chunk.ResponseID != "fake-response-1" {
		t.Errorf("a text event does not carry its chunk: %+v", evs[1].Chunk)
	}
}

// TestRunStreamCallsOverChunks: a model turn whose text and calls arrive in
// separate chunks, with Gemini 3's thought signature, is assembled as sent
// and gives the same conversation as Run.
func TestRunStreamCallsOverChunks(t *testing.T) {
	b := discovered(t, nil, mcptestExec("main"))
	ctx := context.Background()
	script := func() []geminitest.Turn {
		return []geminitest.Turn{
			geminitest.Reply(geminitest.Response{
				Parts: []*genai.Part{
					{Text: "Looking up."},
					{FunctionCall: &genai.FunctionCall{Name: "lookup", Args: map[string]any{"name": "ann"}}},
					{FunctionCall: &genai.FunctionCall{Name: "echo", Args: map[string]any{"text": "hi"}}},
				},
				Chunks: []int{1, 1, 1},
			}),
			geminitest.Text("Ann is 7."),
		}
	}
	opts := &geminitest.Options{ThoughtSignatures: true}
	streamed := geminitest.New(t, opts, script()...)
	var calls, results []string
	a := newAgent(t, b, &Options{
		OnCall:   func(c *genai.FunctionCall) { calls = append(calls, c.Name) },
		OnResult: func(r *mcpbridge.CallResult) { results = append(results, r.Name) }, // one at a time
	})
	evs, err := collect(t, a.RunStream(ctx, streamed.Client(ctx).Models, e2eModel, prompt(), nil))
	if err != nil {
		t.Fatalf("RunStream() = %v", err)
	}
	got := kinds(evs)
	// The two results come in the order the calls end; sort that pair.
	if r := got[4:6]; r[0] > r[1] {
		r[0], r[1] = r[1], r[0]
	}
	want := []string{"text:Looking up.", "request:1", "call:lookup", "call:echo", "result:echo", "result:lookup", "text:Ann is 7.", "request:2", "done"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events mismatch (-want +got):\n%s", diff)
	}
	// OnResult had each result once, as its call ended.
	slices.Sort(results)
	if diff := cmp.Diff([]string{"echo", "lookup"}, results); diff != "" {
		t.Errorf("OnResult results mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"lookup", "echo"}, calls); diff != "" {
		t.Errorf("OnCall order mismatch (-want +got):\n%s", diff)
	}
	sres := evs[len(evs)-1].Run
	if sig := sres.History[1].Parts[1].ThoughtSignature; string(sig) != "fake-signature-lookup" {
		t.Errorf("the model turn's first call has signature %q, want the API's", sig)
	}

	whole := geminitest.New(t, opts, script()...)
	rres, err := newAgent(t, b, nil).Run(ctx, whole.Client(ctx).Models, e2eModel, prompt(), nil)
	if err != nil {
		t.Fatalf("Run() = %v", err)
	}
	ignoreIDs := cmpopts.IgnoreFields(genai.FunctionCall{}, "ID")
	ignoreRespIDs := cmpopts.IgnoreFields(genai.FunctionResponse{}, "ID")
	if diff := cmp.Diff(rres.History, sres.History, ignoreIDs, ignoreRespIDs); diff != "" {
		t.Errorf("RunStream's history differs from Run's (-run +stream):\n%s", diff)
	}
	reqs := streamed.Requests()
	if len(reqs) != 2 || !reqs[1].Stream || reqs[1].Rejection != "" {
		t.Fatalf("the fake saw %d requests (second rejected: %q), want 2 accepted stream requests", len(reqs), reqs[len(reqs)-1].Rejection)
	}
	if fr := reqs[1].FunctionResponses(); len(fr) != 2 || fr[0].Name != "lookup" || fr[1].Name != "echo" {
		t.Errorf("second request answers %v, want lookup then echo", fr)
	}
}

func TestRunStreamHeals(t *testing.T) {
	main := mcptestExec("main")
	main.IncludeTools = []string{"lookup", "echo"}
	b := discovered(t, nil, main)
	ctx := context.Background()
	// The 400 comes on the second request, after a turn of calls.
	srv := geminitest.New(t, nil,
		geminitest.Calls(geminitest.Call{Name: "lookup", Args: map[string]any{"name": "ann"}}),
		geminitest.Text("found"))
	models := srv.Client(ctx).Models
	reject := &geminitest.Options{DeclarationRules: []geminitest.DeclarationRule{tooComplex("echo")}}
	rejecting := geminitest.New(t, reject, geminitest.Text("healed"))
	var sends int
	gen := streamerFunc(func(ctx context.Context, model string, contents []*genai.Content, cfg *genai.GenerateContentConfig) iter.Seq2[*genai.GenerateContentResponse, error] {
		sends++
		if sends == 1 {
			return models.GenerateContentStream(ctx, model, contents, cfg)
		}
		return rejecting.Client(ctx).Models.GenerateContentStream(ctx, model, contents, cfg)
	})
	evs, err := collect(t, newAgent(t, b, nil).RunStream(ctx, gen, e2eModel, prompt(), nil))
	if err != nil {
		t.Fatalf("RunStream() = %v, want healed", err)
	}
	res := evs[len(evs)-1].Run
	if res.Response.Text() != "healed" || res.Turns != 2 || sends != 3 {
		t.Errorf("RunStream() = %q after %d turns and %d sends, want \"healed\" after 2 turns and 3 sends", res.Response.Text(), res.Turns, sends)
	}
	var report *mcpbridge.RequestReport
	for _, ev := range evs {
		if ev.Kind == EventRequest && ev.Turn == 2 {
			report = ev.Request
		}
	}
	if report == nil || len(report.Rejected) != 1 || report.Rejected[0].ServerTool != "echo" {
		t.Errorf("turn 2's report = %+v, want echo rejected", report)
	}
	reqs := rejecting.Requests()
	if len(reqs) != 2 || reqs[0].Rejection == "" || reqs[1].Declaration("echo") != nil {
		t.Errorf("the rejecting fake saw %d requests, want a rejection and a retry without echo", len(reqs))
	}
}

// TestRunStreamStop: breaking out of the loop ends the run at once, in the
// middle of a stream or while calls run; a running call is cancelled at its
// server; the package's goleak check shows nothing is left running.
func TestRunStreamStop(t *testing.T) {
	ctx := context.Background()
	t.Run("mid-stream", func(t *testing.T) {
		a := newAgent(t, discovered(t, nil, mcptestExec("main")), nil)
		release := make(chan struct{})
		srv := geminitest.New(t, nil, geminitest.Reply(geminitest.Response{
			Parts: []*genai.Part{{Text: "one"}, {Text: "two"}},
			BeforeChunk: func(i int) {
				if i == 1 {
					<-release // the caller stops before the second chunk exists
				}
			},
		}))
		defer close(release)
		n := 0
		for ev, err := range a.RunStream(ctx, srv.Client(ctx).Models, e2eModel, prompt(), nil) {
			n++
			if err != nil || ev.Kind != EventText || ev.Text != "one" {
				t.Fatalf("first event = %+v, %v, want the text \"one\"", ev, err)
			}
			break
		}
		if n != 1 {
			t.Errorf("RunStream yielded %d events before the break, want 1", n)
		}
	})
	t.Run("during calls", func(t *testing.T) {
		slow, started, cancelled := sleepServer(t, "slow")
		a := newAgent(t, discovered(t, nil, slow, mcptestExec("main")), nil)
		srv := geminitest.New(t, nil,
			geminitest.Calls(
				geminitest.Call{Name: "sleep", Args: map[string]any{"ms": 600000}},
				geminitest.Call{Name: "lookup", Args: map[string]any{"name": "ann"}},
			),
			geminitest.Text("never asked"))
		var got []string
		for ev, err := range a.RunStream(ctx, srv.Client(ctx).Models, e2eModel, prompt(), nil) {
			if err != nil {
				t.Fatalf("RunStream() = %v", err)
			}
			got = append(got, kinds([]Event{ev})...)
			if ev.Kind == EventResult {
				select { // lookup ended; sleep runs at its server
				case <-started:
				case <-time.After(30 * time.Second):
					t.Fatal("the sleep call never reached its server")
				}
				break
			}
		}
		want := []string{"request:1", "call:sleep", "call:lookup", "result:lookup"}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("events mismatch (-want +got):\n%s", diff)
		}
		select {
		case <-cancelled:
		case <-time.After(30 * time.Second):
			t.Fatal("the server never saw the sleep call cancelled")
		}
		if srv.Remaining() != 1 {
			t.Errorf("the fake has %d turns left, want 1 (no request after the break)", srv.Remaining())
		}
	})
}

func TestRunStreamProgress(t *testing.T) {
	offers := mcptestWith("offers", "-offers")
	offers.Trust = true
	a := newAgent(t, discovered(t, nil, offers), nil)
	ctx := context.Background()
	srv := geminitest.New(t, nil,
		geminitest.Calls(geminitest.Call{Name: "progress", Args: map[string]any{"steps": 3}}),
		geminitest.Text("done"))
	evs, err := collect(t, a.RunStream(ctx, srv.Client(ctx).Models, e2eModel, prompt(), nil))
	if err != nil {
		t.Fatalf("RunStream() = %v", err)
	}
	var last *mcpbridge.Progress
	resultAt, progressAt := -1, -1
	for i, ev := range evs {
		switch ev.Kind {
		case EventProgress:
			last, progressAt = ev.Progress, i
		case EventResult:
			resultAt = i
			if !strings.Contains(ev.Result.ReturnDisplay, "token sent: true") {
				t.Errorf("the call carried no progress token: %q", ev.Result.ReturnDisplay)
			}
		}
	}
	if last == nil || progressAt > resultAt {
		t.Fatalf("events %v: want progress before the call's result", kinds(evs))
	}
	if last.Name != "progress" || last.Total != 3 || !strings.HasPrefix(last.Message, "step ") {
		t.Errorf("last progress = %+v, want the server's report on \"progress\"", last)
	}
}

func TestRunStreamErrors(t *testing.T) {
	b := discovered(t, nil, mcptestExec("main"))
	a := newAgent(t, b, nil)
	ctx := context.Background()
	t.Run("turn limit", func(t *testing.T) {
		again := geminitest.Calls(geminitest.Call{Name: "lookup", Args: map[string]any{"name": "ann"}})
		srv := geminitest.New(t, nil, again, again)
		evs, err := collect(t, newAgent(t, b, &Options{MaxTurns: 2}).RunStream(ctx, srv.Client(ctx).Models, e2eModel, prompt(), nil))
		if !errors.Is(err, ErrTurnLimit) {
			t.Fatalf("RunStream(MaxTurns 2) = %v, want ErrTurnLimit", err)
		}
		if res := evs[len(evs)-1].Run; res.Turns != 2 || len(res.Results) != 1 {
			t.Errorf("EventDone.Run = %d turns, %d results, want 2 and 1", res.Turns, len(res.Results))
		}
	})
	t.Run("unhealable 400", func(t *testing.T) {
		srv := geminitest.New(t, nil, geminitest.Fail(400, "bad"))
		_, err := collect(t, a.RunStream(ctx, srv.Client(ctx).Models, e2eModel, prompt(), nil))
		var apiErr genai.APIError
		if !errors.As(err, &apiErr) || apiErr.Code != 400 {
			t.Errorf("RunStream() = %v, want the API's 400", err)
		}
	})
	t.Run("bad host function", func(t *testing.T) {
		_, err := collect(t, newAgent(t, b, &Options{Functions: []mcpbridge.HostFunction{{Declaration: &genai.FunctionDeclaration{Name: "1bad"}}}}).
			RunStream(ctx, nil, e2eModel, prompt(), nil))
		if err == nil || !strings.Contains(err.Error(), "not a valid Gemini function name") {
			t.Errorf("RunStream(bad host function) = %v, want the name's error", err)
		}
	})
	t.Run("partial call arguments", func(t *testing.T) {
		gen := streamerFunc(func(context.Context, string, []*genai.Content, *genai.GenerateContentConfig) iter.Seq2[*genai.GenerateContentResponse, error] {
			return func(yield func(*genai.GenerateContentResponse, error) bool) {
				yield(&genai.GenerateContentResponse{Candidates: []*genai.Candidate{{Content: &genai.Content{Parts: []*genai.Part{
					{FunctionCall: &genai.FunctionCall{Name: "lookup", WillContinue: genai.Ptr(true)}},
				}}}}}, nil)
			}
		})
		_, err := collect(t, a.RunStream(ctx, gen, e2eModel, prompt(), nil))
		if err == nil || !strings.Contains(err.Error(), "streamed in pieces") || !errors.Is(err, ErrStreamedCall) {
			t.Errorf("RunStream(partial args) = %v, want a clear error", err)
		}
	})
}
