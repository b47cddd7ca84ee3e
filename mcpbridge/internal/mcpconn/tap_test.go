package mcpconn

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// TestTapKeepsWhatClientLoses shows why the tap exists: on the same
// connection, mcp-go's decoded tools/list drops the raw schema's top-level
// anyOf and $schema, while ListTools keeps them.
func TestTapKeepsWhatClientLoses(t *testing.T) {
	c := dialT(t, stdioSpec())
	ctx := context.Background()
	res, err := c.client.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatalf("client.ListTools() = %v", err)
	}
	var lossy string
	for _, tool := range res.Tools {
		if tool.Name == "raw" {
			b, err := json.Marshal(tool.InputSchema)
			if err != nil {
				t.Fatal(err)
			}
			lossy = string(b)
		}
	}
	if strings.Contains(lossy, "anyOf") {
		t.Logf("mcp-go kept anyOf (%s); the tap is still needed for exact bytes", lossy)
	}
	tools, err := c.ListTools(ctx)
	if err != nil {
		t.Fatalf("ListTools() = %v", err)
	}
	for _, tool := range tools {
		if tool.Name == "raw" {
			for _, k := range []string{`"anyOf"`, `"$schema"`, `"description"`} {
				if !strings.Contains(string(tool.InputSchema), k) {
					t.Errorf("ListTools() raw schema = %s, want %s", tool.InputSchema, k)
				}
			}
			t.Logf("mcp-go decoded: %s\nraw: %s", lossy, tool.InputSchema)
			return
		}
	}
	t.Fatalf("no raw tool")
}

// TestCaptureMatchesMethod sends requests of several methods over one real
// connection, each context carrying a capture, and checks that a capture
// keeps the raw result of its own method only: other methods pass it by,
// the last request of its method wins, and a failed one clears it.
func TestCaptureMatchesMethod(t *testing.T) {
	c := dialT(t, stdioSpec())
	list := func(ctx context.Context) error {
		_, err := c.client.ListTools(ctx, mcp.ListToolsRequest{})
		return err
	}
	// echo succeeds when mcp-go decoded the result or, with a tools/call
	// capture, when the capture kept it: mcp-go is then handed the stub,
	// which it fails to decode by design (see forClient).
	echo := func(text string) func(context.Context) error {
		return func(ctx context.Context) error {
			req := mcp.CallToolRequest{}
			req.Params.Name, req.Params.Arguments = "echo", map[string]any{"text": text}
			_, err := c.client.CallTool(ctx, req)
			if cp, _ := ctx.Value(captureKey{}).(*capture); err != nil && cp != nil && cp.method == string(mcp.MethodToolsCall) {
				if _, ok := cp.result(); ok {
					return nil
				}
			}
			return err
		}
	}
	// unknown fails with a JSON-RPC error from the server: a tools/call
	// that reached the transport and got no result.
	unknown := func(ctx context.Context) error {
		req := mcp.CallToolRequest{}
		req.Params.Name = "no_such_tool"
		if _, err := c.client.CallTool(ctx, req); err == nil {
			return errors.New("calling an unknown tool succeeded")
		}
		return nil
	}
	tests := []struct {
		name   string
		method string
		sends  []func(context.Context) error
		want   string // a substring of the kept result; "" means none kept
	}{
		{"nothing sent", "tools/list", nil, ""},
		{"its method", "tools/list", []func(context.Context) error{list}, `"tools"`},
		{"other methods pass by", "tools/list", []func(context.Context) error{echo("x")}, ""},
		{"kept across other methods", "tools/list", []func(context.Context) error{list, echo("x")}, `"tools"`},
		{"a capture of another method ignores it", "prompts/list", []func(context.Context) error{list, echo("x")}, ""},
		{"the last request of the method wins", "tools/call", []func(context.Context) error{echo("first"), list, echo("second")}, "second"},
		{"a failed request clears it", "tools/call", []func(context.Context) error{echo("first"), unknown}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cp := withCapture(context.Background(), tt.method)
			if got := ctx.Value(captureKey{}); got != cp {
				t.Fatalf("ctx.Value(captureKey{}) = %v, want the capture", got)
			}
			for i, send := range tt.sends {
				if err := send(ctx); err != nil {
					t.Fatalf("send %d: %v", i, err)
				}
			}
			raw, ok := cp.result()
			switch {
			case tt.want == "" && ok:
				t.Errorf("capture(%s).result() = %s, want none", tt.method, raw)
			case tt.want != "" && !ok:
				t.Errorf("capture(%s).result() = none, want a result containing %s", tt.method, tt.want)
			case tt.want != "" && !strings.Contains(string(raw), tt.want):
				t.Errorf("capture(%s).result() = %s, want it to contain %s", tt.method, raw, tt.want)
			}
			if strings.Contains(string(raw), "first") {
				t.Errorf("capture(%s).result() = %s, kept an earlier request's result", tt.method, raw)
			}
		})
	}
}

