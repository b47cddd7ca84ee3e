// Package mcpconn is a connection to one MCP server over stdio, SSE or
// streamable HTTP (or a URL whose transport it detects), in the server's
// protocol era (2026-07-28 or the initialize handshake), built on mcp-go's
// client and transports. It keeps the raw
// JSON of tools/list and tools/call results (mcp-go's structs lose schema
// keywords and unknown content blocks), always drains a stdio server's
// stderr, reports list_changed notifications and the connection's death, and
// always cleans up on Close.
//
// Every MCP request of the module goes through it; mcpbridge holds one
// [Conn] per connected server:
//
//	conn, err := mcpconn.Dial(ctx, mcpconn.Spec{
//		Name:    "files",
//		Kind:    mcpconn.Stdio,
//		Command: "mcp-files",
//		Timeout: 30 * time.Second,
//	})
//	if err != nil {
//		return err // names the server; a stdio server's stderr is in StderrOf(err)
//	}
//	defer conn.Close()
//	tools, err := conn.ListTools(ctx) // every page; each InputSchema byte for byte
//	if err != nil {
//		return err
//	}
//	raw, err := conn.CallTool(ctx, tools[0].Name, map[string]any{"path": "notes.txt"})
//	// raw is the CallToolResult's JSON, content blocks untouched.
package mcpconn

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mcpgenai/bridge/mcpbridge/internal/lifespan"
)

// list_changed notifications are coalesced: OnToolsChanged runs once
// listChangedWindow after the first of a burst, and at most once per
// listChangedInterval, so a flood costs at most two re-lists a second.
const (
	listChangedWindow   = 50 * time.Millisecond
	listChangedInterval = 500 * time.Millisecond
)

// ErrClosed is returned by requests on a connection after Close.
var ErrClosed = errors.New("connection closed")

// Conn is a live connection to one MCP server. Its methods may be called
// concurrently.
type Conn struct {
	spec     Spec
	kind     Kind // the transport in use (SSE may have fallen back to HTTP)
	log      *slog.Logger
	client   *client.Client
	proc     *proc           // stdio only
	late     *lateAnswer     // stdio with the era unknown only
	web      *watchTransport // SSE and streamable HTTP only
	getOpen  *getOpen        // streamable HTTP only: the first GET of the stream answered
	stderr   *tail
	init     *mcp.InitializeResult
	life     context.Context // ends at Close
	stopLife context.CancelFunc
	alive    context.Context // ends at Close or death
	dieNow   context.CancelFunc
	calls    *lifespan.Set // requests in flight, ended with alive
	in       *incoming     // the server's sampling requests
	clock    clock         // the silence limit of the calls in flight

	stopListen context.CancelFunc // ends listen; nil when not listening
	listenDone chan struct{}      // closed when listen returned
	acked      chan struct{}      // closed when the server acknowledged listen
	ackOnce    sync.Once
	unheard    chan struct{} // closed when a listen ended before any acknowledgement
	unheardOne sync.Once
	acks       atomic.Uint64  // acknowledgements of listen so far
	notes      sync.WaitGroup // notifications/cancelled being sent

	kick    chan struct{} // tools list_changed, coalesced
	prompts chan struct{} // prompts list_changed, coalesced
	dead    chan struct{} // closed by die
	mu      sync.Mutex
	err     error
	closing bool
	skipped []SkippedTool // of the last ListTools that succeeded
	// toolsHint is the caching hint of the last ListTools that succeeded.
	toolsHint cacheHint
	earlies   [2]earlyList // the tools and prompts lists read before the acknowledgement

	elicitations completions // URL elicitations awaiting their completion
	asking       callSet     // tool calls that may bring questions
	listenMu     sync.Mutex  // startListen and endListen, one at a time

	closeOnce sync.Once
	wg        sync.WaitGroup
}

// Dial connects to the server in its protocol era (server/discover or the
// initialize handshake), within ctx and the spec's Timeout. On failure
// everything it started is stopped, and the error names the server; a
// stdio server's stderr tail rides beside it (see [StderrError]).
func Dial(ctx context.Context, s Spec) (*Conn, error) {
	if err := s.validate(); err != nil {
		return nil, err
	}
	if s.Kind == Auto {
		return dialAuto(ctx, s)
	}
	return dial(ctx, s, s.Kind)
}

// startError is a failure to start the transport: for SSE, the handshake
// (GET, then the endpoint event) was refused or never completed.
type startError struct{ err error }

