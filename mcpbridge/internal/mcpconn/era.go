package mcpconn

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// Two protocol eras exist. From 2026-07-28 a client asks server/discover and
// puts the protocol version in the _meta of every request; before it, the
// initialize handshake fixes the version for the connection. mcp-go speaks
// both and decides per connection: it probes with server/discover and falls
// back to initialize. The probe is what needs care here. A legacy server may
// ignore the unknown method instead of refusing it, so the probe is bounded
// (Spec.DiscoverProbe); a 2026-only server that is slow to answer (a
// process still starting) then refuses the handshake, and a second,
// unbounded discover reaches it. The era a server spoke is remembered by the
// caller (Spec.Era), so a reconnect asks the right way at once.

// DefaultDiscoverProbe bounds the first server/discover of a stdio or SSE
// server whose era is not known yet. Over streamable HTTP the bound is
// knownModernProbe: such a server answers every POST, a legacy one with
// an error, so a short bound only risks taking a slow answer (a loaded
// machine, a busy server) for a legacy server's silence and speaking the
// older protocol for good. (Over SSE the answer travels on the event
// stream, where a legacy server may never send one.)
const DefaultDiscoverProbe = 300 * time.Millisecond

// Protocol chooses how the era of a server is found.
type Protocol int

const (
	// ProtocolAuto tries 2026-07-28 first (server/discover), then the
	// initialize handshake.
	ProtocolAuto Protocol = iota
	// ProtocolLegacy uses only the initialize handshake.
	ProtocolLegacy
	// ProtocolModern uses only 2026-07-28 (server/discover, _meta).
	ProtocolModern
)

// IsModern reports whether version is 2026-07-28 or later.
func IsModern(version string) bool { return mcp.IsModernProtocol(version) }

// knownModernProbe bounds server/discover to a server that answered it
// last time (Spec.Era): long enough for a slow start, short enough that a
// server replaced by one that ignores the method does not cost the whole
// timeout.
const knownModernProbe = 10 * time.Second

// eraOptions returns mcp-go client options for how s finds the era.
func eraOptions(s *Spec) []client.ClientOption {
	switch {
	case s.Protocol == ProtocolLegacy, s.Protocol == ProtocolAuto && s.Era != "" && !IsModern(s.Era):
		return []client.ClientOption{client.WithProtocolVersion(mcp.LATEST_LEGACY_PROTOCOL_VERSION)}
	case s.Protocol == ProtocolModern:
		// Bounded by the dial's deadline only: nothing else will do.
		return []client.ClientOption{client.WithDiscoverTimeout(-1)}
	}
	return []client.ClientOption{client.WithDiscoverTimeout(s.discoverProbe())}
}

// discoverProbe is the bound of the first server/discover with
// ProtocolAuto and an era that is unknown or 2026-07-28.
func (s *Spec) discoverProbe() time.Duration {
	switch {
	case s.Era != "":
		return min(knownModernProbe, s.timeout())
	case s.DiscoverProbe > 0:
		return min(s.DiscoverProbe, s.timeout())
	case s.Kind == StreamableHTTP || s.Kind == Auto:
		return min(knownModernProbe, s.timeout())
	}
	return min(DefaultDiscoverProbe, s.timeout())
}

// initialize finds the server's era and connects in it, within dctx.
func (c *Conn) initialize(dctx context.Context) (*mcp.InitializeResult, error) {
	req := mcp.InitializeRequest{Params: mcp.InitializeParams{
		ClientInfo: mcp.Implementation{Name: "mcpbridge", Version: "0.1.0"},
	}}
	s := &c.spec
	h := &handshake{modernOnly: s.Protocol == ProtocolModern}
	dctx = withHandshake(dctx, h)
	start := time.Now()
	init, err := c.client.Initialize(dctx, req)
	if err == nil {
		return c.checkEra(init)
	}
	if errors.Is(err, errModernOnly) {
		return nil, h.modernOnlyError(err)
	}
	probing := s.Protocol == ProtocolAuto && (s.Era == "" || IsModern(s.Era))
	if !probing || dctx.Err() != nil || c.procEnded() || !refusedHandshake(err) ||
		time.Since(start) < s.discoverProbe() {
		return nil, err
	}
	// The probe ran out and the handshake was refused: a server of only
	// 2026-07-28 that was slow to answer. Ask it again without the bound.
	c.log.Debug("mcp server refused initialize after a silent server/discover; asking server/discover again", "err", err)
	client.WithDiscoverTimeout(-1)(c.client)
	init, err2 := c.client.Initialize(dctx, req)
	if err2 != nil {
		return nil, fmt.Errorf("%w; server/discover again: %w", err, err2)
	}
	return c.checkEra(init)
}

