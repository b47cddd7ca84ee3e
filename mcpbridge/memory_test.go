package mcpbridge

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
)

// watchingServers are the test server with resource subscriptions and
// the hostile tools, over stdio and streamable HTTP in both eras.
func watchingServers(t *testing.T) []ServerConfig {
	return eachWay(t, testserver.Options{Features: true, Hostile: true}, "-features", "-hostile")
}

// TestUnsubscribedUpdatesDropped: notifications/resources/updated for a
// resource nobody subscribed to never become events; those of a
// subscribed resource do.
func TestUnsubscribedUpdatesDropped(t *testing.T) {
	for _, srv := range watchingServers(t) {
		t.Run(srv.Name, func(t *testing.T) {
			b := newBridge(t, nil, srv)
			events, stop := b.Subscribe()
			defer stop()
			discover(t, b)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			unsubscribe, err := b.SubscribeResource(ctx, srv.Name, "test://watched")
			if err != nil {
				t.Fatalf("SubscribeResource() = %v", err)
			}
			defer func() { _ = unsubscribe() }()
			execText(t, b, srv.Name, "notify_updated", map[string]any{"uri": "test://nobody", "n": 50})
			execText(t, b, srv.Name, "notify_updated", map[string]any{"uri": "test://watched", "n": 1})
			for {
				select {
				case e := <-events:
					if e.Kind != EventResourceUpdated {
						continue
					}
					if e.URI != "test://watched" {
						t.Fatalf("event for %q, which nobody subscribed to", e.URI)
					}
					return
				case <-ctx.Done():
					t.Fatal("no event for the subscribed resource")
				}
			}
		})
	}
}

// TestSlowSubscriber: a subscriber that does not read holds at most
// subscribeQueue events; then it learns how many it lost, and gets the
// newest, so that every event is received or counted.
func TestSlowSubscriber(t *testing.T) {
	const n = subscribeQueue + 500
	for _, srv := range watchingServers(t) {
		t.Run(srv.Name, func(t *testing.T) {
			b := newBridge(t, nil, srv)
			discover(t, b)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			unsubscribe, err := b.SubscribeResource(ctx, srv.Name, "test://watched")
			if err != nil {
				t.Fatalf("SubscribeResource() = %v", err)
			}
			defer func() { _ = unsubscribe() }()
			events, stop := b.Subscribe()
			defer stop()
			// A second subscriber reads all the while: once it has
			// accounted for every event, all were pushed, and the first,
			// which read nothing yet, holds what its queue could.
			all := make(chan struct{})
			watch, stopWatch := b.Subscribe()
			defer stopWatch()
			go func() {
				seen := 0
				for e := range watch {
					switch e.Kind {
					case EventLost:
						seen += e.Lost
					case EventResourceUpdated:
						seen++
					}
					if seen == n {
						close(all)
					}
				}
			}()
			execText(t, b, srv.Name, "notify_updated", map[string]any{"uri": "test://watched", "n": n})
			select {
			case <-all:
			case <-ctx.Done():
				t.Fatal("the events of notify_updated never all arrived")
			}
			received, lost := 0, 0
			for received+lost < n {
				select {
				case e := <-events:
					switch e.Kind {
					case EventLost:
						lost += e.Lost
					case EventResourceUpdated:
						received++
					}
				case <-ctx.Done():
					t.Fatalf("%d events received and %d counted lost of %d, then none", received, lost, n)
				}
			}
			if lost == 0 || received > subscribeQueue+1 {
				t.Errorf("received %d, lost %d of %d events; want at most %d received and the rest counted", received, lost, n, subscribeQueue+1)
			}
			stillWorks := execText(t, b, srv.Name, "shout", map[string]any{"text": "ok"})
			if stillWorks != "ok" {
				t.Errorf("shout = %q, want the connection usable", stillWorks)
			}
		})
	}
}

// TestHugeArgumentsRefused: a function call whose arguments pass 8 MiB is
// refused as invalid before anything is restored, copied or sent; the
// server's next call works.
func TestHugeArgumentsRefused(t *testing.T) {
	for _, srv := range watchingServers(t) {
		t.Run(srv.Name, func(t *testing.T) {
			b := newBridge(t, nil, srv)
			discover(t, b)
			r := runTool(t, b, srv.Name, "shout", map[string]any{"text": strings.Repeat("x", 9<<20)})
			if !errors.Is(r.Err, ErrInvalidArguments) || !strings.Contains(r.Err.Error(), "more than 8388608 bytes") {
				t.Errorf("shout(9 MiB) = %v, want ErrInvalidArguments naming the bound", r.Err)
			}
			if got := execText(t, b, srv.Name, "shout", map[string]any{"text": "ok"}); got != "ok" {
				t.Errorf("shout = %q, want the connection usable", got)
			}
		})
	}
}
