package mcpbridge

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/mcpgenai/bridge/mcpbridge/elicit"

	"google.golang.org/genai"
)

// The benchmarks of this file measure what a hostile input costs in heap,
// as a ratio of the input's size ("heap/input"): the bytes allocated while
// the Bridge handles it (runtime.MemStats.TotalAlloc), divided by the
// input's own bytes. A bound checked before decoding or copying keeps the
// ratio near zero; one checked after costs several times the input.

// benchBridgeWith returns a discovered Bridge for servers with opts, closed at the
// benchmark's end.
func benchBridgeWith(b *testing.B, opts *Options, servers ...ServerConfig) *Bridge {
	b.Helper()
	if opts == nil {
		opts = &Options{}
	}
	opts.Logger = quiet()
	br, err := New(&Config{Servers: servers}, opts)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = br.Close() })
	if err := br.Discover(context.Background()); err != nil {
		b.Fatal(err)
	}
	return br
}

// allocated returns the bytes fn allocates.
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// BenchmarkHugeArguments: a model's function call with 64 MiB of
// arguments, refused by Execute (see TestHugeArgumentsRefused).
func BenchmarkHugeArguments(b *testing.B) {
	srv := stdioServer("s", "-hostile")
	srv.Trust = true
	br := benchBridgeWith(b, nil, srv)
	const size = 64 << 20
	call := &genai.FunctionCall{Name: "shout", Args: map[string]any{"text": strings.Repeat("x", size)}}
	var ratio float64
	for b.Loop() {
		n := allocated(func() {
			if r := br.Execute(context.Background(), call); r.Err == nil {
				b.Fatal("Execute(64 MiB) = nil error, want a refusal")
			}
		})
		ratio = float64(n) / size
	}
	b.ReportMetric(ratio, "heap/input")
}

// BenchmarkSlowSubscriber: 100,000 events for a subscriber that never
// reads. It reports the live heap they leave behind per event ("B/event");
// the queue holds at most subscribeQueue of them, so it falls as the
// events grow in number.
func BenchmarkSlowSubscriber(b *testing.B) {
	const n = 100_000
	var perEvent float64
	for b.Loop() {
		br, err := New(&Config{}, &Options{Logger: quiet()})
		if err != nil {
			b.Fatal(err)
		}
		events, stop := br.Subscribe()
		before := liveHeap()
		for i := range n {
			br.mu.Lock()
			br.emitLocked(Event{Kind: EventResourceUpdated, Server: "s", URI: fmt.Sprintf("test://r/%d", i)})
			br.mu.Unlock()
		}
		after := liveHeap()
		perEvent = float64(after-before) / n
		e := <-events
		if e.Kind != EventLost && e.Kind != EventResourceUpdated {
			b.Fatalf("first event = %v, want lost or updated", e.Kind)
		}
		stop()
		_ = br.Close()
	}
	b.ReportMetric(perEvent, "B/event")
}

// BenchmarkHugeQuestion: a server's elicitation/create, and its
// sampling/createMessage, of 32 MiB, refused before anything decodes
// them, over stdio (the server runs in a process of its own, so what it
// allocates is not counted). Before protocol 2026-07-28 it is the
// server's own request; on 2026-07-28 it comes in a tools/call result.
func BenchmarkHugeQuestion(b *testing.B) {
	const size = 32 << 20
	for _, tc := range []struct{ kind, era string }{{"form", "legacy"}, {"form", "modern"}, {"sampling", "legacy"}, {"sampling", "modern"}} {
		b.Run(tc.kind+"-"+tc.era, func(b *testing.B) {
			srv := stdioServer("s", "-hostile", "-sample", "-era="+tc.era)
			srv.Trust = true
			asked := false
			br := benchBridgeWith(b, &Options{Client: &ClientFeatures{
				Elicit: func(context.Context, elicit.Request) (elicit.Response, error) {
					asked = true
					return elicit.Response{}, nil
				},
				Sampling: &Sampling{Sampler: answering{"never"}},
			}}, srv)
			call := &genai.FunctionCall{Name: "bad_form", Args: map[string]any{"which": "huge_message", "bytes": size}}
			if tc.kind == "sampling" {
				call = &genai.FunctionCall{Name: "sample", Args: map[string]any{"prompt": "big", "pad": size}}
			}
			var ratio float64
			for b.Loop() {
				n := allocated(func() {
					if r := br.Execute(context.Background(), call); r.Err == nil {
						b.Fatalf("Execute(bad_form) = %q, want a refusal", r.ReturnDisplay)
					}
				})
				ratio = float64(n) / size
			}
			if asked {
				b.Fatal("the host was asked")
			}
			b.ReportMetric(ratio, "heap/input")
		})
	}
}
