package agent

import (
	"bytes"
	"context"
	"runtime"
	"runtime/pprof"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/confirm"
	"github.com/mcpgenai/bridge/geminitest"
	"github.com/mcpgenai/bridge/mcpbridge"
)

// goroutineID returns the id of the calling goroutine, from its stack's
// header ("goroutine N [running]:").
func goroutineID() string {
	var buf [64]byte
	line := buf[:runtime.Stack(buf[:], false)]
	line = bytes.TrimPrefix(line, []byte("goroutine "))
	return string(line[:bytes.IndexByte(line, ' ')])
}

// TestRunStreamCallWithoutProgress: a turn's single call that cannot
// report progress (a host function) runs on the goroutine ranging over
// RunStream, with the same events as any call; breaking out at its result
// stops the run (no request after it).
func TestRunStreamCallWithoutProgress(t *testing.T) {
	b := discovered(t, nil, mcptestExec("main"))
	ctx := context.Background()
	var ran string
	host := mcpbridge.HostFunction{
		Declaration: &genai.FunctionDeclaration{Name: "mine"},
		Handler: func(context.Context, map[string]any) (any, error) {
			ran = goroutineID()
			return "7", nil
		},
	}
	a := newAgent(t, b, &Options{Functions: []mcpbridge.HostFunction{host}})
	turns := func() *geminitest.Server {
		return geminitest.New(t, nil, geminitest.Calls(geminitest.Call{Name: "mine"}), geminitest.Text("It is 7."))
	}

	srv := turns()
	me := goroutineID()
	evs, err := collect(t, a.RunStream(ctx, srv.Client(ctx).Models, e2eModel, prompt(), nil))
	if err != nil {
		t.Fatalf("RunStream() = %v", err)
	}
	want := []string{"request:1", "call:mine", "result:mine", "text:It is 7.", "request:2", "done"}
	if diff := cmp.Diff(want, kinds(evs)); diff != "" {
		t.Errorf("events mismatch (-want +got):\n%s", diff)
	}
	if ran != me {
		t.Errorf("the host function ran on goroutine %s, want the caller's (%s): it cannot report progress", ran, me)
	}

	srv = turns()
	for ev, err := range a.RunStream(ctx, srv.Client(ctx).Models, e2eModel, prompt(), nil) {
		if err != nil {
			t.Fatalf("RunStream() = %v", err)
		}
		if ev.Kind == EventResult {
			break
		}
	}
	if srv.Remaining() != 1 {
		t.Errorf("the fake has %d turns left after the break at the result, want 1", srv.Remaining())
	}
}

// labelsHere returns the profiler labels of the goroutine that calls it,
// as the goroutine profile shows them ("" when it has none).
func labelsHere(t *testing.T) string {
	var buf bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&buf, 1); err != nil {
		t.Errorf("goroutine profile: %v", err)
	}
	for rec := range strings.SplitSeq(buf.String(), "\n\n") {
		if !strings.Contains(rec, "agent.labelsHere") {
			continue
		}
		for line := range strings.SplitSeq(rec, "\n") {
			if l, ok := strings.CutPrefix(line, "# labels: "); ok {
				return l
			}
		}
		return ""
	}
	t.Error("labelsHere is not in the goroutine profile")
	return ""
}

// TestRunStreamCallLabels: a call RunStream hands to another goroutine
// runs with the profiler labels of the caller's context, as a goroutine
// the caller started would; a later run without labels finds none left
// on the goroutine that ran the first one's call.
func TestRunStreamCallLabels(t *testing.T) {
	var seen []string
	confirmer := confirm.ConfirmerFunc(func(context.Context, confirm.Request) (confirm.Answer, error) {
		seen = append(seen, labelsHere(t))
		return confirm.ProceedOnce, nil
	})
	asks := mcptestExec("main")
	asks.Trust = false // the confirmer runs on the call's goroutine
	a := newAgent(t, discovered(t, &mcpbridge.Options{Policy: &confirm.Policy{Confirmer: confirmer}}, asks), nil)
	ctx := context.Background()
	run := func(ctx context.Context) {
		srv := geminitest.New(t, nil, geminitest.Calls(geminitest.Call{Name: "lookup", Args: map[string]any{"name": "ann"}}), geminitest.Text("Ann is 7."))
		if _, err := collect(t, a.RunStream(ctx, srv.Client(ctx).Models, e2eModel, prompt(), nil)); err != nil {
			t.Fatalf("RunStream() = %v", err)
		}
	}
	pprof.Do(ctx, pprof.Labels("agent", "one"), run)
	run(ctx)
	want := []string{`{"agent":"one"}`, ""}
	if diff := cmp.Diff(want, seen); diff != "" {
		t.Errorf("labels seen by the calls (-want +got):\n%s", diff)
	}
}
