package mcpbridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/mcpbridge/internal/benchpair"
	"github.com/mcpgenai/bridge/mcpbridge/internal/mcpconn"
	"github.com/mcpgenai/bridge/mcpbridge/internal/result"
	"github.com/mcpgenai/bridge/mcpbridge/internal/testserver"
)

// The benchmarks of this file measure the Bridge against a baseline in the
// same run, so that the ratios hold on a loaded machine. See BENCHMARKS.md
// at the repository root for the commands and the results.

// benchCall is a call both sides make. call is what the model sends the
// Bridge; args are the same arguments as the server must receive them,
// which the baseline sends; want is the text of the result.
type benchCall struct {
	call *genai.FunctionCall
	args map[string]any
	want string
}

// benchCalls are the measured calls:
//   - pick: the model sends the integer enum as the string "2" (the Gemini
//     schema only has string enums); the Bridge restores it to 2 and
//     validates it against the original schema (an integer enum: the
//     validator's slowest kind of keyword) before sending it;
//   - lookup: a plain string argument and a JSON text result.
var benchCalls = []benchCall{
	{
		call: &genai.FunctionCall{Name: "pick", ID: "call-1", Args: map[string]any{"size": "2", "note": "benchmark"}},
		args: map[string]any{"size": 2, "note": "benchmark"},
		want: "size=2 (float64)",
	},
	{
		call: &genai.FunctionCall{Name: "lookup", ID: "call-2", Args: map[string]any{"name": "ada"}},
		args: map[string]any{"name": "ada"},
		want: `{"id":"u-3"}`,
	},
}

// caller makes one call and fails b when the answer is not the expected one.
type caller func(b *testing.B)

// baselineCaller returns mcp-go's own client making bc.
func baselineCaller(ctx context.Context, c *client.Client, bc benchCall) caller {
	req := mcp.CallToolRequest{}
	req.Params.Name = bc.call.Name
	req.Params.Arguments = bc.args
	return func(b *testing.B) {
		res, err := c.CallTool(ctx, req)
		if err != nil {
			b.Fatalf("CallTool(%s) error: %v", bc.call.Name, err)
		}
		if len(res.Content) != 1 || res.IsError {
			b.Fatalf("CallTool(%s) = %+v, want one text block", bc.call.Name, res)
		}
		if tc, ok := res.Content[0].(mcp.TextContent); !ok || tc.Text != bc.want {
			b.Fatalf("CallTool(%s) = %+v, want text %q", bc.call.Name, res.Content[0], bc.want)
		}
	}
}

// bridgeCaller returns the Bridge executing the model's call.
func bridgeCaller(ctx context.Context, br *Bridge, bc benchCall) caller {
	return func(b *testing.B) {
		checkResult(b, bc, br.Execute(ctx, bc.call))
	}
}

// checkResult fails b unless r is the successful result of bc.
func checkResult(b *testing.B, bc benchCall, r *CallResult) {
	if r.Err != nil {
		b.Fatalf("Execute(%s) error: %v", bc.call.Name, r.Err)
	}
	if got := result.JoinText(r.LLMContent); got != bc.want {
		b.Fatalf("Execute(%s) text = %q, want %q", bc.call.Name, got, bc.want)
	}
}

// startBaseline initializes c in the era of protocol version (a version
// before 2026-07-28 uses the initialize handshake, a later one
// server/discover), as the Bridge does with the matching Protocol setting.
func startBaseline(b *testing.B, ctx context.Context, c *client.Client, start bool, version string) {
	b.Helper()
	if start {
		if err := c.Start(ctx); err != nil {
			b.Fatalf("Start() error: %v", err)
		}
	}
	b.Cleanup(func() { _ = c.Close() })
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = version
	req.Params.ClientInfo = mcp.Implementation{Name: "baseline", Version: "0"}
	if _, err := c.Initialize(ctx, req); err != nil {
		b.Fatalf("Initialize() error: %v", err)
	}
	if got := c.ProtocolVersion(); got != version {
		b.Fatalf("baseline protocol = %q, want %q", got, version)
	}
	// As a client does before calling, and as the Bridge did: on
	// 2026-07-28 mcp-go then mirrors x-mcp-header arguments of known tools
	// into headers on every call, a cost both sides should pay.
	if _, err := c.ListTools(ctx, mcp.ListToolsRequest{}); err != nil {
		b.Fatalf("ListTools() error: %v", err)
	}
}

