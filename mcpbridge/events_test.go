package mcpbridge

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
)

func TestSubscribeCancel(t *testing.T) {
	b := newBridge(t, nil)
	events, cancel := b.Subscribe()
	b.mu.Lock()
	b.emitLocked(Event{Kind: EventDiscoveryStarted})
	b.mu.Unlock()
	if e := <-events; e.Kind != EventDiscoveryStarted {
		t.Errorf("first event = %+v, want %v", e, EventDiscoveryStarted)
	}
	cancel()
	cancel() // twice is fine
	if _, ok := <-events; ok {
		t.Error("receive after cancel succeeded, want a closed channel")
	}
	b.mu.Lock()
	b.emitLocked(Event{Kind: EventDiscoveryCompleted}) // no subscriber left: nothing blocks
	n := len(b.subs)
	b.mu.Unlock()
	if n != 0 {
		t.Errorf("subscribers after cancel = %d, want 0", n)
	}
	_ = b.Close()
	closed, cancel2 := b.Subscribe()
	defer cancel2()
	if _, ok := <-closed; ok {
		t.Error("Subscribe() after Close gave an open channel")
	}
}

func TestDiscoveryEventSequence(t *testing.T) {
	b := newBridge(t, nil, serverFor(t, "one", TransportHTTP, testserver.Options{}), stdioServer("two", "-exit-now=1"))
	events, cancel := b.Subscribe()
	defer cancel()
	discover(t, b)
	var got []Event
	for e := range events {
		got = append(got, e)
		if e.Kind == EventDiscoveryCompleted {
			break
		}
	}
	// The servers are dialled at once, each saying CONNECTING as its dial
	// starts: two's may come anywhere before its outcome (even after one
	// is connected). The outcomes follow configuration order.
	connecting := Event{Kind: EventServerState, Server: "two", State: Connecting}
	i := slices.IndexFunc(got, func(e Event) bool { return e.Server == "two" && e.State == Connecting })
	j := slices.IndexFunc(got, func(e Event) bool { return e.Server == "two" && e.State == Disconnected })
	if i < 0 || j < i {
		t.Fatalf("events %+v: want two CONNECTING before two DISCONNECTED", got)
	}
	got = slices.Delete(got, i, i+1)
	want := []Event{
		{Kind: EventDiscoveryStarted},
		{Kind: EventServerState, Server: "one", State: Connecting},
		{Kind: EventToolsChanged, Server: "one"},
		{Kind: EventServerState, Server: "one", State: Connected},
		{Kind: EventServerState, Server: "two", State: Disconnected},
		{Kind: EventDiscoveryCompleted},
	}
	if len(got) == len(want) && got[4].Err == nil {
		t.Errorf("DISCONNECTED event of two has no error")
	}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(Event{}, "Err", "Update")); diff != "" {
		t.Errorf("events besides %v (-want +got):\n%s", connecting, diff)
	}
	if got[2].Kind == EventToolsChanged && len(got[2].Update.Added) != 6 {
		t.Errorf("tools-changed event added %d tools, want 6", len(got[2].Update.Added))
	}
}
