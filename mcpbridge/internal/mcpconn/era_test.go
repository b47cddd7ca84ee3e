package mcpconn

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
)

// eraSpec reaches a test server of era e over kind (Stdio or
// StreamableHTTP); for HTTP it also returns the server, whose recorded
// Mcp-Method headers count the server/discover requests.
func eraSpec(t *testing.T, kind Kind, e testserver.Era, args ...string) (Spec, *testserver.HTTP) {
	t.Helper()
	if kind == Stdio {
		return stdioSpec(append([]string{"-era=" + e.String()}, args...)...), nil
	}
	h := httpServer(t, kind, testserver.Options{Era: e})
	return h.spec, h.HTTP
}

// probes counts the server/discover requests an HTTP test server received.
func probes(h *testserver.HTTP) int {
	n := 0
	for _, m := range h.Header(mcp.HeaderMethod) {
		if m == string(mcp.MethodServerDiscover) {
			n++
		}
	}
	return n
}

// addTool adds a tool named name to the server of c: over stdio with its
// add_tool tool, over HTTP (h) on the server itself, outside any request.
// mcp-go's HTTP server (v1.2.1, without an event store) drops a change
// announced during a request when that request's forwarder takes it off
// the session's channel as the request ends (server/streamable_http.go:
// "if the done chan is closed ... just return"); a session before
// 2026-07-28 is one for its listening stream and its requests alike, so
// the change could be lost there, about once in a few hundred runs under
// -race on a loaded machine. Outside any request only the listening
// stream takes it.
func addTool(t *testing.T, c *Conn, h *testserver.HTTP, name string) {
	t.Helper()
	if h == nil {
		if _, err := c.CallTool(context.Background(), "add_tool", map[string]any{"name": name}); err != nil {
			t.Fatalf("CallTool(add_tool) = %v", err)
		}
		return
	}
	h.MCP.AddTool(mcp.NewTool(name), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(name), nil
	})
}

// TestEras connects to servers of each era over stdio and streamable HTTP:
// the era is found, tools are listed and called, list_changed arrives, and
// a reconnect with the remembered era works (without a new probe where the
// server is legacy).
func TestEras(t *testing.T) {
	for _, kind := range []Kind{Stdio, StreamableHTTP} {
		for _, tc := range []struct {
			era          testserver.Era
			wantProtocol string
		}{
			{testserver.EraBoth, mcp.LATEST_PROTOCOL_VERSION},
			{testserver.EraModern, mcp.LATEST_PROTOCOL_VERSION},
			{testserver.EraLegacy, mcp.LATEST_LEGACY_PROTOCOL_VERSION},
			{testserver.EraLegacySilent, mcp.LATEST_LEGACY_PROTOCOL_VERSION},
			// An empty answer to server/discover names no protocol version:
			// the server gets the handshake.
			{testserver.EraLegacyEmpty, mcp.LATEST_LEGACY_PROTOCOL_VERSION},
		} {
			t.Run(kind.String()+"/"+tc.era.String(), func(t *testing.T) {
				s, h := eraSpec(t, kind, tc.era)
				if tc.era == testserver.EraLegacySilent {
					s.DiscoverProbe = 0 // the default bound is what is tested
				}
				changed := make(chan struct{}, 1)
				s.OnToolsChanged = func() {
					select {
					case changed <- struct{}{}:
					default:
					}
				}
				start := time.Now()
				c := dialT(t, s)
				// Loose (a loaded machine is slow), yet under the 5 s
				// wait it guards against.
				if d := time.Since(start); d > 4*time.Second {
					t.Errorf("Dial took %v, want well under 4s", d)
				}
				if got := c.ProtocolVersion(); got != tc.wantProtocol {
					t.Fatalf("ProtocolVersion() = %q, want %q", got, tc.wantProtocol)
				}
				ctx := context.Background()
				tools, err := c.ListTools(ctx)
				if err != nil {
					t.Fatalf("ListTools() = %v", err)
				}
				if !slices.Contains(toolNames(tools), "add_tool") {
					t.Fatalf("ListTools() = %v, want add_tool among them", toolNames(tools))
				}
				raw, err := c.CallTool(ctx, "echo", map[string]any{"text": "era"})
				if err != nil || !strings.Contains(string(raw), `era`) {
					t.Fatalf("CallTool(echo) = %s, %v, want the arguments back", raw, err)
				}
				// On 2026-07-28 the notification flows from the server's
				// acknowledgement of the subscription on: a tool added
				// before it would reach nobody.
				if !c.Subscribed(ctx) {
					t.Fatal("Subscribed() = false, want the subscription to list_changed acknowledged")
				}
				addTool(t, c, h, "late")
				select {
				case <-changed:
				case <-time.After(fast):
					t.Fatalf("no list_changed within %v of add_tool", fast)
				}
				if kind == Stdio && tc.era == testserver.EraLegacySilent && !strings.Contains(c.Stderr(), "ignored server/discover") {
					t.Errorf("stderr = %q, want the ignored probe logged", c.Stderr())
				}
				before := 0
				if h != nil {
					before = probes(h)
				}
				start = time.Now()
				_ = c.Close()
				t.Logf("close took %v", time.Since(start))

				// A reconnect that knows the era.
				s.Era = tc.wantProtocol
				start = time.Now()
				c2 := dialT(t, s)
				if d := time.Since(start); d > 4*time.Second {
					t.Errorf("reconnect took %v, want well under 4s", d)
				}
				t.Logf("reconnect took %v", time.Since(start))
				if got := c2.ProtocolVersion(); got != tc.wantProtocol {
					t.Errorf("reconnect: ProtocolVersion() = %q, want %q", got, tc.wantProtocol)
				}
				if _, err := c2.CallTool(ctx, "echo", nil); err != nil {
					t.Errorf("reconnect: CallTool(echo) = %v", err)
				}
				legacy := !IsModern(tc.wantProtocol)
				if legacy && kind == Stdio && strings.Contains(c2.Stderr(), "ignored") {
					t.Errorf("reconnect of a legacy server sent server/discover again; stderr %q", c2.Stderr())
				}
				if h != nil {
					if n := probes(h) - before; legacy && n != 0 || !legacy && n != 1 {
						t.Errorf("reconnect sent %d server/discover requests, want %d", n, map[bool]int{true: 0, false: 1}[legacy])
					}
				}
			})
		}
	}
}