// baselineOptions make the baseline client declare what the Bridge
// declares and every call of it carries on 2026-07-28 (in each request's
// client capabilities): the tasks extension, which a client that waits
// tasks out must name and the server must decode with every request. Its
// cost is the protocol's, not the Bridge's.
var baselineOptions = []client.ClientOption{client.WithClientCapabilities(mcp.ClientCapabilities{
	Extensions: map[string]any{mcpconn.TasksExtension: map[string]any{}},
})}

// benchEras are the protocol eras the call benchmarks run in: the Bridge's
// Protocol setting and the baseline's protocol version.
var benchEras = []struct{ protocol, version string }{
	{"legacy", mcp.LATEST_LEGACY_PROTOCOL_VERSION},
	{"modern", mcp.LATEST_PROTOCOL_VERSION},
}

// benchBridge returns a discovered Bridge for the trusted server cfg.
func benchBridge(b *testing.B, ctx context.Context, cfg ServerConfig) *Bridge {
	b.Helper()
	cfg.Trust = true
	br, err := New(&Config{Servers: []ServerConfig{cfg}}, &Options{Logger: quiet()})
	if err != nil {
		b.Fatalf("New() error: %v", err)
	}
	b.Cleanup(func() { _ = br.Close() })
	if err := br.Discover(ctx); err != nil {
		b.Fatalf("Discover() error: %v", err)
	}
	if st := br.Status().Servers[0]; st.State != Connected {
		b.Fatalf("server %q: state %v, error %q", st.Name, st.State, st.Error)
	}
	return br
}

// runCallPair runs base and bridge alone and paired (see benchpair.Run).
func runCallPair(b *testing.B, base, bridge caller) { benchpair.Run(b, base, bridge) }

// median returns the median of ds (which it sorts), 0 when empty.
func median(ds []time.Duration) time.Duration { return benchpair.Median(ds) }

