package mcpconn

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// mcp-go's client decodes results into structs that lose data (inputSchema
// keywords, unknown content blocks). Every transport is therefore wrapped in a
// tap that sees each JSON-RPC response: a request whose context carries a
// capture for its method keeps the raw result bytes. The taps embed the
// concrete transport so that the client's interface checks (HTTPConnection,
// BidirectionalInterface, RequiresLegacyProtocol, connection-lost setter) see
// exactly the method set of the transport underneath.

type captureKey struct{}

// capture holds the raw result of the last request of one method sent with a
// context carrying it.
type capture struct {
	method string
	mu     sync.Mutex
	raw    json.RawMessage
	ok     bool
	// rejected: the server answered with a JSON-RPC error.
	rejected bool
}

// withCapture returns a context whose request of method keeps its raw result.
func withCapture(ctx context.Context, method string) (context.Context, *capture) {
	c := &captureContext{Context: ctx, capture: capture{method: method}}
	return c, &c.capture
}

// captureContext is a context carrying a capture under captureKey, built
// with one allocation (context.WithValue and the capture would take two).
// Every other method and value is its parent's, so cancellation
// propagates exactly as through context.WithValue.
type captureContext struct {
	context.Context
	capture capture
}

func (c *captureContext) Value(key any) any {
	if key == (captureKey{}) {
		return &c.capture
	}
	return c.Context.Value(key)
}

// wasRejected reports whether the server answered with a JSON-RPC error.
func (c *capture) wasRejected() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.rejected
}

// result returns the raw result bytes, if a successful response arrived.
func (c *capture) result() (json.RawMessage, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.raw, c.ok
}

// tapSend forwards req to inner and records the raw result in the context's
// capture when the method matches. A new request of the same method clears
// an earlier result, so only the last response counts.
func tapSend(ctx context.Context, inner transport.Interface, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	req = rewriteRequest(ctx, req)
	c, _ := ctx.Value(captureKey{}).(*capture)
	if c != nil && c.method == req.Method {
		c.mu.Lock()
		c.raw, c.ok, c.rejected = nil, false, false
		c.mu.Unlock()
	}
	resp, err := sendHandshake(ctx, req, func(req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
		return inner.SendRequest(ctx, req)
	})
	if err == nil && resp == nil {
		// mcp-go's client reads the answer without looking: an answer
		// lost inside the transport (seen once over SSE, with 200
		// sessions under the race detector) must be an error, not a
		// panic.
		err = fmt.Errorf("%s: the transport returned no answer and no error", req.Method)
	}
	if req.Method == methodDiscover && err == nil && resp != nil && resp.Error == nil {
		refuseForeignDiscover(resp)
	}
	if c != nil && c.method == req.Method && err == nil && resp != nil && resp.Error != nil {
		c.mu.Lock()
		c.rejected = true
		c.mu.Unlock()
	}
	if c != nil && c.method == req.Method && err == nil && resp != nil && resp.Error == nil {
		c.mu.Lock()
		c.raw, c.ok = resp.Result, true
		c.mu.Unlock()
		resp.Result = forClient(req.Method, resp.Result)
	}
	return resp, err
}

// forClient returns the result of method that mcp-go's client is handed in
// place of raw, the real one, which the capture keeps: for the methods
// whose captured raw result is all we read, a stub. Decoding a whole
// tools/call result into mcp-go's structs costs time on every call (and
// fails on content types mcp-go does not know), only to be thrown away. A
// stub shares no bytes with raw, so the capture owns them.
//
// A tools/call result is stubbed as JSON null, which mcp-go rejects at its
// first look ("content is missing") with 3 allocations, where even an
// empty result it accepts, {"content":[]}, is decoded twice with 18;
// Conn.exchange ignores the decoding error of a request whose raw result
// was captured. A result that asks for input (2026-07-28's multi
// round-trip) is never stubbed: mcp-go must see it to ask the user and
// call again. A tools/list result is stubbed by toolsStub.
func forClient(method string, raw json.RawMessage) json.RawMessage {
	switch method {
	case string(mcp.MethodToolsCall):
		if !needsInput(raw) {
			return json.RawMessage(`null`)
		}
	case string(mcp.MethodToolsList):
		return toolsStub(raw)
	}
	return raw
}

