package mcpbridge

import (
	"bytes"
	"context"
	"runtime"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/geminitest"
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
	b := newBridge(t, nil, mcptestExec("main"))
	discover(t, b)
	ctx := context.Background()
	var ran string
	host := HostFunction{
		Declaration: &genai.FunctionDeclaration{Name: "mine"},
		Handler: func(context.Context, map[string]any) (any, error) {
			ran = goroutineID()
			return "7", nil
		},
	}
	opts := &RunOptions{HostFunctions: []HostFunction{host}}
	turns := func() *geminitest.Server {
		return geminitest.New(t, nil, geminitest.Calls(geminitest.Call{Name: "mine"}), geminitest.Text("It is 7."))
	}

	srv := turns()
	me := goroutineID()
	evs, err := collect(t, b.RunStream(ctx, srv.Client(ctx).Models, e2eModel, prompt(), nil, opts))
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
	for ev, err := range b.RunStream(ctx, srv.Client(ctx).Models, e2eModel, prompt(), nil, opts) {
		if err != nil {
			t.Fatalf("RunStream() = %v", err)
		}
		if ev.Kind == RunCallResult {
			break
		}
	}
	if srv.Remaining() != 1 {
		t.Errorf("the fake has %d turns left after the break at the result, want 1", srv.Remaining())
	}
}
