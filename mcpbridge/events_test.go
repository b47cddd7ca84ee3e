package mcpbridge

import (
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
	// Connecting events of the two servers may come in either order; the
	// rest follows configuration order.
	want := []Event{
		{Kind: EventDiscoveryStarted},
		{Kind: EventServerState, Server: "one", State: Connecting},
		{Kind: EventServerState, Server: "two", State: Connecting},
		{Kind: EventToolsChanged, Server: "one"},
		{Kind: EventServerState, Server: "one", State: Connected},
		{Kind: EventServerState, Server: "two", State: Disconnected},
		{Kind: EventDiscoveryCompleted},
	}
	if len(got) == len(want) && got[1].Server == "two" {
		got[1], got[2] = got[2], got[1]
	}
	if len(got) == len(want) && got[5].Err == nil {
		t.Errorf("DISCONNECTED event of two has no error")
	}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(Event{}, "Err", "Update")); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if got[3].Kind == EventToolsChanged && len(got[3].Update.Added) != 6 {
		t.Errorf("tools-changed event added %d tools, want 6", len(got[3].Update.Added))
	}
}
