package mcpbridge

import (
	"context"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/mcpgenai/bridge/mcpbridge/internal/mcpconn"
)

// BenchmarkCallTracing compares the Bridge calling "lookup" over stdio with
// mcp-go's own CallTool (paired, as in BenchmarkCallOverhead), with
// tracing off (no TracerProvider), with OpenTelemetry's no-op provider,
// and with the SDK recording every span (sampled, exported to nowhere).
func BenchmarkCallTracing(b *testing.B) {
	ctx := context.Background()
	c, err := client.NewStdioMCPClientWithOptions(mcptest, nil, []string{"-name=base", "-exec"})
	if err != nil {
		b.Fatalf("NewStdioMCPClient() error: %v", err)
	}
	startBaseline(b, ctx, c, false, mcpconn.ProtocolVersion)
	sdk := sdktrace.NewTracerProvider(sdktrace.WithSyncer(tracetest.NewNoopExporter()))
	b.Cleanup(func() { _ = sdk.Shutdown(ctx) })
	bc := benchCalls[1] // lookup
	for _, tc := range []struct {
		name string
		tp   trace.TracerProvider
	}{
		{"off", nil},
		{"noop", noop.NewTracerProvider()},
		{"sdk", sdk},
	} {
		b.Run(tc.name, func(b *testing.B) {
			cfg := stdioServer("main", "-name=main", "-exec")
			cfg.Trust = true
			cfg.Protocol = "legacy" // as the baseline
			br, err := New(&Config{Servers: []ServerConfig{cfg}}, &Options{Logger: quiet(), TracerProvider: tc.tp})
			if err != nil {
				b.Fatalf("New() error: %v", err)
			}
			b.Cleanup(func() { _ = br.Close() })
			if err := br.Discover(ctx); err != nil {
				b.Fatalf("Discover() error: %v", err)
			}
			runCallPair(b, baselineCaller(ctx, c, bc), bridgeCaller(ctx, br, bc))
		})
	}
}
