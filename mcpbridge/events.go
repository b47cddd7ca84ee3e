package mcpbridge

import (
	"strconv"

	"github.com/mcpgenai/bridge/mcpbridge/internal/lossy"
	"github.com/mcpgenai/bridge/registry"
)

// EventKind says what an [Event] reports.
type EventKind int

const (
	// EventServerState: a server's connection state changed (Server, State,
	// and Err when it became Disconnected because of an error).
	EventServerState EventKind = iota + 1
	// EventDiscoveryStarted: a [Bridge.Discover] began.
	EventDiscoveryStarted
	// EventDiscoveryCompleted: a Discover ended, every server tried with
	// or without errors.
	EventDiscoveryCompleted
	// EventToolsChanged: registered tools changed (Server is the server
	// whose tool list changed; Update lists every added, removed and
	// renamed tool of any server).
	EventToolsChanged
	// EventToolDropped: a tool was left out while the server's other tools
	// stay usable (Server, ServerTool, and Err saying why; see
	// [DroppedTool]): a listing skipped it (its JSON nests too deeply,
	// say), sent once per tool and reason when a listing first skips it;
	// or the Gemini API refused its declaration, and Err wraps the API's
	// [genai.APIError].
	EventToolDropped
	// EventResourceUpdated: a server reported a change of a resource
	// subscribed to with [Bridge.SubscribeResource] (Server, URI).
	EventResourceUpdated
	// EventResourcesChanged: a server's list of resources changed
	// (Server); list them again with [Bridge.ListResources].
	EventResourcesChanged
	// EventLost: the subscriber read too slowly and Lost events were
	// dropped in its place, the oldest it had not received (see
	// [Bridge.Subscribe]).
	EventLost
)

// String returns "server-state", "discovery-started",
// "discovery-completed", "tools-changed", "tool-dropped",
// "resource-updated", "resources-changed" or "lost".
func (k EventKind) String() string {
	switch k {
	case EventServerState:
		return "server-state"
	case EventDiscoveryStarted:
		return "discovery-started"
	case EventDiscoveryCompleted:
		return "discovery-completed"
	case EventToolsChanged:
		return "tools-changed"
	case EventToolDropped:
		return "tool-dropped"
	case EventResourceUpdated:
		return "resource-updated"
	case EventResourcesChanged:
		return "resources-changed"
	case EventLost:
		return "lost"
	}
	return "EventKind(" + strconv.Itoa(int(k)) + ")"
}

// Event is one change of a [Bridge]'s state.
type Event struct {
	Kind       EventKind       // what happened; the other fields say for which kinds they are set
	Server     string          // the server concerned; "" for discovery events
	User       string          // the user concerned (see [WithUser]); "" for what every user shares
	State      ServerState     // EventServerState: the new state
	Err        error           // EventServerState to Disconnected: why, if it failed (redacted, see [Bridge.Status])
	Update     registry.Update // EventToolsChanged: what changed
	ServerTool string          // EventToolDropped: the server's name of the tool
	URI        string          // EventResourceUpdated: the resource (redacted)
	Lost       int             // EventLost: how many events were dropped
}

// subscribeQueue is how many events wait for one slow subscriber before
// the oldest are dropped (see Bridge.Subscribe).
const subscribeQueue = 1024

// Subscribe returns a channel that receives every later [Event], in the
// order the changes happened, and a function that unsubscribes.
//
// Emitting never waits for the reader: each subscriber has its own queue,
// so a slow reader delays only itself. At most 1,024 events wait for it; past that the oldest are dropped, and the reader receives
// in their place one [EventLost] saying how many, so its memory stays
// bounded and it knows to read the state again ([Bridge.Status]). The
// channel is closed after cancel is called or the Bridge is closed;
// events not yet received by then are discarded. cancel may be called
// more than once and from any goroutine. Subscribing to a closed Bridge
// returns a closed channel.
func (b *Bridge) Subscribe() (<-chan Event, func()) {
	s := lossy.New(subscribeQueue, func(n int) Event { return Event{Kind: EventLost, Lost: n} })
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		s.Stop()
		return s.Out(), func() {}
	}
	b.subs[s] = struct{}{}
	b.mu.Unlock()
	return s.Out(), func() {
		b.mu.Lock()
		delete(b.subs, s)
		b.mu.Unlock()
		s.Stop()
	}
}

// emitLocked queues e for every subscriber. The caller holds b.mu, which
// orders events as the state changes they report.
func (b *Bridge) emitLocked(e Event) {
	e.Err = b.redact.redactErr(e.Err)
	for s := range b.subs {
		s.Push(e)
	}
}