// toolsStub returns the tools/list result mcp-go's client is handed in
// place of raw, which the capture keeps and the Bridge reads. mcp-go
// reads a listing only to remember each tool's definition for the
// x-mcp-header parameters of its later calls (SEP-2243), yet it decodes
// every tool whole and encodes each schema again: on each listing, for
// every user of a server whose lists are each user's own. The stub keeps
// as they are the tools that may carry the annotation (see mayAnnotate)
// and gives each other tool its name and an empty object schema, so that
// a definition mcp-go remembers from an earlier listing is replaced as
// before. An entry that is no object with a string name is left out:
// mcp-go failed on the whole listing for it (which the capture made
// harmless; the Bridge reports it from raw), and now remembers the other
// tools. A result that is not an object with a tools array is handed
// over unchanged.
func toolsStub(raw json.RawMessage) json.RawMessage {
	var page struct {
		Tools []json.RawMessage `json:"tools"`
	}
	if json.Unmarshal(raw, &page) != nil || page.Tools == nil {
		return raw
	}
	out := make([]byte, 0, 16+len(page.Tools)*48)
	out = append(out, `{"tools":[`...)
	n := 0
	for _, t := range page.Tools {
		var tool struct {
			Name json.RawMessage `json:"name"`
		}
		if json.Unmarshal(t, &tool) != nil || len(tool.Name) == 0 || tool.Name[0] != '"' {
			continue
		}
		if n > 0 {
			out = append(out, ',')
		}
		n++
		if mayAnnotate(t) {
			out = append(out, t...)
			continue
		}
		out = append(out, `{"name":`...)
		out = append(out, tool.Name...)
		out = append(out, `,"inputSchema":{"type":"object"}}`...)
	}
	return append(out, "]}"...)
}

type stdioTap struct {
	*transport.Stdio
	in *incoming
}

// Over stdio the ids of both directions share one stream, and a server
// may answer a message it should not: mcp-go's own server answers a late
// reply to a question it gave up (the call it asked for was cancelled)
// as a request without a method, "method not found" under the question's
// id. Servers number their requests from 0 or 1, as mcp-go's client
// does, so that error took the place of the answer to the client's
// request of the same number (TestQuestionBounds failed 1 run in 20 with
// -race: the next tool call got it). The client's requests to a stdio
// server are therefore numbered from stdioIDBase on, as the server sees
// them, and their answers and cancellations translated back and forth.
const stdioIDBase = 1 << 40

// stdioID returns the id a stdio server sees for the client's request id:
// a number moved by stdioIDBase; any other id as it is.
func stdioID(id mcp.RequestId) mcp.RequestId {
	if n, ok := id.Value().(int64); ok && n >= 0 && n < stdioIDBase {
		return mcp.NewRequestId(n + stdioIDBase)
	}
	return id
}

func (t stdioTap) SendRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	id := req.ID
	req.ID = stdioID(id)
	resp, err := tapSend(ctx, t.Stdio, req)
	if resp != nil {
		resp.ID = id
	}
	return resp, err
}

// SendNotification sends n, a cancellation naming the request by the id
// the server saw.
func (t stdioTap) SendNotification(ctx context.Context, n mcp.JSONRPCNotification) error {
	if n.Method == string(mcp.MethodNotificationCancelled) {
		if id, ok := n.Params.AdditionalFields["requestId"].(mcp.RequestId); ok {
			fields := maps.Clone(n.Params.AdditionalFields)
			fields["requestId"] = stdioID(id)
			n.Params.AdditionalFields = fields
		}
	}
	return t.Stdio.SendNotification(ctx, n)
}

// cancelFunc is told about a request whose context ended before its
// answer came (see cancel.go).
type cancelFunc func(req transport.JSONRPCRequest, reason error)

type sseTap struct {
	*transport.SSE
	cancelled cancelFunc
}