// BenchmarkCallOverhead compares the Bridge executing a model's function
// call (lookup, confirmation with a trusted server, argument restoring,
// validation against the original schema, result conversion) with mcp-go's
// own client calling the same tool on the same server (for stdio, the same
// server program):
//
// each in both protocol eras (the Bridge's Protocol setting "legacy" or
// "modern", the baseline initialized alike):
//
//   - stdio: the mcptest program, one process per side;
//   - http: one in-process mcp-go server behind streamable HTTP on
//     loopback, shared by both sides (the Bridge has no in-process
//     transport, so this is its closest in-process comparison);
//   - inprocess: mcp-go's in-process client against the same server as
//     the baseline, and the Bridge's own per-call work with the transport
//     taken out (see benchPipeline) as "bridge": the ratio is then
//     (in-process call + Bridge work) / in-process call, an estimate of the
//     Bridge over an in-process transport.
func BenchmarkCallOverhead(b *testing.B) {
	ctx := context.Background()
	b.Run("stdio", func(b *testing.B) {
		for _, era := range benchEras {
			b.Run(era.protocol, func(b *testing.B) {
				tr := transport.NewStdioWithOptions(mcptest, nil, []string{"-name=base", "-exec"})
				if err := tr.Start(ctx); err != nil {
					b.Fatalf("starting the baseline's server: %v", err)
				}
				c := client.NewClient(tr, baselineOptions...)
				startBaseline(b, ctx, c, false, era.version)
				cfg := stdioServer("main", "-name=main", "-exec")
				cfg.Protocol = era.protocol
				br := benchBridge(b, ctx, cfg)
				for _, bc := range benchCalls {
					b.Run(bc.call.Name, func(b *testing.B) {
						runCallPair(b, baselineCaller(ctx, c, bc), bridgeCaller(ctx, br, bc))
					})
				}
			})
		}
	})
	b.Run("http", func(b *testing.B) {
		h := mcpserver.NewStreamableHTTPServer(testserver.New(testserver.Options{Exec: true}))
		ts := httptest.NewServer(h)
		b.Cleanup(func() {
			ts.CloseClientConnections()
			ts.Close()
			_ = h.Shutdown(context.Background())
		})
		for _, era := range benchEras {
			b.Run(era.protocol, func(b *testing.B) {
				tr, err := transport.NewStreamableHTTP(ts.URL + "/mcp")
				if err != nil {
					b.Fatalf("NewStreamableHTTP() error: %v", err)
				}
				c := client.NewClient(tr, baselineOptions...)
				startBaseline(b, ctx, c, true, era.version)
				br := benchBridge(b, ctx, ServerConfig{Name: "main", HTTPURL: ts.URL + "/mcp", Timeout: 10 * time.Second, Protocol: era.protocol})
				for _, bc := range benchCalls {
					b.Run(bc.call.Name, func(b *testing.B) {
						runCallPair(b, baselineCaller(ctx, c, bc), bridgeCaller(ctx, br, bc))
					})
				}
			})
		}
	})
	b.Run("inprocess", func(b *testing.B) {
		c, err := client.NewInProcessClient(testserver.New(testserver.Options{Exec: true}))
		if err != nil {
			b.Fatalf("NewInProcessClient() error: %v", err)
		}
		startBaseline(b, ctx, c, true, mcpconn.ProtocolVersion)
		br := benchBridge(b, ctx, stdioServer("main", "-name=main", "-exec"))
		for _, bc := range benchCalls {
			b.Run(bc.call.Name, func(b *testing.B) {
				base := baselineCaller(ctx, c, bc)
				pipeline := benchPipeline(ctx, br, bc)
				// The Bridge side makes the same in-process call, then the
				// Bridge's own work around it.
				runCallPair(b, base, func(b *testing.B) {
					base(b)
					pipeline(b)
				})
			})
		}
	})
}

// benchPipeline returns the Bridge's per-call work on bc with the
// transport taken out: Execute's steps (lookup, restore, encode, validate,
// confirmation, result conversion) and the Bridge's bookkeeping around a
// call (use, ready, the context bounded by the timeout and the Bridge's life), with the server's
// answer made up front as the raw result the server sends.
func benchPipeline(ctx context.Context, br *Bridge, bc benchCall) caller {
	text, err := json.Marshal(bc.want)
	if err != nil {
		panic(err)
	}
	result := json.RawMessage(`{"content":[{"type":"text","text":` + string(text) + `}]}`)
	send := func(ctx context.Context, t *Tool, raw json.RawMessage) (json.RawMessage, bool, error) {
		ctx, cancel, key := br.within(ctx, t.Timeout)
		defer cancel()
		defer br.inLife.Remove(key)
		s, u, err := br.use(ctx, t.Server)
		if err != nil {
			return nil, false, err
		}
		defer br.done(s, u)
		if _, err := br.ready(ctx, s); err != nil {
			return nil, false, err
		}
		return result, false, nil
	}
	return func(b *testing.B) {
		tool, ok := br.Tool(bc.call.Name)
		if !ok {
			b.Fatalf("Tool(%q) not found", bc.call.Name)
		}
		checkResult(b, bc, br.execute(ctx, tool, bc.call, send))
	}
}

// slowServers configures n stdio servers that each answer initialize 200 ms
// after they start.
func slowServers(n int) []ServerConfig {
	out := make([]ServerConfig, n)
	for i := range out {
		name := fmt.Sprintf("slow%02d", i)
		out[i] = stdioServer(name, "-name="+name, "-delay=200ms", "-tools=2")
	}
	return out
}

