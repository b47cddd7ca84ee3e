package agent

import (
	"context"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/geminitest"
	"github.com/mcpgenai/bridge/mcpbridge"
	chunks "github.com/mcpgenai/bridge/mcpbridge/agent/internal/stream"
	"github.com/mcpgenai/bridge/mcpbridge/internal/benchpair"
)

// caller makes one run or call and fails b when the answer is not the
// expected one.
type caller = func(b *testing.B)

// benchAgent returns an Agent over a discovered Bridge for the trusted
// server cfg.
func benchAgent(b *testing.B, ctx context.Context, cfg mcpbridge.ServerConfig) *Agent {
	b.Helper()
	cfg.Trust = true
	br, err := mcpbridge.New(&mcpbridge.Config{Servers: []mcpbridge.ServerConfig{cfg}}, &mcpbridge.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatalf("New() error: %v", err)
	}
	b.Cleanup(func() { _ = br.Close() })
	if err := br.Discover(ctx); err != nil {
		b.Fatalf("Discover() error: %v", err)
	}
	if st := br.Status().Servers[0]; st.State != mcpbridge.Connected {
		b.Fatalf("server %q: state %v, error %q", st.Name, st.State, st.Error)
	}
	a := New(br, nil)
	b.Cleanup(func() { _ = a.Close() })
	return a
}

// BenchmarkStreamTurn compares RunStream with Run on the same fake and the
// same Agent: one run of two turns (the model calls lookup on the stdio
// test server, then answers). "baseline" is Run, "bridge" is RunStream,
// and "paired" reports the ratio of their medians (see benchpair.Run):
// the streaming loop's cost per run over Run's.
func BenchmarkStreamTurn(b *testing.B) {
	ctx := context.Background()
	br := benchAgent(b, ctx, mcptestExec("main"))
	srv := geminitest.New(b, nil)
	b.Cleanup(srv.Close)
	models := srv.Client(ctx).Models
	turns := func() {
		srv.Append(geminitest.Calls(geminitest.Call{Name: "lookup", Args: map[string]any{"name": "ann"}}), geminitest.Text("Ann is 7."))
	}
	check := func(b *testing.B, res *RunResult, err error) {
		if err != nil || res.Turns != 2 || res.Response.Text() != "Ann is 7." {
			b.Fatalf("run = %v after %d turns, want the answer after 2", err, res.Turns)
		}
	}
	run := func(b *testing.B) {
		turns()
		res, err := br.Run(ctx, models, e2eModel, prompt(), nil)
		check(b, res, err)
	}
	stream := func(b *testing.B) {
		turns()
		var res *RunResult
		var err error
		for ev, e := range br.RunStream(ctx, models, e2eModel, prompt(), nil) {
			if ev.Kind == EventDone {
				res, err = ev.Run, e
			}
		}
		check(b, res, err)
	}
	benchpair.Run(b, run, stream)
}

// BenchmarkStreamFloor is BenchmarkStreamTurn's floor on the same requests:
// Run ("baseline") against Run whose requests are streamed and assembled
// ("bridge", see streamedGenerator). Both send exactly what Run sends (the
// Bridge's declarations, the same history) and run calls alike, so the
// ratio is the cost of streaming itself (genai's SSE reading, the fake's
// events and flushes, chunked HTTP) inside one run; what StreamTurn shows
// beyond it is RunStream's own (its events, asking for progress, handing
// a call to another goroutine).
func BenchmarkStreamFloor(b *testing.B) {
	ctx := context.Background()
	br := benchAgent(b, ctx, mcptestExec("main"))
	srv := geminitest.New(b, nil)
	b.Cleanup(srv.Close)
	models := srv.Client(ctx).Models
	turns := func() {
		srv.Append(geminitest.Calls(geminitest.Call{Name: "lookup", Args: map[string]any{"name": "ann"}}), geminitest.Text("Ann is 7."))
	}
	runWith := func(gen ContentGenerator) caller {
		return func(b *testing.B) {
			turns()
			res, err := br.Run(ctx, gen, e2eModel, prompt(), nil)
			if err != nil || res.Turns != 2 || res.Response.Text() != "Ann is 7." {
				b.Fatalf("run = %v after %d turns, want the answer after 2", err, res.Turns)
			}
		}
	}
	benchpair.Run(b, runWith(models), runWith(streamedGenerator{models}))
}

// streamedGenerator answers GenerateContent with GenerateContentStream,
// its chunks assembled as RunStream assembles them.
type streamedGenerator struct{ m *genai.Models }

func (g streamedGenerator) GenerateContent(ctx context.Context, model string, contents []*genai.Content, cfg *genai.GenerateContentConfig) (*genai.GenerateContentResponse, error) {
	acc := chunks.Accumulator{Partial: ErrStreamedCall}
	for chunk, err := range g.m.GenerateContentStream(ctx, model, contents, cfg) {
		if err != nil {
			return nil, err
		}
		if err := acc.Add(chunk); err != nil {
			return nil, err
		}
	}
	return acc.Response(), nil
}