func (e startError) Error() string { return "start: " + e.err.Error() }
func (e startError) Unwrap() error { return e.err }

func dial(ctx context.Context, s Spec, kind Kind) (*Conn, error) {
	limit := s.StderrLimit
	if limit <= 0 {
		limit = DefaultStderrLimit
	}
	c := &Conn{
		spec:    s,
		kind:    kind,
		log:     s.logger(),
		stderr:  newTail(limit),
		kick:    make(chan struct{}, 1),
		prompts: make(chan struct{}, 1),
		dead:    make(chan struct{}),
		acked:   make(chan struct{}),
		unheard: make(chan struct{}),
	}
	c.in = &incoming{c: c}
	// The connection's lifetime context outlives Dial's ctx (cancelling the
	// context given to Start ends the connection), but while dialing, the
	// end of ctx ends the attempt.
	c.life, c.stopLife = context.WithCancel(context.WithoutCancel(ctx))
	alive, endAlive := context.WithCancel(c.life)
	c.alive, c.calls = alive, lifespan.New(alive)
	// Requests in flight end before dieNow returns, not a goroutine later:
	// a request that fails because the connection died finds its caller's
	// context already ended.
	c.dieNow = func() { endAlive(); c.calls.End() }
	dctx, cancel := context.WithTimeout(ctx, s.timeout())
	defer cancel()
	stopWatch := context.AfterFunc(dctx, c.stopLife)

	err := c.connect(dctx)
	if err == nil && !stopWatch() {
		err = dctx.Err()
	}
	if err == nil && c.web != nil {
		c.web.connected.Store(true)
	}
	if err != nil {
		stopWatch()
		exit := c.exitBeforeStop()
		c.shutdown()
		return nil, c.dialError(ctx, dctx, err, exit)
	}
	// A late answer seen by now is NextEra's to tell (the caller asks it
	// after Dial returns); one seen later, OnNextEra's.
	learnt := c.learnt()
	if isClosed(learnt) {
		learnt = nil
	}
	c.wg.Add(1)
	go c.events(learnt)
	return c, nil
}

// connect builds the transport and client, starts them and initializes.
func (c *Conn) connect(dctx context.Context) error {
	s := &c.spec
	var tr transport.Interface
	switch c.kind {
	case Stdio:
		p, err := startProc(s, c.stderr)
		if err != nil {
			return err
		}
		c.proc = p
		g := guardLines(p.stdoutReader(), s, c.die)
		if s.Protocol == ProtocolAuto && s.Era == "" {
			c.late = newLateAnswer()
			defer c.late.connected()
			g.late = c.late
		}
		tr = stdioTap{c.newStdio(g), c.in}
	case SSE:
		c.web = newWatchTransport(c.lost, s)
		wait := s.EndpointWait
		if wait <= 0 {
			wait = DefaultEndpointWait
		}
		t, err := transport.NewSSE(s.URL,
			transport.WithHeaders(s.Headers),
			transport.WithHTTPClient(&http.Client{Transport: c.roundTripper()}),
			transport.WithSSELogger(c.libLogger()),
			transport.WithEndpointTimeout(min(wait, s.timeout())),
			transport.WithResponseTimeout(s.timeout()))
		if err != nil {
			return err
		}
		tr = sseTap{t, c.cancelled}
	case StreamableHTTP:
		c.web = newWatchTransport(c.lost, s)
		c.getOpen = newGetOpen()
		t, err := transport.NewStreamableHTTP(s.URL, append([]transport.StreamableHTTPCOption{
			transport.WithHTTPHeaders(s.Headers),
			transport.WithHTTPBasicClient(&http.Client{Transport: &resumeTransport{base: &sessionIDTransport{base: c.roundTripper()}, open: c.getOpen}}),
			transport.WithHTTPLogger(c.libLogger())},
			s.sessionOptions()...)...)
		if err != nil {
			return err
		}
		tr = httpTap{t, c.cancelled, c.in, c.log}
		if s.join != "" {
			t.SetProtocolVersion(s.Era)
		}
	}
	opts := append(s.clientOptions(), eraOptions(s)...)
	opts = append(opts, s.featureOptions(c)...)
	if s.join != "" {
		opts = append(opts, client.WithSession())
	}
	c.client = client.NewClient(tr, opts...)
	c.client.OnNotification(c.onNotification)
	c.client.OnConnectionLost(c.lost)
	if err := c.client.Start(c.life); err != nil {
		return startError{err}
	}
	if c.proc != nil {
		c.wg.Add(1)
		go c.watchProc()
	}
	if s.join != "" {
		c.init = &mcp.InitializeResult{ProtocolVersion: s.Era} // the session's, already initialized
		return nil
	}
	init, err := c.initialize(dctx)
	if err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	c.init = init
	if c.getOpen != nil && !IsModern(init.ProtocolVersion) && !c.getOpen.wait(dctx, c.alive) {
		c.log.Debug("mcp server did not answer the GET of its event stream in time; connected without waiting longer", "waited", listenOpenWait)
	}
	c.setUp(dctx)
	c.startListen()
	return nil
}