// discoverOnce discovers servers with a new Bridge and returns how long
// Discover took; closing the Bridge is not counted.
func discoverOnce(b *testing.B, servers []ServerConfig) time.Duration {
	br, err := New(&Config{Servers: servers}, &Options{Logger: quiet()})
	if err != nil {
		b.Fatalf("New() error: %v", err)
	}
	t0 := time.Now()
	err = br.Discover(context.Background())
	d := time.Since(t0)
	if err != nil {
		b.Fatalf("Discover() error: %v", err)
	}
	st := br.Status()
	b.StopTimer()
	for _, s := range st.Servers {
		if s.State != Connected {
			b.Fatalf("server %q: state %v, error %q", s.Name, s.State, s.Error)
		}
	}
	_ = br.Close()
	b.StartTimer()
	return d
}

// rawDiscoverOnce does what discovery needs with mcp-go's own client and
// nothing else: for each server at once, start the process, initialize and
// list the tools; it returns how long that took (closing not counted). It
// is the machine's own cost of starting that many servers in parallel.
func rawDiscoverOnce(b *testing.B, servers []ServerConfig) time.Duration {
	ctx := context.Background()
	clients := make([]*client.Client, len(servers))
	errs := make([]error, len(servers))
	var wg sync.WaitGroup
	t0 := time.Now()
	for i, s := range servers {
		wg.Go(func() {
			c, err := client.NewStdioMCPClientWithOptions(s.Command, nil, s.Args)
			if err != nil {
				errs[i] = err
				return
			}
			clients[i] = c
			req := mcp.InitializeRequest{}
			req.Params.ProtocolVersion = mcpconn.ProtocolVersion
			req.Params.ClientInfo = mcp.Implementation{Name: "baseline", Version: "0"}
			if _, err := c.Initialize(ctx, req); err != nil {
				errs[i] = err
				return
			}
			_, errs[i] = c.ListTools(ctx, mcp.ListToolsRequest{})
		})
	}
	wg.Wait()
	d := time.Since(t0)
	b.StopTimer()
	for _, c := range clients {
		if c != nil {
			_ = c.Close()
		}
	}
	if err := errors.Join(errs...); err != nil {
		b.Fatalf("raw discovery: %v", err)
	}
	b.StartTimer()
	return d
}

// BenchmarkDiscovery discovers 10 and 50 stdio servers that each take 200 ms
// to answer initialize (mcptest -delay=200ms: the process sleeps before it
// reads its stdin), against one such server alone, alternately in one loop.
// It reports the median Discover times as "one-ms" and "many-ms" and their
// ratio as "ratio": 1 is perfectly parallel, 10 (or 50) serial. For
// reference it also starts the same servers with mcp-go's client alone, in
// parallel, without a Bridge ("raw-ms", and "raw-ratio" against one-ms):
// what starting that many processes costs on this machine.
func BenchmarkDiscovery(b *testing.B) {
	for _, n := range []int{10, 50} {
		b.Run(fmt.Sprintf("servers=%d", n), func(b *testing.B) {
			one, many := slowServers(1), slowServers(n)
			var t1, tn, rn []time.Duration
			for b.Loop() {
				t1 = append(t1, discoverOnce(b, one))
				tn = append(tn, discoverOnce(b, many))
				rn = append(rn, rawDiscoverOnce(b, many))
			}
			m1, mn, mr := median(t1), median(tn), median(rn)
			b.ReportMetric(float64(mn)/float64(m1), "ratio")
			b.ReportMetric(float64(mr)/float64(m1), "raw-ratio")
			b.ReportMetric(float64(m1)/1e6, "one-ms")
			b.ReportMetric(float64(mn)/1e6, "many-ms")
			b.ReportMetric(float64(mr)/1e6, "raw-ms")
		})
	}
}

