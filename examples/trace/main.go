// Command trace shows the OpenTelemetry spans of the bridge: it starts
// itself as a small stdio MCP server, discovers it, calls its tool once and
// writes every span as JSON with the OpenTelemetry SDK's stdout exporter.
// The tool answers with the W3C traceparent it received in the request's
// _meta, so the output shows the trace reaching the server.
//
//	go run ./examples/trace
//
// The spans are "mcp discovery", "mcp connect clock" with its "tools/list"
// request, then "execute_tool now" with its "tools/call now" request, whose
// span ID is the parent ID in the traceparent the server saw. The server
// also reports progress, printed as it arrives.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/mcpbridge"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is the program: with -serve it is the MCP server on in and out.
func run(ctx context.Context, args []string, in io.Reader, out, errOut io.Writer) int {
	fs := flag.NewFlagSet("trace", flag.ContinueOnError)
	fs.SetOutput(errOut)
	serve := fs.Bool("serve", false, "run the example's MCP server over stdio (used by the example itself)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *serve {
		if err := serveClock(ctx, in, out); err != nil && !errors.Is(err, context.Canceled) {
			fmt.Fprintf(errOut, "trace: server: %v\n", err)
			return 1
		}
		return 0
	}
	if err := traceOneCall(ctx, out); err != nil {
		fmt.Fprintf(errOut, "trace: %v\n", err)
		return 1
	}
	return 0
}

// traceOneCall discovers the example's server with tracing on, calls its
// tool once and flushes the spans to out.
func traceOneCall(ctx context.Context, out io.Writer) (err error) {
	exp, err := stdouttrace.New(stdouttrace.WithWriter(out), stdouttrace.WithPrettyPrint())
	if err != nil {
		return err
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	defer func() { err = errors.Join(err, tp.Shutdown(context.WithoutCancel(ctx))) }()

	exe, err := os.Executable()
	if err != nil {
		return err
	}
	cfg := &mcpbridge.Config{Servers: []mcpbridge.ServerConfig{
		{Name: "clock", Command: exe, Args: []string{"-serve"}, Trust: true, Timeout: 10 * time.Second},
	}}
	b, err := mcpbridge.New(cfg, &mcpbridge.Options{
		TracerProvider: tp,
		OnProgress: func(p mcpbridge.Progress) {
			fmt.Fprintf(out, "progress of %s (%s): %v/%v %s\n", p.Name, p.ID, p.Progress, p.Total, p.Message)
		},
	})
	if err != nil {
		return err
	}
	defer b.Close()
	if err := b.Discover(ctx); err != nil {
		return err
	}
	if st := b.Status().Servers[0]; st.State != mcpbridge.Connected {
		return fmt.Errorf("server clock: %s", st.Error)
	}
	r := b.Execute(ctx, &genai.FunctionCall{ID: "call-1", Name: "now"})
	if r.Err != nil {
		return r.Err
	}
	fmt.Fprintf(out, "the server saw: %s\n", r.ReturnDisplay)
	return nil
}

// serveClock serves the tool "now", which reports two steps of progress
// and answers with the traceparent of its request.
func serveClock(ctx context.Context, in io.Reader, out io.Writer) error {
	s := server.NewMCPServer("clock", "1.0.0", server.WithToolCapabilities(false))
	s.AddTool(mcp.NewTool("now", mcp.WithDescription("Answers with the trace context it received.")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var traceparent string
			if m := req.Params.Meta; m != nil {
				if token := m.ProgressToken; token != nil {
					srv := server.ServerFromContext(ctx)
					for i := 1; i <= 2; i++ {
						_ = srv.SendNotificationToClient(ctx, string(mcp.MethodNotificationProgress), map[string]any{
							"progressToken": token, "progress": i, "total": 2, "message": fmt.Sprintf("step %d", i)})
					}
					// mcp-go's server writes notifications on a goroutine
					// of their own: let them leave before the answer.
					time.Sleep(50 * time.Millisecond)
				}
				traceparent, _ = m.AdditionalFields["traceparent"].(string)
			}
			return mcp.NewToolResultText("traceparent " + traceparent), nil
		})
	return server.NewStdioServer(s).Listen(ctx, in, out)
}