// TestEraSlowModernServer: a 2026-only stdio server that starts after the
// probe's bound refuses the handshake (with -32022, or as a method it does
// not know), and a second server/discover reaches it.
func TestEraSlowModernServer(t *testing.T) {
	for _, era := range []string{"modern", "modern-nomethod"} {
		t.Run(era, func(t *testing.T) {
			s := stdioSpec("-era="+era, "-delay=700ms")
			c := dialT(t, s)
			if got := c.ProtocolVersion(); got != mcp.LATEST_PROTOCOL_VERSION {
				t.Fatalf("ProtocolVersion() = %q, want %q", got, mcp.LATEST_PROTOCOL_VERSION)
			}
			if _, err := c.CallTool(context.Background(), "echo", nil); err != nil {
				t.Errorf("CallTool(echo) = %v", err)
			}
		})
	}
}

// TestEraSlowModernHTTPServer: over streamable HTTP, a 2026-only server
// slower than the probe's bound, which answers initialize as a method it
// does not know, gets a second server/discover and connects.
func TestEraSlowModernHTTPServer(t *testing.T) {
	h := httpServer(t, StreamableHTTP, testserver.Options{Era: testserver.EraModernNoMethod, DiscoverDelay: 2 * DefaultDiscoverProbe})
	c := dialT(t, h.spec)
	if got := c.ProtocolVersion(); got != mcp.LATEST_PROTOCOL_VERSION {
		t.Fatalf("ProtocolVersion() = %q, want %q", got, mcp.LATEST_PROTOCOL_VERSION)
	}
}