// BenchmarkMemoryPerTool reports the heap a Bridge retains per registered
// tool ("B/tool") after discovering one stdio server with 5,000 tools:
// live heap after GC with the Bridge discovered, minus the live heap before
// it was created, divided by 5,000. The per-Bridge constant (one
// connection) is included, spread over the tools.
func BenchmarkMemoryPerTool(b *testing.B) {
	const n = 5000
	cfg := stdioServer("big", "-name=big", fmt.Sprintf("-tools=%d", n))
	cfg.Trust = true
	var perTool float64
	for b.Loop() {
		before := liveHeap()
		br, err := New(&Config{Servers: []ServerConfig{cfg}}, &Options{Logger: quiet()})
		if err != nil {
			b.Fatalf("New() error: %v", err)
		}
		if err := br.Discover(context.Background()); err != nil {
			b.Fatalf("Discover() error: %v", err)
		}
		after := liveHeap()
		if got := len(br.Tools()); got < n {
			b.Fatalf("Tools() = %d tools, want at least %d", got, n)
		}
		perTool = float64(after-before) / n
		b.StopTimer()
		_ = br.Close()
		b.StartTimer()
	}
	b.ReportMetric(perTool, "B/tool")
}

// liveHeap returns the bytes of live heap objects after a full collection.
func liveHeap() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// benchListing returns n tools spread over servers servers as the
// connection lists them, each with a small realistic input schema (a
// required string, an integer enum, an array of objects, a nested object
// with a format and a default), a third of the names shared between
// servers so that the registry prefixes them.
func benchListing(servers, n int) [][]mcpconn.Tool {
	out := make([][]mcpconn.Tool, servers)
	for i := range n {
		s := i % servers
		name := fmt.Sprintf("tool_%d_%d", s, i)
		if i%3 == 0 {
			name = fmt.Sprintf("shared_%d", i/(3*servers))
		}
		schema := fmt.Sprintf(`{"type":"object","properties":{`+
			`"query":{"type":"string","description":"what to look for in item %d"},`+
			`"limit":{"type":"integer","enum":[10,20,50],"default":10},`+
			`"filters":{"type":"array","items":{"type":"object","properties":{"field":{"type":"string"},"value":{"type":["string","null"]}},"required":["field"]}},`+
			`"options":{"type":"object","properties":{"since":{"type":"string","format":"date-time"},"exact":{"type":"boolean","default":false}},"additionalProperties":false}},`+
			`"required":["query"],"additionalProperties":false}`, i)
		out[s] = append(out[s], mcpconn.Tool{Name: name, Description: "tool number " + name, InputSchema: json.RawMessage(schema)})
	}
	return out
}

// BenchmarkRegisterTools converts and registers 5,000 tools listed by 10
// servers, as discovery does once every server has answered: per server,
// its tools' schemas are converted and the registry recomputes every name
// and rebuilds the tool views. It reports the time per tool as "ns/tool".
func BenchmarkRegisterTools(b *testing.B) {
	for _, n := range []int{1000, 2000, 5000, 10000} {
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			const servers = 10
			listing := benchListing(servers, n)
			cfg := &Config{}
			for s := range servers {
				cfg.Servers = append(cfg.Servers, ServerConfig{Name: fmt.Sprintf("server%d", s), Command: "unused"})
			}
			b.ReportAllocs()
			for b.Loop() {
				br, err := New(cfg, &Options{Logger: quiet()})
				if err != nil {
					b.Fatalf("New() error: %v", err)
				}
				for i, s := range br.servers {
					defs := convertTools(&s.cfg, listing[i], br.schemaOptions(), br.log)
					br.mu.Lock()
					br.setToolsLocked(s, defs, nil)
					br.mu.Unlock()
				}
				if got := len(br.Tools()); got != n {
					b.Fatalf("registered %d tools, want %d", got, n)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/tool")
		})
	}
}