func (t sseTap) SendRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	resp, err := tapSend(ctx, t.SSE, req)
	switch {
	case err == nil:
	case ctx.Err() != nil:
		t.cancelled(req, ctx.Err())
	case strings.HasPrefix(err.Error(), sseResponseTimeout):
		// The transport's own timer, set to the context's deadline, may
		// fire first.
		t.cancelled(req, context.DeadlineExceeded)
	}
	return resp, err
}

// sseResponseTimeout begins the error of mcp-go's SSE transport when no
// answer came in time.
const sseResponseTimeout = "timeout waiting for SSE response"

type httpTap struct {
	*transport.StreamableHTTP
	cancelled cancelFunc
	in        *incoming
	log       *slog.Logger
}

// RequiresLegacyProtocol reports false although the transport has
// continuous listening on: mcp-go opens that GET stream only on a legacy
// connection, so the era is still free to be detected.
func (t httpTap) RequiresLegacyProtocol() bool { return false }

func (t httpTap) SendRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	resp, err := tapSend(ctx, t.StreamableHTTP, req)
	if err != nil && ctx.Err() != nil {
		t.cancelled(req, ctx.Err())
	}
	if err == nil && req.Method == string(mcp.MethodToolsList) {
		dropBadHeaderTools(resp, t.log)
	}
	return resp, err
}

// dropBadHeaderTools removes from the tools/list result resp, as mcp-go's
// client will read it, every tool whose x-mcp-header annotations break
// SEP-2243 (see paramHeaderError). mcp-go's client drops them itself on
// 2026-07-28 streamable HTTP, but says so on slog.Default(), the host's;
// the listing the Bridge reads, captured before, reports them as skipped
// (see ListTools), so here they are only noted at debug level.
func dropBadHeaderTools(resp *transport.JSONRPCResponse, log *slog.Logger) {
	if resp == nil || resp.Error != nil || !bytes.Contains(resp.Result, []byte("x-mcp-header")) {
		return
	}
	var page map[string]json.RawMessage
	var list []json.RawMessage
	if json.Unmarshal(resp.Result, &page) != nil || json.Unmarshal(page["tools"], &list) != nil {
		return
	}
	kept := list[:0:0]
	for _, raw := range list {
		var tool struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		if json.Unmarshal(raw, &tool) == nil {
			if err := paramHeaderError(tool.InputSchema); err != nil {
				log.Debug("mcp tool kept from the MCP client", "tool", tool.Name, "err", err)
				continue
			}
		}
		kept = append(kept, raw)
	}
	if len(kept) == len(list) {
		return
	}
	page["tools"], _ = json.Marshal(kept)
	if out, err := json.Marshal(page); err == nil {
		resp.Result = out
	}
}

// asksForInput reports whether raw is a result with resultType
// input_required.
func asksForInput(raw json.RawMessage) bool {
	if !needsInput(raw) {
		return false
	}
	var r struct {
		ResultType string `json:"resultType"`
	}
	return json.Unmarshal(raw, &r) == nil && r.ResultType == "input_required"
}

// needsInput reports whether raw may be a result with resultType
// input_required. It looks for the JSON string only: a false positive
// costs a full decode, never a wrong answer.
func needsInput(raw json.RawMessage) bool {
	return bytes.Contains(raw, []byte(`"input_required"`))
}

const methodDiscover = string(mcp.MethodServerDiscover)

// refuseForeignDiscover turns a server/discover answer that names no
// 2026-07-28 (or later) protocol version mcp-go speaks into the error
// "method not found". mcp-go takes any answer for a 2026-07-28 server,
// even the empty result that some legacy servers give every unknown
// method; such a server then never gets the initialize handshake. With
// the error, mcp-go falls back to the handshake at once.
func refuseForeignDiscover(resp *transport.JSONRPCResponse) {
	var r struct {
		SupportedVersions []string `json:"supportedVersions"`
	}
	if json.Unmarshal(resp.Result, &r) == nil && mcp.IsModernProtocol(mcp.NegotiateMutuallySupportedVersion(r.SupportedVersions)) {
		return
	}
	resp.Result = nil
	resp.Error = &mcp.JSONRPCErrorDetails{
		Code:    mcp.METHOD_NOT_FOUND,
		Message: "server/discover answered without a protocol version of 2026-07-28 or later that mcpbridge speaks",
	}
}