// dialError explains a failed dial: the process's exit and stderr tail for
// stdio, the deadline when it passed.
func (c *Conn) dialError(ctx, dctx context.Context, err, exit error) error {
	msg := fmt.Sprintf("mcp server %q (%s): connect", c.spec.Name, c.kind)
	if dctx.Err() != nil && !errors.Is(err, dctx.Err()) {
		err = fmt.Errorf("%w (%w)", err, dctx.Err())
	}
	if ctx.Err() == nil && errors.Is(dctx.Err(), context.DeadlineExceeded) {
		err = fmt.Errorf("%w (timeout %v)", err, c.spec.timeout())
	}
	if exit != nil {
		err = fmt.Errorf("%w; %w", err, exit)
	}
	if derr := c.Err(); errors.Is(derr, ErrMessageTooLarge) && !errors.Is(err, ErrMessageTooLarge) {
		err = fmt.Errorf("%w (%w)", err, derr)
	}
	if c.proc != nil {
		if t := strings.TrimSpace(c.stderr.String()); t != "" {
			err = &StderrError{Err: err, Stderr: Tail(t, 10, 2000)}
		}
	}
	return fmt.Errorf("%s: %w", msg, err)
}

// exitBeforeStop tells how a stdio server ended by itself, before shutdown
// stops it: nil when it is still running.
func (c *Conn) exitBeforeStop() error {
	if c.proc == nil {
		return nil
	}
	select {
	case <-c.proc.outEOF:
	case <-c.proc.exited:
	default:
		return nil
	}
	// Its stdout ended or it was reaped (either can come first): give it
	// a moment to be reaped and, either way, its stderr read to the end.
	deadline := time.Now().Add(500 * time.Millisecond)
	waitClosed(c.proc.exited, time.Until(deadline))
	waitClosed(c.proc.errDone, time.Until(deadline))
	select {
	case <-c.proc.exited:
		return c.proc.exitErr()
	default:
		return errors.New("server closed its stdout")
	}
}

// lost records that the network connection to an HTTP server is gone.
func (c *Conn) lost(err error) {
	if err == nil {
		err = errors.New("stream ended")
	}
	c.die(fmt.Errorf("connection lost: %w", err))
}

// watchProc turns the exit of a stdio server into the connection's death.
func (c *Conn) watchProc() {
	defer c.wg.Done()
	select {
	case <-c.proc.exited:
	case <-c.life.Done():
		return
	}
	if !c.live() {
		return // Close stopped it: not a death
	}
	// Let the transport and the stderr tail read what the process wrote
	// before it exited (a grandchild may hold the pipes: do not wait long).
	deadline := time.Now().Add(500 * time.Millisecond)
	waitClosed(c.proc.outEOF, time.Until(deadline))
	waitClosed(c.proc.errDone, time.Until(deadline))
	c.die(c.proc.exitErr())
}

func (c *Conn) onNotification(n mcp.JSONRPCNotification) {
	if c.onFeatureNotification(n) {
		return
	}
	if n.Method == string(mcp.MethodNotificationProgress) {
		c.onProgress(n)
		return
	}
	if n.Method == string(mcp.MethodNotificationCancelled) {
		c.in.cancel(n)
		return
	}
	if n.Method == mcp.MethodNotificationSubscriptionsAcknowledged {
		c.acks.Add(1)
		c.ackOnce.Do(func() { close(c.acked) })
		return
	}
	var kick chan struct{}
	switch n.Method {
	case mcp.MethodNotificationToolsListChanged:
		kick = c.kick
	case mcp.MethodNotificationPromptsListChanged:
		kick = c.prompts
	default:
		return
	}
	select {
	case kick <- struct{}{}:
	default:
	}
}

