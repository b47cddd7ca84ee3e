package mcpbridge

import (
	"context"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpgenai/bridge/mcpbridge/internal/mcpconn"
)

// BenchmarkConnect measures connecting to one stdio server (the mcptest
// program, which speaks both protocol eras) as a Bridge does before the
// server's tools can be used: start the process, server/discover or the
// initialize handshake, then the first tools/list (on 2026-07-28 beside the
// subscriptions/listen request); closing is not counted. All variants run
// alternately in one loop:
//
//   - raw-legacy, raw-modern: mcp-go's own client, initialized with the
//     handshake or with server/discover;
//   - legacy: the Bridge's connection with the "legacy" protocol setting;
//   - modern: the Bridge's connection finding the era itself on a first
//     connect (server/discover, answered: 2026-07-28). Its probe bound is
//     raised to 3 s so that a process starved on a loaded machine is not
//     measured as legacy; an answered probe costs the same either way;
//   - known: the same with the era remembered from an earlier connection,
//     as a reconnect does.
//
// It reports each median in ms and the ratios "modern/legacy" (what
// detecting and speaking 2026-07-28 costs against the handshake),
// "legacy/raw" and "modern/raw" (the Bridge against mcp-go alone).
func BenchmarkConnect(b *testing.B) {
	ctx := context.Background()
	raw := func(version string) func(b *testing.B) time.Duration {
		return func(b *testing.B) time.Duration {
			t0 := time.Now()
			c, err := client.NewStdioMCPClientWithOptions(mcptest, nil, []string{"-name=raw"})
			if err != nil {
				b.Fatalf("NewStdioMCPClient() error: %v", err)
			}
			req := mcp.InitializeRequest{}
			req.Params.ProtocolVersion = version
			req.Params.ClientInfo = mcp.Implementation{Name: "baseline", Version: "0"}
			if _, err := c.Initialize(ctx, req); err != nil {
				b.Fatalf("Initialize() error: %v", err)
			}
			if _, err := c.ListTools(ctx, mcp.ListToolsRequest{}); err != nil {
				b.Fatalf("ListTools() error: %v", err)
			}
			d := time.Since(t0)
			if c.ProtocolVersion() != version {
				b.Fatalf("raw protocol = %q, want %q", c.ProtocolVersion(), version)
			}
			_ = c.Close()
			return d
		}
	}
	bridge := func(p mcpconn.Protocol, era, want string) func(b *testing.B) time.Duration {
		return func(b *testing.B) time.Duration {
			s := mcpconn.Spec{Name: "bench", Kind: mcpconn.Stdio, Command: mcptest, Args: []string{"-name=bridge"},
				Timeout: 10 * time.Second, Protocol: p, Era: era, DiscoverProbe: 3 * time.Second, Logger: quiet()}
			t0 := time.Now()
			c, err := mcpconn.Dial(ctx, s)
			if err != nil {
				b.Fatalf("Dial() error: %v", err)
			}
			if _, err := c.ListTools(ctx); err != nil {
				b.Fatalf("ListTools() error: %v", err)
			}
			d := time.Since(t0)
			if c.ProtocolVersion() != want {
				b.Fatalf("bridge protocol = %q, want %q", c.ProtocolVersion(), want)
			}
			_ = c.Close()
			return d
		}
	}
	legacy, modern := mcp.LATEST_LEGACY_PROTOCOL_VERSION, mcp.LATEST_PROTOCOL_VERSION
	variants := []struct {
		name string
		run  func(*testing.B) time.Duration
	}{
		{"raw-legacy", raw(legacy)},
		{"raw-modern", raw(modern)},
		{"legacy", bridge(mcpconn.ProtocolLegacy, "", legacy)},
		{"modern", bridge(mcpconn.ProtocolAuto, "", modern)},
		{"known", bridge(mcpconn.ProtocolAuto, modern, modern)},
	}
	times := make([][]time.Duration, len(variants))
	i := 0
	for b.Loop() {
		for j := range variants {
			k := (i + j) % len(variants) // rotate which goes first
			times[k] = append(times[k], variants[k].run(b))
		}
		i++
	}
	m := make(map[string]float64, len(variants))
	for k, v := range variants {
		m[v.name] = float64(median(times[k]))
		b.ReportMetric(m[v.name]/1e6, v.name+"-ms")
	}
	b.ReportMetric(m["modern"]/m["legacy"], "modern/legacy")
	b.ReportMetric(m["legacy"]/m["raw-legacy"], "legacy/raw")
	b.ReportMetric(m["modern"]/m["raw-modern"], "modern/raw")
}
