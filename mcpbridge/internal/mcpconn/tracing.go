package mcpconn

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/tracing"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// Attribute keys of the MCP and generative-AI semantic conventions of
// OpenTelemetry, and the bridge's own.
const (
	attrMCPMethod        = "mcp.method.name"
	attrMCPProtocol      = "mcp.protocol.version"
	attrToolName         = "gen_ai.tool.name"
	attrPromptName       = "gen_ai.prompt.name"
	attrNetworkTransport = "network.transport"
	attrErrorType        = "error.type"
	// AttrServer is the configured name of the server, on every span about
	// one server.
	AttrServer = "mcpbridge.server.name"
)

// noTarget is the target of a request that is about no tool or prompt.
var noTarget attribute.KeyValue

// request sends one request through send (see exchange, which own is
// passed to), within its span when the spec has a Tracer. target names the
// tool or prompt the request is about (as its span attribute), or is
// noTarget.
func (c *Conn) request(ctx context.Context, method string, target attribute.KeyValue, own ownCtx, send func(context.Context) error) (json.RawMessage, error) {
	if c.spec.Tracer == nil {
		return c.exchange(ctx, method, own, send)
	}
	ctx, end := c.startSpan(ctx, method, target)
	raw, err := c.exchange(ctx, method, own, send)
	end(err)
	return raw, err
}

// startSpan starts the client span of one request of method, when the spec
// has a Tracer: named "method target" (the tool or prompt, if any), with
// the method, the target, the transport and the protocol version as
// attributes; the target in the name and the attributes are set after the
// start (samplers see only the method), and only on a recording span. The span is in the returned context, so the trace context
// that reaches the server in _meta is this span's. end ends it, recording
// err.
func (c *Conn) startSpan(ctx context.Context, method string, target attribute.KeyValue) (context.Context, func(err error)) {
	if c.spec.Tracer == nil {
		return ctx, func(error) {}
	}
	ctx, span := c.spec.Tracer.Start(ctx, method, clientSpan...)
	if !span.IsRecording() {
		return ctx, endNothing // a no-op provider or an unsampled trace: nothing to build
	}
	t, hasTarget := target, target.Key != ""
	if hasTarget {
		span.SetName(method + " " + t.Value.AsString())
	}
	attrs := make([]attribute.KeyValue, 0, 5)
	attrs = append(attrs, attribute.String(attrMCPMethod, method), attribute.String(AttrServer, c.spec.Name))
	if hasTarget {
		attrs = append(attrs, t)
	}
	transport := "tcp"
	if c.kind == Stdio {
		transport = "pipe"
	}
	attrs = append(attrs, attribute.String(attrNetworkTransport, transport))
	if c.init != nil {
		attrs = append(attrs, attribute.String(attrMCPProtocol, c.init.ProtocolVersion))
	}
	span.SetAttributes(attrs...)
	return ctx, func(err error) {
		if err != nil {
			span.SetAttributes(attribute.String(attrErrorType, errorType(err)))
			span.SetStatus(codes.Error, "")
		}
		span.End()
	}
}

func endNothing(error) {}

// clientSpan are the start options of a request's span, built once: a
// slice passed on with "..." is not copied, where the option and the
// variadic slice built at each call would take two allocations per
// request, with any provider. Tracers only read their options.
var clientSpan = []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindClient)}

// errorType is the low-cardinality error.type of a failed request.
func errorType(err error) string {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, context.Canceled):
		return "cancelled"
	case errors.Is(err, ErrNotSent), errors.Is(err, ErrClosed):
		return "connection_closed"
	}
	return "request_failed"
}

// metaPropagator writes the W3C trace context of the request's span into
// its _meta ("traceparent", and "tracestate" when not empty), as the MCP
// convention for trace propagation asks, on every transport.
type metaPropagator struct{}

var _ tracing.MetaPropagator = metaPropagator{}

func (metaPropagator) InjectMeta(ctx context.Context, meta *mcp.Meta) *mcp.Meta {
	sc := trace.SpanContextFromContext(ctx)
	if !sc.IsValid() {
		return meta
	}
	if meta == nil {
		meta = &mcp.Meta{}
	}
	if meta.AdditionalFields == nil {
		meta.AdditionalFields = map[string]any{}
	}
	meta.AdditionalFields["traceparent"] = "00-" + sc.TraceID().String() + "-" + sc.SpanID().String() + "-" + sc.TraceFlags().String()
	if ts := sc.TraceState().String(); ts != "" {
		meta.AdditionalFields["tracestate"] = ts
	}
	return meta
}

func (metaPropagator) ExtractMeta(ctx context.Context, _ *mcp.Meta) context.Context { return ctx }

// clientOptions are the mcp-go client options the spec asks for.
func (s *Spec) clientOptions() []client.ClientOption {
	if s.Tracer == nil {
		return nil
	}
	return []client.ClientOption{client.WithMetaPropagator(metaPropagator{})}
}