// events runs the callbacks, one at a time, until Close. list_changed
// notifications are coalesced (see listChangedWindow). learnt is the late
// server/discover answer still to report to OnNextEra, if any.
func (c *Conn) events(learnt <-chan struct{}) {
	defer c.wg.Done()
	dead := c.dead
	var due <-chan time.Time // a list_changed is waiting for its turn
	var last time.Time       // when OnToolsChanged last started
	for {
		select {
		case <-c.life.Done():
			return
		case <-c.kick:
			if due == nil {
				due = time.After(max(listChangedWindow, time.Until(last.Add(listChangedInterval))))
			}
		case <-due:
			due = nil
			last = time.Now()
			if c.spec.OnToolsChanged != nil && c.live() {
				c.spec.OnToolsChanged()
			}
		case <-c.prompts:
			if c.spec.OnPromptsChanged != nil && c.live() {
				c.spec.OnPromptsChanged()
			}
		case <-learnt:
			learnt = nil
			if c.spec.OnNextEra != nil && c.live() {
				c.spec.OnNextEra(c.NextEra())
			}
		case <-dead:
			dead = nil
			if c.spec.OnClose != nil && c.live() {
				c.spec.OnClose(c.Err())
			}
		}
	}
}

// live reports whether Close has not begun; callbacks start only then.
func (c *Conn) live() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return !c.closing
}

// die records why the connection ended (the first reason wins) and lets
// in-flight requests fail at once.
func (c *Conn) die(err error) {
	c.mu.Lock()
	if c.err != nil || c.closing {
		c.mu.Unlock()
		return
	}
	c.err = err
	close(c.dead)
	if c.client != nil {
		c.wg.Add(1) // under mu: Close waits only after setting closing
	}
	c.mu.Unlock()
	c.dieNow()
	c.log.Warn("mcp server connection died", "err", err)
	if c.client != nil {
		// Closing the transport wakes requests still waiting and stops the
		// HTTP listener's retries. Not inline: die may run on a transport
		// goroutine that Close would wait for.
		go func() {
			defer c.wg.Done()
			_ = c.client.GetTransport().Close()
		}()
	}
}

// Err returns why the connection died, ErrClosed after Close, nil while it
// is alive.
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil && c.closing {
		return ErrClosed
	}
	return c.err
}

// Kind returns the transport in use: for Auto, the one detected.
func (c *Conn) Kind() Kind { return c.kind }

// ServerInfo returns the name and version the server gave in initialize.
func (c *Conn) ServerInfo() (name, version string) {
	return c.init.ServerInfo.Name, c.init.ServerInfo.Version
}

// ServerIcons returns the icons the server gave itself in initialize (or
// server/discover), as it gave them: untrusted.
func (c *Conn) ServerIcons() []mcp.Icon { return c.init.ServerInfo.Icons }

// Instructions returns the server's instructions from initialize.
func (c *Conn) Instructions() string { return c.init.Instructions }

// ProtocolVersion returns the protocol version in use: 2026-07-28 or later
// when the server answered server/discover, otherwise the version it agreed
// to in the initialize handshake.
func (c *Conn) ProtocolVersion() string { return c.init.ProtocolVersion }

// Stderr returns the most recent stderr output of a stdio server, at most
// StderrLimit bytes ("" for HTTP transports).
func (c *Conn) Stderr() string { return c.stderr.String() }

// Close ends the connection: the transport, the process (stdin closed, then
// SIGTERM, then SIGKILL, each after a short grace) and every goroutine of the
// connection. It is idempotent, safe to call concurrently, and bounded in
// time. It returns nil; the server's own exit status is not an error.
func (c *Conn) Close() error {
	c.closeOnce.Do(c.shutdown)
	return nil
}

// shutdown stops everything dial or connect started.
func (c *Conn) shutdown() {
	c.endListen()
	c.listenMu.Lock() // no listen stream starts once closing
	c.mu.Lock()
	c.closing = true // from here on, die and callbacks do nothing
	c.mu.Unlock()
	c.listenMu.Unlock()
	// End requests in flight (a subscriptions/listen stream among them)
	// while the transport can still tell the server.
	c.dieNow()
	if c.client != nil {
		done := make(chan struct{})
		go func() {
			defer close(done)
			_ = c.client.Close()
		}()
		// The HTTP transport sends DELETE for the session, bounded by 5 s in
		// mcp-go; do not wait for a server that no longer answers.
		waitClosed(done, 2*time.Second)
		defer func() { <-done }()
	}
	if c.proc != nil {
		c.proc.stop()
	}
	c.stopLife()
	c.wg.Wait()
	if c.web != nil {
		c.web.base.CloseIdleConnections()
	}
}