// BenchmarkStreamFirstChunk measures how long the first text chunk takes
// from the moment the fake starts writing it to the moment RunStream hands
// it to the caller ("first-chunk-ns", the median; "p90-ns"): the fake's
// write and flush, loopback, genai's SSE parsing, the Bridge's assembly and
// the yield. Target: under 1 ms.
func BenchmarkStreamFirstChunk(b *testing.B) {
	ctx := context.Background()
	br := benchAgent(b, ctx, mcptestExec("main"))
	var sent atomic.Int64
	srv := geminitest.New(b, nil)
	b.Cleanup(srv.Close)
	models := srv.Client(ctx).Models
	answer := geminitest.Reply(geminitest.Response{
		Parts: []*genai.Part{{Text: "first"}, {Text: "second"}},
		BeforeChunk: func(i int) {
			if i == 0 {
				sent.Store(time.Now().UnixNano())
			}
		},
	})
	var lat []time.Duration
	for b.Loop() {
		srv.Append(answer)
		seen := false
		for ev, err := range br.RunStream(ctx, models, e2eModel, prompt(), nil) {
			if err != nil {
				b.Fatalf("RunStream() = %v", err)
			}
			if ev.Kind == EventText && !seen {
				seen = true
				lat = append(lat, time.Duration(time.Now().UnixNano()-sent.Load()))
			}
		}
		if !seen {
			b.Fatal("no text event")
		}
	}
	b.ReportMetric(float64(benchpair.Median(lat)), "first-chunk-ns")
	b.ReportMetric(float64(lat[len(lat)*9/10]), "p90-ns")
}

// BenchmarkStreamSDK is BenchmarkStreamTurn's floor: the same two requests
// sent with genai alone, GenerateContent ("baseline") against
// GenerateContentStream ("bridge"), so that the cost of streaming itself
// (chunked HTTP, SSE parsing in genai) can be told from RunStream's own.
func BenchmarkStreamSDK(b *testing.B) {
	ctx := context.Background()
	srv := geminitest.New(b, nil)
	b.Cleanup(srv.Close)
	models := srv.Client(ctx).Models
	history := []*genai.Content{
		genai.NewContentFromText("go", genai.RoleUser),
		{Role: genai.RoleModel, Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{ID: "x", Name: "lookup", Args: map[string]any{"name": "ann"}}}}},
		{Role: genai.RoleUser, Parts: []*genai.Part{{FunctionResponse: &genai.FunctionResponse{ID: "x", Name: "lookup", Response: map[string]any{"output": "7"}}}}},
	}
	cfg := &genai.GenerateContentConfig{Tools: []*genai.Tool{{FunctionDeclarations: []*genai.FunctionDeclaration{{Name: "lookup"}}}}}
	turns := func() {
		srv.Append(geminitest.Calls(geminitest.Call{Name: "lookup", Args: map[string]any{"name": "ann"}}), geminitest.Text("Ann is 7."))
	}
	whole := func(b *testing.B) {
		turns()
		for _, h := range [][]*genai.Content{history[:1], history} {
			if _, err := models.GenerateContent(ctx, e2eModel, h, cfg); err != nil {
				b.Fatal(err)
			}
		}
	}
	streamed := func(b *testing.B) {
		turns()
		for _, h := range [][]*genai.Content{history[:1], history} {
			for _, err := range models.GenerateContentStream(ctx, e2eModel, h, cfg) {
				if err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	benchpair.Run(b, whole, streamed)
}

// BenchmarkStreamHandoff measures what RunStream pays to run a call on
// another goroutine (so that it can yield the call's progress meanwhile):
// Execute of lookup over stdio in place ("baseline") against the same
// call handed to a new goroutine ("new") or to a goroutine the Bridge
// keeps ("kept", what RunStream does), each waited for.
func BenchmarkStreamHandoff(b *testing.B) {
	ctx := context.Background()
	a := benchAgent(b, ctx, mcptestExec("main"))
	br := a.b
	call := &genai.FunctionCall{Name: "lookup", Args: map[string]any{"name": "ann"}}
	check := func(b *testing.B, r *mcpbridge.CallResult) {
		if r.Err != nil {
			b.Fatalf("Execute(lookup) = %v", r.Err)
		}
	}
	inPlace := func(b *testing.B) { check(b, br.Execute(ctx, call)) }
	handed := func(spawn func(func())) caller {
		return func(b *testing.B) {
			done := make(chan *mcpbridge.CallResult, 1)
			spawn(func() { done <- br.Execute(ctx, call) })
			check(b, <-done)
		}
	}
	b.Run("new", func(b *testing.B) { benchpair.Run(b, inPlace, handed(func(f func()) { go f() })) })
	b.Run("kept", func(b *testing.B) { benchpair.Run(b, inPlace, handed(a.handoff.Go)) })
}