// TestEraLateAnswer: a stdio server of both eras that starts after the
// probe's bound is spoken to with the handshake, but its late answer to
// server/discover makes NextEra, or OnNextEra when the answer comes after
// the handshake's, say 2026-07-28, and a connection asking so speaks it. A
// legacy server's late refusal, a dual server in time, and a forced era
// leave the era as negotiated.
func TestEraLateAnswer(t *testing.T) {
	legacy, modern := mcp.LATEST_LEGACY_PROTOCOL_VERSION, mcp.LATEST_PROTOCOL_VERSION
	for _, tc := range []struct {
		name     string
		args     []string
		now      string // ProtocolVersion
		next     string // NextEra, at once or through OnNextEra
		protocol Protocol
	}{
		{"both eras, slow start", []string{"-era=both", "-delay=1500ms"}, legacy, modern, ProtocolAuto},
		// The probe's answer comes 1 s late, after the handshake's: only
		// OnNextEra can tell.
		{"both eras, discover answered after the handshake", []string{"-era=both", "-hold-discover=1s"}, legacy, modern, ProtocolAuto},
		{"legacy, slow start", []string{"-era=legacy", "-delay=1500ms"}, legacy, legacy, ProtocolAuto},
		{"both eras, in time", []string{"-era=both"}, modern, modern, ProtocolAuto},
		// Forced: nothing is watched, nothing learnt.
		{"both eras, slow start, legacy setting", []string{"-era=both", "-delay=1500ms"}, legacy, legacy, ProtocolLegacy},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := stdioSpec(tc.args...)
			s.Protocol = tc.protocol
			s.DiscoverProbe = DefaultDiscoverProbe // the server starts 1.5 s late
			if tc.now == modern {
				s.DiscoverProbe = 5 * time.Second // in time even on a loaded machine
			}
			told := make(chan string, 2)
			s.OnNextEra = func(v string) { told <- v }
			c := dialT(t, s)
			if got := c.ProtocolVersion(); got != tc.now {
				t.Fatalf("ProtocolVersion() = %q, want %q", got, tc.now)
			}
			next := c.NextEra()
			if strings.Contains(tc.name, "after the handshake") && next != legacy {
				t.Fatalf("NextEra() at once = %q, want %q: the answer is held 1 s", next, legacy)
			}
			if next != tc.next {
				// The server may answer the handshake first.
				wait := time.Second
				if tc.next == modern {
					wait = 10 * time.Second
				}
				select {
				case next = <-told:
				case <-time.After(wait):
				}
			}
			if next != tc.next {
				t.Fatalf("NextEra() and OnNextEra say %q, want %q", next, tc.next)
			}
			if got := c.NextEra(); got != tc.next {
				t.Errorf("NextEra() after the late answer = %q, want %q", got, tc.next)
			}
			if tc.next != modern || tc.now == modern {
				return
			}
			_ = c.Close()
			s.Era, s.OnNextEra = next, nil
			c2 := dialT(t, s)
			if got := c2.ProtocolVersion(); got != modern {
				t.Errorf("connection with Era %q: ProtocolVersion() = %q, want %q", s.Era, got, modern)
			}
			if _, err := c2.CallTool(context.Background(), "echo", nil); err != nil {
				t.Errorf("CallTool(echo) = %v", err)
			}
		})
	}
}

// TestEraOverride: Spec.Protocol forces one era; a server that does not
// speak it fails with a clear error.
func TestEraOverride(t *testing.T) {
	for _, tc := range []struct {
		name     string
		era      testserver.Era
		protocol Protocol
		want     string // protocol version, or an error substring
		wantErr  bool
	}{
		{"legacy on a dual server", testserver.EraBoth, ProtocolLegacy, mcp.LATEST_LEGACY_PROTOCOL_VERSION, false},
		{"modern on a dual server", testserver.EraBoth, ProtocolModern, mcp.LATEST_PROTOCOL_VERSION, false},
		{"legacy on a modern server", testserver.EraModern, ProtocolLegacy, "unsupported protocol version", true},
		{"modern on a legacy server", testserver.EraLegacy, ProtocolModern, "only 2026-07-28 or later", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := eraSpec(t, Stdio, tc.era)
			s.Protocol = tc.protocol
			c, err := Dial(context.Background(), s)
			if tc.wantErr {
				if err == nil {
					_ = c.Close()
					t.Fatalf("Dial() = nil error, want one containing %q", tc.want)
				}
				if !strings.Contains(err.Error(), tc.want) {
					t.Errorf("Dial() = %v, want it to contain %q", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatalf("Dial() = %v", err)
			}
			defer c.Close()
			if got := c.ProtocolVersion(); got != tc.want {
				t.Errorf("ProtocolVersion() = %q, want %q", got, tc.want)
			}
		})
	}
}