// checkEra enforces ProtocolModern: mcp-go falls back to the handshake
// when discovery fails.
func (c *Conn) checkEra(init *mcp.InitializeResult) (*mcp.InitializeResult, error) {
	if c.spec.Protocol == ProtocolModern && !IsModern(init.ProtocolVersion) {
		return nil, fmt.Errorf("server/discover failed and protocol %q was negotiated instead, but only 2026-07-28 or later is allowed", init.ProtocolVersion)
	}
	return init, nil
}

// refusedHandshake reports whether err is a server's refusal of the
// initialize handshake as a server of 2026-07-28 words it: HTTP 4xx,
// unsupported protocol version, invalid request, mismatched headers, or
// "method not found" (no server of the handshake's era says that of
// initialize).
func refusedHandshake(err error) bool {
	return errors.Is(err, transport.ErrLegacySSEServer) ||
		mcp.IsUnsupportedProtocolVersion(err) ||
		mcp.IsHeaderMismatch(err) ||
		errors.Is(err, mcp.ErrInvalidRequest) ||
		errors.Is(err, mcp.ErrMethodNotFound)
}

// procEnded reports whether a stdio server's process has exited or closed
// its stdout.
func (c *Conn) procEnded() bool {
	return c.proc != nil && (isClosed(c.proc.exited) || isClosed(c.proc.outEOF))
}

// startListen starts listen, if the connection wants it. It does not wait
// for the server's acknowledgement: the lists read meanwhile are read again
// once it has come (see [Conn.recheck]).
func (c *Conn) startListen() {
	c.listenMu.Lock()
	defer c.listenMu.Unlock()
	if c.stopListen != nil || !c.live() || c.alive.Err() != nil || !c.wantsListen() {
		return
	}
	ctx, stop := context.WithCancel(c.alive)
	c.stopListen, c.listenDone = stop, make(chan struct{})
	c.wg.Add(1)
	go c.listen(ctx)
}

// listen keeps a subscriptions/listen stream open on a 2026-07-28
// connection whose server announces tools or prompts list_changed, so that
// the notifications arrive outside requests. It runs until ctx ends; a stream
// that ends early is sent again, as a new request, after a pause (2026-07-28
// has no Last-Event-ID to resume it with). The pause is listenPause after a
// stream the server had acknowledged, and doubles, up to maxListenPause,
// while the server keeps ending the request before acknowledging it.
func (c *Conn) listen(ctx context.Context) {
	defer c.wg.Done()
	defer close(c.listenDone)
	filter := c.listenFilter()
	pause := listenPause
	for {
		acks := c.acks.Load()
		err := c.client.Listen(ctx, filter)
		if ctx.Err() != nil {
			return
		}
		if c.acks.Load() != acks {
			pause = listenPause
		} else if acks == 0 {
			c.unheardOne.Do(func() { close(c.unheard) })
		}
		c.log.Debug("mcp server closed the subscriptions/listen stream", "err", err, "again in", pause)
		select {
		case <-ctx.Done():
			return
		case <-time.After(pause):
		}
		pause = min(2*pause, maxListenPause)
	}
}

// listenPause and maxListenPause bound the pause before a
// subscriptions/listen stream that ended is sent again.
const (
	listenPause    = time.Second
	maxListenPause = 30 * time.Second
)

// endListen ends the listen stream, if any, while the transport can still
// tell the server (over SSE a notifications/cancelled), waiting a moment
// for that.
func (c *Conn) endListen() {
	c.listenMu.Lock()
	defer c.listenMu.Unlock()
	if c.stopListen == nil {
		return
	}
	c.stopListen()
	c.stopListen = nil
	waitClosed(c.listenDone, time.Second)
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		c.notes.Wait()
	}()
	waitClosed(sent, time.Second)
}

// wantsListen reports whether the connection should keep a
// subscriptions/listen stream open.
func (c *Conn) wantsListen() bool {
	return IsModern(c.init.ProtocolVersion) && !c.listenFilter().IsEmpty()
}

// listenFilter asks for the list_changed notifications the server
// announces among those the connection follows (tools, prompts and, when
// someone listens, resources) and the resources subscribed to.
func (c *Conn) listenFilter() mcp.SubscriptionFilter {
	caps := c.init.Capabilities
	return mcp.SubscriptionFilter{
		ToolsListChanged:      caps.Tools != nil && caps.Tools.ListChanged,
		PromptsListChanged:    caps.Prompts != nil && caps.Prompts.ListChanged,
		ResourcesListChanged:  c.spec.OnResourcesChanged != nil && caps.Resources != nil && caps.Resources.ListChanged,
		ResourceSubscriptions: c.subscribedResources(),
	}
}
