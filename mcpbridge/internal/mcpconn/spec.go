package mcpconn

// What a connection is dialled with: the transport, the Spec and its
// defaults.

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mcpgenai/bridge/mcpbridge/internal/clienttasks"
	"go.opentelemetry.io/otel/trace"
)

// Kind is the transport of a connection.
type Kind int

// The transports.
const (
	Stdio Kind = iota
	SSE
	StreamableHTTP
	// Auto is a URL whose transport is detected: streamable HTTP first,
	// and the SSE handshake when the server answers that with HTTP 4xx.
	// A Conn's Kind is never Auto.
	Auto
)

// String returns "stdio", "sse", "http" or "auto".
func (k Kind) String() string {
	switch k {
	case Stdio:
		return "stdio"
	case SSE:
		return "sse"
	case StreamableHTTP:
		return "http"
	case Auto:
		return "auto"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Defaults, used when the corresponding [Spec] field is zero.
const (
	// DefaultTimeout bounds each request when Spec.Timeout is zero.
	DefaultTimeout = 10 * time.Minute
	// DefaultStderrLimit is how many bytes of a stdio server's stderr are
	// kept when Spec.StderrLimit is zero.
	DefaultStderrLimit = 64 * 1024
	// DefaultEndpointWait bounds the wait for the SSE endpoint event when
	// Spec.EndpointWait is zero.
	DefaultEndpointWait = 5 * time.Second
	// ProtocolVersion is the protocol version asked for in the initialize
	// handshake of a server older than 2026-07-28 ([Spec.Protocol] and
	// [Spec.Era] say how the era is chosen).
	ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
)

// Spec says how to reach one server.
type Spec struct {
	// Name identifies the server in errors and logs.
	Name string
	Kind Kind

	// Stdio: the program, its arguments, working directory ("" = ours) and
	// its complete environment (nil = our environment; the caller decides
	// what the child inherits).
	Command string
	Args    []string
	Dir     string
	Env     []string

	// SSE, streamable HTTP and Auto: the endpoint and extra request headers.
	URL     string
	Headers map[string]string
	// Auth, when not nil, gives every HTTP request its credentials (see
	// [Authorizer]); with TokenParam set they go in that query parameter
	// instead of the Authorization header.
	Auth       Authorizer
	TokenParam string

	// Timeout bounds each request: connecting with initialize, each page of
	// a list, each tool call. 0 = DefaultTimeout.
	Timeout time.Duration
	// MaxCallTime bounds a tool call that may outlive Timeout: a task
	// (see [Conn.CallTask]), or a call that asks for progress, which
	// Timeout then bounds from the last progress report rather than
	// from the start. While the host answers a question of the server
	// (Elicit, Sample), Timeout is held for every call of the connection
	// and MaxCallTime bounds the answer. 0 = DefaultMaxCallTime.
	MaxCallTime time.Duration
	// Protocol chooses how the protocol era is found; the zero value
	// detects it.
	Protocol Protocol
	// Era is the protocol version this server negotiated last time, if
	// known: with ProtocolAuto, a version before 2026-07-28 goes straight
	// to the initialize handshake, a later one to a server/discover bounded
	// by 10 s instead of DiscoverProbe. "" means unknown: a probe finds
	// out.
	Era string
	// DiscoverProbe bounds the first server/discover while the era is
	// unknown. 0 = DefaultDiscoverProbe.
	DiscoverProbe time.Duration
	// EndpointWait bounds how long the SSE handshake waits for the endpoint
	// event, capped by Timeout. A URL that serves only streamable HTTP
	// accepts the SSE GET but never sends one. 0 = DefaultEndpointWait.
	EndpointWait time.Duration
	// MaxMessageBytes bounds one message from the server: a stdio line, an
	// SSE event, an HTTP response body. Past it the connection fails with
	// an error wrapping ErrMessageTooLarge. 0 = DefaultMaxMessageBytes.
	MaxMessageBytes int
	// StderrLimit is how many bytes of a stdio server's stderr are kept.
	// 0 = DefaultStderrLimit.
	StderrLimit int
	// Logger receives stderr lines and transport events, with a "server"
	// attribute. A stderr line that looks like a warning or an error is
	// logged at warn level, one that looks like info, debug or trace output
	// is left out, and one that names no level is logged at debug level.
	// nil = slog.Default().
	Logger *slog.Logger
	// Tracer, if not nil, traces each request with a client span whose
	// context reaches the server in the request's _meta (as traceparent).
	Tracer trace.Tracer

	// OnToolsChanged is called after notifications/tools/list_changed.
	// Calls are coalesced (a burst of notifications is one call, and calls
	// start at most twice a second), never concurrent, and never start
	// after Close returns. It runs on the connection's event goroutine: it
	// must not call Close itself (start a goroutine for that).
	OnToolsChanged func()
	// OnPromptsChanged is called after notifications/prompts/list_changed,
	// under the same rules as OnToolsChanged (coalesced apart from it).
	OnPromptsChanged func()
	// Elicit answers a server's request for input from the user during a
	// tool call (form or URL mode): elicitation/create before 2026-07-28,
	// an input_required result from then on. For a multi round-trip
	// request ctx is the tool call's. The response's Content is dropped
	// unless Action is accept. nil declares no elicitation capability, and
	// a server asking anyway gets an error (so does its tool call on
	// 2026-07-28). Within Elicit, [ElicitationCompleted] gives a URL
	// request's completion.
	Elicit func(ctx context.Context, p mcp.ElicitationParams) (mcp.ElicitationResponse, error)
	// Roots, when not nil, offers the roots capability: it returns the
	// roots that answer the server's roots/list (or, on 2026-07-28, a
	// roots input request), given the request's context (as for Elicit);
	// an error refuses the request. It is called concurrently and must
	// return quickly; nil means no roots are offered.
	Roots func(ctx context.Context) ([]mcp.Root, error)
	// LogLevel, when not "", is the least severity of the log messages
	// asked of a server that offers logging: logging/setLevel once
	// connected, or on 2026-07-28 the level carried by every request. ""
	// leaves the server's default.
	LogLevel mcp.LoggingLevel
	// OnLog receives each notifications/message: its level, its logger
	// ("" when none) and its data as decoded JSON. It is called on the
	// goroutine reading the connection and must return quickly. nil logs
	// them to Logger at debug level.
	OnLog func(level mcp.LoggingLevel, logger string, data any)
	// Subscriptions are the resource URIs subscribed to once connected
	// (see [Conn.SubscribeResource]).
	Subscriptions []string
	// OnResourceUpdated receives the URI of each
	// notifications/resources/updated; OnResourcesChanged is called after
	// each notifications/resources/list_changed. Both are called on the
	// goroutine reading the connection, never after Close, and must
	// return quickly.
	OnResourceUpdated  func(uri string)
	OnResourcesChanged func()
	// OnNextEra is called at most once, with the protocol version a later
	// connection should ask for, when a stdio server connected with the
	// handshake turns out, after Dial returned, to have answered
	// server/discover late (see [Conn.NextEra], which already says so when
	// the answer came first). Same goroutine rules as OnToolsChanged.
	OnNextEra func(version string)
	// Sample, when not nil, answers the server's sampling/createMessage
	// and its tasks/get, tasks/result, tasks/list and tasks/cancel about
	// the sampling tasks it started, given the request's params as sent;
	// the client then declares sampling (with tools) and sampling run as
	// a task. Over SSE no request of the server reaches it. ctx ends
	// with the request's timeout, the connection, or the server's
	// notifications/cancelled; for a multi round-trip request it is the
	// tool call's. An error that is an [rpcerr.Coder] gives the server its
	// code, others -32603; the message is the error's text.
	Sample func(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error)
	// Tasks, when not nil, keeps the requests the server asks to run as
	// tasks before 2026-07-28 (see [clienttasks.Store]), and answers its
	// tasks/get, tasks/result, tasks/list and tasks/cancel: then, with
	// Elicit, the client also declares elicitation run as a task. It may
	// be shared by the connections of several servers (each sees its own
	// tasks). Over SSE no request of the server reaches it.
	Tasks *clienttasks.Store
	// Outgoing, when not nil, is applied to everything sent to the server
	// (see outgoing.go): each stdio message, each HTTP request's body and
	// its Mcp-Param-* header values.
	Outgoing Outgoing
	// QuestionBytes bounds the requests of the server (its questions:
	// elicitation/create, sampling/createMessage, roots/list, tasks/*) by
	// method, in bytes; a method it does not name is bounded by
	// DefaultQuestionBytes. A longer request is refused before mcp-go
	// decodes it (see [TooLargeKey]); on 2026-07-28, a result holding
	// questions longer than the largest bound fails its request.
	QuestionBytes map[string]int
	// Questions, when not nil, bounds the questions the server may ask
	// (Elicit, Sample, Roots) per tool call and per minute (see
	// [Questions]); it may be shared by the connections of one server.
	// nil bounds nothing.
	Questions *Questions
	// OnClose is called once when the connection dies by itself (process
	// exit, lost stream), not after Close. Same goroutine rules as
	// OnToolsChanged.
	OnClose func(err error)

	// join, when set, is the Mcp-Session-Id of a streamable-HTTP session
	// of protocol Era that another connection initialized: the connection
	// takes it over instead of initializing (see [Conn.ResumeTask]).
	join string
}

// asksHost reports whether the server may put a question to the host
// during a call (elicitation or sampling), which holds the call's silence
// limit (see clock).
func (s *Spec) asksHost() bool { return s.Elicit != nil || s.Sample != nil }

func (s *Spec) timeout() time.Duration {
	if s.Timeout > 0 {
		return s.Timeout
	}
	return DefaultTimeout
}

func (s *Spec) logger() *slog.Logger {
	l := s.Logger
	if l == nil {
		l = slog.Default()
	}
	return l.With("server", s.Name)
}

// validate reports a Spec that names no way to reach its server.
func (s *Spec) validate() error {
	switch s.Kind {
	case Stdio:
		if s.Command == "" {
			return fmt.Errorf("mcp server %q: no command", s.Name)
		}
	case SSE, StreamableHTTP, Auto:
		if s.URL == "" {
			return fmt.Errorf("mcp server %q: no url", s.Name)
		}
	default:
		return fmt.Errorf("mcp server %q: unknown transport %v", s.Name, s.Kind)
	}
	return nil
}
