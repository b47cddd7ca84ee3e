package mcpbridge

import (
	"context"
	"errors"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpgenai/bridge/mcpbridge/internal/mcpconn"
)

// tracerName is the name of the tracer the Bridge asks
// [Options.TracerProvider] for.
const tracerName = "github.com/mcpgenai/bridge/mcpbridge"

// Attribute keys of OpenTelemetry's semantic conventions for generative
// AI, and the bridge's own.
const (
	attrOperation  = "gen_ai.operation.name"
	attrToolName   = "gen_ai.tool.name"
	attrToolCallID = "gen_ai.tool.call.id"
	attrToolType   = "gen_ai.tool.type"
	attrErrorType  = "error.type"
	attrServerTool = "mcpbridge.tool.server_name"
	attrOutputErr  = "mcpbridge.output_schema.mismatch"
)

// newTracer returns the Bridge's tracer from tp; nil (no spans at all) when
// tp is nil.
func newTracer(tp trace.TracerProvider) trace.Tracer {
	if tp == nil {
		return nil
	}
	return tp.Tracer(tracerName)
}

// startDiscoverySpan starts the span of one Discover.
func (b *Bridge) startDiscoverySpan(ctx context.Context) (context.Context, func()) {
	if b.tracer == nil {
		return ctx, func() {}
	}
	ctx, span := b.tracer.Start(ctx, "mcp discovery")
	return ctx, func() { span.End() }
}

// startConnectSpan starts the span of one connection attempt to s, from
// the start of the transport to its tools registered or the failure.
func (b *Bridge) startConnectSpan(ctx context.Context, s *server) (context.Context, func(error)) {
	if b.tracer == nil {
		return ctx, func(error) {}
	}
	ctx, span := b.tracer.Start(ctx, "mcp connect "+s.cfg.Name, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String(mcpconn.AttrServer, s.cfg.Name)))
	return ctx, func(err error) {
		if err != nil {
			kind := "connect_failed"
			if errors.Is(err, errNoTools) {
				kind = "no_tools"
			}
			span.SetAttributes(attribute.String(attrErrorType, kind))
			span.SetStatus(codes.Error, "")
		}
		span.End()
	}
}

// startToolSpan starts the execute_tool span of a call of tool under name
// with the call's id, named "execute_tool name". Its full name and its
// attributes are set after the start (samplers see the name
// "execute_tool" and no attributes), and only on a recording span. Arguments and results are
// never recorded: they may hold secrets.
func (b *Bridge) startToolSpan(ctx context.Context, tool *Tool, name, id string) (context.Context, func(*CallResult)) {
	if b.tracer == nil {
		return ctx, endNoCall
	}
	ctx, span := b.tracer.Start(ctx, "execute_tool")
	if !span.IsRecording() {
		return ctx, endNoCall // a no-op provider or an unsampled trace: nothing to build
	}
	span.SetName("execute_tool " + name)
	attrs := []attribute.KeyValue{
		attribute.String(attrOperation, "execute_tool"),
		attribute.String(attrToolName, name),
		attribute.String(attrToolType, "function"),
		attribute.String(mcpconn.AttrServer, tool.Server),
		attribute.String(attrServerTool, tool.ServerTool),
	}
	if id != "" {
		attrs = append(attrs, attribute.String(attrToolCallID, id))
	}
	span.SetAttributes(attrs...)
	return ctx, func(r *CallResult) {
		if r.Err != nil {
			span.SetAttributes(attribute.String(attrErrorType, callErrorType(r.Err)))
			span.SetStatus(codes.Error, "")
		}
		if r.OutputErr != nil {
			span.SetAttributes(attribute.Bool(attrOutputErr, true))
		}
		span.End()
	}
}

func endNoCall(*CallResult) {}

// callErrorType is the low-cardinality error.type of a failed call.
func callErrorType(err error) string {
	for _, k := range []struct {
		err  error
		kind string
	}{
		{ErrUnknownTool, "unknown_tool"},
		{ErrDenied, "denied"},
		{ErrInvalidArguments, "invalid_arguments"},
		{ErrTimeout, "timeout"},
		{ErrToolError, "tool_error"},
		{context.Canceled, "cancelled"},
		{context.DeadlineExceeded, "deadline_exceeded"},
		{ErrTransport, "transport"},
	} {
		if errors.Is(err, k.err) {
			return k.kind
		}
	}
	return "_OTHER"
}
