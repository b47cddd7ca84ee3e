package mcpbridge

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
)

// TestTracing records the spans of a discovery and a call with the
// OpenTelemetry SDK's in-memory exporter: the span tree, the trace context
// the server received in _meta, and no secret in any attribute.
func TestTracing(t *testing.T) {
	for _, tr := range []Transport{TransportStdio, TransportHTTP} {
		t.Run(string(tr), func(t *testing.T) {
			exp := tracetest.NewInMemoryExporter()
			tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
			t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })

			cfg := serverFor(t, "p", tr, testserver.Options{Offers: true})
			cfg.Trust = true
			cfg.Env = map[string]string{"API_TOKEN": "sekret-env-1"}
			if tr == TransportStdio {
				cfg.Args = append(cfg.Args, "--token", "sekret-arg-2")
			} else {
				cfg.Headers = map[string]string{"Authorization": "Bearer sekret-hdr-3"}
			}
			b := newBridge(t, &Options{TracerProvider: tp}, cfg)
			discover(t, b)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			r := b.Execute(ctx, &genai.FunctionCall{ID: "call-7", Name: "traceparent"})
			if r.Err != nil {
				t.Fatalf("Execute(traceparent) = %v", r.Err)
			}
			seen := r.LLMContent[0].Text

			spans := exp.GetSpans()
			byName := map[string]tracetest.SpanStub{}
			var tree []string
			for _, s := range spans {
				byName[s.Name] = s
			}
			for _, s := range spans {
				parent := "-"
				for _, p := range spans {
					if p.SpanContext.SpanID() == s.Parent.SpanID() && s.Parent.IsValid() {
						parent = p.Name
					}
				}
				tree = append(tree, parent+" > "+s.Name)
			}
			for _, want := range []string{
				"- > mcp discovery",
				"mcp discovery > mcp connect p",
				"mcp connect p > tools/list",
				"- > execute_tool traceparent",
				"execute_tool traceparent > tools/call traceparent",
			} {
				if !contains(tree, want) {
					t.Errorf("span %q missing; spans:\n%s", want, strings.Join(tree, "\n"))
				}
			}

			call := byName["tools/call traceparent"]
			want := fmt.Sprintf("00-%s-%s-01", call.SpanContext.TraceID(), call.SpanContext.SpanID())
			if seen != want {
				t.Errorf("traceparent the server saw = %q, want %q (the tools/call span)", seen, want)
			}

			exec := byName["execute_tool traceparent"]
			attrs := map[string]string{}
			for _, kv := range exec.Attributes {
				attrs[string(kv.Key)] = kv.Value.String()
			}
			wantAttrs := map[string]string{
				"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "traceparent", "gen_ai.tool.call.id": "call-7",
				"gen_ai.tool.type": "function", "mcpbridge.server.name": "p", "mcpbridge.tool.server_name": "traceparent",
			}
			if diff := cmp.Diff(wantAttrs, attrs); diff != "" {
				t.Errorf("execute_tool attributes (-want +got):\n%s", diff)
			}
			callAttrs := map[string]string{}
			for _, kv := range call.Attributes {
				callAttrs[string(kv.Key)] = kv.Value.String()
			}
			if callAttrs["mcp.method.name"] != "tools/call" || callAttrs["gen_ai.tool.name"] != "traceparent" || callAttrs["mcp.protocol.version"] == "" {
				t.Errorf("tools/call attributes = %v, want the method, tool and protocol version", callAttrs)
			}
			if call.SpanKind != trace.SpanKindClient {
				t.Errorf("tools/call span kind = %v, want %v", call.SpanKind, trace.SpanKindClient)
			}

			for _, s := range spans {
				for _, kv := range s.Attributes {
					if strings.Contains(kv.Value.String(), "sekret") {
						t.Errorf("span %q attribute %s = %q holds a secret", s.Name, kv.Key, kv.Value.String())
					}
				}
			}
		})
	}
}

func TestTracingErrors(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	b := newBridge(t, &Options{TracerProvider: tp}, serverFor(t, "p", TransportStdio, testserver.Options{Offers: true}))
	discover(t, b)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = b.Execute(ctx, &genai.FunctionCall{Name: "forecast"}) // not trusted, no confirmer: denied
	for _, s := range exp.GetSpans() {
		if s.Name != "execute_tool forecast" {
			continue
		}
		for _, kv := range s.Attributes {
			if kv.Key == "error.type" && kv.Value.AsString() == "denied" {
				return
			}
		}
		t.Errorf("execute_tool forecast attributes = %v, want error.type denied", s.Attributes)
		return
	}
	t.Error("no execute_tool forecast span")
}

// TestTracingOff: without a TracerProvider the server gets no traceparent.
func TestTracingOff(t *testing.T) {
	cfg := serverFor(t, "p", TransportStdio, testserver.Options{Offers: true})
	cfg.Trust = true
	b := newBridge(t, nil, cfg)
	discover(t, b)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if r := b.Execute(ctx, &genai.FunctionCall{Name: "traceparent"}); r.Err != nil || r.LLMContent[0].Text != "" {
		t.Errorf("Execute(traceparent) without tracing = %v, %v; want no traceparent", r.LLMContent, r.Err)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