// TestCallToolStub shows the tools/call stub at work over a real
// connection: mcp-go is handed a result it refuses at once, while the
// capture, and so Conn.CallTool, has the server's whole result and no
// error.
func TestCallToolStub(t *testing.T) {
	c := dialT(t, stdioSpec())
	args := map[string]any{"text": "hello stub"}
	ctx, cp := withCapture(context.Background(), string(mcp.MethodToolsCall))
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = "echo", args
	if res, err := c.client.CallTool(ctx, req); err == nil {
		t.Errorf("mcp-go CallTool with a capture = %+v, want an error (the stub is not decoded)", res)
	}
	if raw, ok := cp.result(); !ok || !strings.Contains(string(raw), "hello stub") {
		t.Errorf("capture.result() = %s, %v; want the echo result", raw, ok)
	}
	raw, err := c.CallTool(context.Background(), "echo", args)
	if err != nil {
		t.Fatalf("CallTool(echo) = %v", err)
	}
	if !strings.Contains(string(raw), `"content"`) || !strings.Contains(string(raw), "hello stub") {
		t.Errorf("CallTool(echo) = %s, want the server's result with its content", raw)
	}
}

// TestDropBadHeaderTools: a tool with a malformed x-mcp-header annotation
// is kept from mcp-go's client (which would drop it itself, logging to
// slog.Default()) and noted on the connection's logger; the others stay,
// and a page without such a tool is not touched.
func TestDropBadHeaderTools(t *testing.T) {
	good := `{"name":"good","inputSchema":{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"A"}}}}`
	bad := `{"name":"bad","inputSchema":{"type":"object","properties":{"a":{"type":"array","x-mcp-header":"A"}}}}`
	page := `{"tools":[` + good + `,` + bad + `],"nextCursor":"c"}`
	var logged []string
	log := slog.New(slog.NewTextHandler(writerFunc(func(p []byte) { logged = append(logged, string(p)) }), &slog.HandlerOptions{Level: slog.LevelDebug}))
	resp := &transport.JSONRPCResponse{Result: json.RawMessage(page)}
	dropBadHeaderTools(resp, log)
	var got struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
		NextCursor string `json:"nextCursor"`
	}
	if err := json.Unmarshal(resp.Result, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Tools) != 1 || got.Tools[0].Name != "good" || got.NextCursor != "c" {
		t.Errorf("dropBadHeaderTools() left %s, want the good tool and the cursor", resp.Result)
	}
	if len(logged) != 1 || !strings.Contains(logged[0], "tool=bad") {
		t.Errorf("logged %q, want one record naming the bad tool", logged)
	}
	plain := json.RawMessage(`{"tools":[` + good + `]}`)
	resp = &transport.JSONRPCResponse{Result: plain}
	dropBadHeaderTools(resp, log)
	if string(resp.Result) != string(plain) {
		t.Errorf("dropBadHeaderTools() changed a good page to %s", resp.Result)
	}
}

type writerFunc func([]byte)

func (f writerFunc) Write(p []byte) (int, error) { f(p); return len(p), nil }
