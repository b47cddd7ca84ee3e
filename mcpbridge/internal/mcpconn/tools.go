package mcpconn

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"go.opentelemetry.io/otel/attribute"

	"github.com/mcpgenai/bridge/confirm"
)

// MaxPages bounds how many pages one list reads.
const MaxPages = 10000

// Tool is one tool as the server described it, decoded from the raw
// tools/list JSON.
type Tool struct {
	Name        string
	Title       string
	Description string
	// InputSchema holds the exact bytes of the tool's inputSchema (nil when
	// absent). Nothing was decoded or dropped.
	InputSchema json.RawMessage
	// OutputSchema holds the exact bytes of outputSchema, if any.
	OutputSchema json.RawMessage
	Annotations  Annotations
	// Icons holds the exact bytes of the tool's icons, if any.
	Icons json.RawMessage
	// TaskSupport is the tool's execution.taskSupport: "optional" or
	// "required" when the tool may run as a task (see [CallTask]); ""
	// otherwise.
	TaskSupport string
	// Raw is the tool's whole JSON object.
	Raw json.RawMessage
}

// Annotations are the tool's behaviour hints; nil means not given. They are
// the confirmation policy's own type, so that the hints reach it as read.
type Annotations = confirm.Annotations

// SkippedTool is a tool the server listed that ListTools left out.
type SkippedTool struct {
	Name   string `json:"name"`   // "" when the tool had no name
	Reason string `json:"reason"` // why, e.g. "schema nests deeper than 2000 levels"
}

// ListTools reads tools/list page by page until the last cursor, each page
// within the spec's Timeout. A cursor seen twice or more than MaxPages pages
// is an error. Tools without a name, and tools whose JSON nested deeper than
// MaxDepth, are skipped; a name listed again is kept once (the first); all
// three are logged and, after a successful listing, reported by Skipped.
func (c *Conn) ListTools(ctx context.Context) ([]Tool, error) {
	tools, _, err := c.listTools(ctx, false)
	return tools, err
}

// listTools is ListTools. A second reading (again, see [Conn.recheck]) returns
// the digest of the listed items and neither logs nor records the skipped
// tools; a first reading that may predate the subscription has its digest
// recorded for the second.
func (c *Conn) listTools(ctx context.Context, again bool) ([]Tool, digest, error) {
	early := !again && c.early()
	sum := newListSum(early || again)
	var tools []Tool
	var skipped []SkippedTool
	skip := func(name, reason string) {
		skipped = append(skipped, SkippedTool{Name: name, Reason: reason})
		if !again {
			c.log.Warn("mcp server listed a tool mcpbridge cannot use; skipped", "tool", name, "reason", reason)
		}
	}
	seenName := map[string]bool{}
	headers := c.headerRulesApply()
	hint := cacheHint{at: time.Now(), ttl: -1, public: true}
	err := c.pages(ctx, string(mcp.MethodToolsList), func(rctx context.Context, cursor string) error {
		req := mcp.ListToolsRequest{}
		req.Params.Cursor = mcp.Cursor(cursor)
		_, err := c.client.ListToolsByPage(rctx, req)
		return err
	}, func(raw json.RawMessage) (string, error) {
		var page struct {
			Tools      []json.RawMessage `json:"tools"`
			NextCursor string            `json:"nextCursor"`
			TTLMs      json.RawMessage   `json:"ttlMs"`
			CacheScope json.RawMessage   `json:"cacheScope"`
		}
		if err := json.Unmarshal(raw, &page); err != nil {
			return "", fmt.Errorf("decode tools/list result: %w", err)
		}
		hint.add(page.TTLMs, page.CacheScope)
		for _, r := range page.Tools {
			sum.add(r)
			if name, deep := tooDeep(r); deep {
				skip(name, fmt.Sprintf("schema nests deeper than %d levels", MaxDepth))
				continue
			}
			t, err := decodeTool(r)
			switch {
			case err != nil:
				skip(entryName(r), "not a tool object")
				continue
			case t.Name == "":
				skip("", "no name")
				continue
			case seenName[t.Name]:
				skip(t.Name, "listed twice; the first kept")
				continue
			}
			seenName[t.Name] = true
			if headers {
				if err := paramHeaderError(t.InputSchema); err != nil {
					skip(t.Name, err.Error())
					continue
				}
			}
			tools = append(tools, t)
		}
		return page.NextCursor, nil
	})
	if err != nil {
		return nil, digest{}, err
	}
	if again {
		return tools, sum.sum(), nil
	}
	c.mu.Lock()
	c.skipped = skipped
	c.toolsHint = hint
	c.mu.Unlock()
	if early {
		c.recheck(toolsList, sum.sum())
	}
	return tools, digest{}, nil
}

// Skipped returns the tools the last successful ListTools left out, in the
// order listed; nil when none.
func (c *Conn) Skipped() []SkippedTool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.skipped)
}

// tooDeep reports whether raw is an entry the stdio guard replaced because
// it nested too deeply, and its name.
func tooDeep(raw json.RawMessage) (string, bool) {
	if !bytes.Contains(raw, []byte(TooDeepKey)) {
		return "", false
	}
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil || m[TooDeepKey] != true || len(m) != 2 {
		return "", false
	}
	name, _ := m["name"].(string)
	return name, true
}

func decodeTool(raw json.RawMessage) (Tool, error) {
	var w struct {
		Name         string          `json:"name"`
		Title        string          `json:"title"`
		Description  string          `json:"description"`
		InputSchema  json.RawMessage `json:"inputSchema"`
		OutputSchema json.RawMessage `json:"outputSchema"`
		Annotations  json.RawMessage `json:"annotations"`
		Icons        json.RawMessage `json:"icons"`
		Execution    json.RawMessage `json:"execution"`
	}
	if err := json.Unmarshal(raw, &w); err != nil {
		return Tool{}, err
	}
	t := Tool{Name: w.Name, Title: w.Title, Description: w.Description, InputSchema: w.InputSchema, OutputSchema: w.OutputSchema, Icons: w.Icons, Raw: raw}
	t.Annotations = decodeAnnotations(w.Annotations)
	t.TaskSupport = decodeTaskSupport(w.Execution)
	return t, nil
}

// decodeTaskSupport reads execution.taskSupport: "optional" or "required",
// and "" for anything else (absent, "forbidden", badly typed).
func decodeTaskSupport(raw json.RawMessage) string {
	var e struct {
		TaskSupport any `json:"taskSupport"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &e) != nil {
		return ""
	}
	switch s, _ := e.TaskSupport.(string); s {
	case "optional", "required":
		return s
	}
	return ""
}

// decodeAnnotations reads the hints one by one: a badly typed hint is
// dropped (nil), not fatal, and does not affect the others.
func decodeAnnotations(raw json.RawMessage) Annotations {
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil {
		return Annotations{}
	}
	hint := func(k string) *bool {
		var b bool
		if v, ok := fields[k]; ok && json.Unmarshal(v, &b) == nil && string(v) != "null" {
			return &b
		}
		return nil
	}
	var a Annotations
	_ = json.Unmarshal(fields["title"], &a.Title)
	a.ReadOnlyHint = hint("readOnlyHint")
	a.DestructiveHint = hint("destructiveHint")
	a.IdempotentHint = hint("idempotentHint")
	a.OpenWorldHint = hint("openWorldHint")
	return a
}

// ListResources reads resources/list page by page and returns each
// resource's raw JSON object.
func (c *Conn) ListResources(ctx context.Context) ([]json.RawMessage, error) {
	return c.resourcePages(ctx, string(mcp.MethodResourcesList), "resources")
}

// resourcePages reads a list sent as resources/list (method, when the
// context renames it; see renameKey) page by page and returns the raw
// items under key of every page.
func (c *Conn) resourcePages(ctx context.Context, method, key string) ([]json.RawMessage, error) {
	var out []json.RawMessage
	err := c.pages(ctx, method, func(rctx context.Context, cursor string) error {
		req := mcp.ListResourcesRequest{}
		req.Params.Cursor = mcp.Cursor(cursor)
		_, err := c.client.ListResourcesByPage(rctx, req)
		return err
	}, func(raw json.RawMessage) (string, error) {
		var page map[string]json.RawMessage
		if err := json.Unmarshal(raw, &page); err != nil {
			return "", fmt.Errorf("decode %s result: %w", method, err)
		}
		var items []json.RawMessage
		if v, ok := page[key]; ok && string(v) != "null" {
			if err := json.Unmarshal(v, &items); err != nil {
				return "", fmt.Errorf("decode %s result: %s: %w", method, key, err)
			}
		}
		var next string
		if v, ok := page["nextCursor"]; ok && string(v) != "null" {
			if err := json.Unmarshal(v, &next); err != nil {
				return "", fmt.Errorf("decode %s result: nextCursor: %w", method, err)
			}
		}
		out = append(out, items...)
		return next, nil
	})
	return out, err
}

// pages runs one list method page by page: send sends a page request (its
// decoded result is ignored), take reads the raw page and returns the next
// cursor.
func (c *Conn) pages(ctx context.Context, method string, send func(context.Context, string) error, take func(json.RawMessage) (string, error)) error {
	seen := map[string]bool{"": true}
	cursor := ""
	for range MaxPages {
		raw, err := c.request(ctx, method, noTarget, ownCtx{}, func(rctx context.Context) error { return send(rctx, cursor) })
		if err != nil {
			return err
		}
		next, err := take(raw)
		if err != nil {
			return c.wrap(method, err)
		}
		if next == "" {
			return nil
		}
		if seen[next] {
			return c.wrap(method, fmt.Errorf("cursor %q repeated", next))
		}
		seen[next] = true
		cursor = next
	}
	return c.wrap(method, fmt.Errorf("more than %d pages", MaxPages))
}

// CallTool calls the tool name (the server's own name) with args (anything
// that marshals to a JSON object, or nil) and returns the raw CallToolResult
// JSON, content blocks untouched. A result with isError is not an error
// here. The call is bounded by ctx and Timeout; when either ends first,
// the call returns at once and the server is told (notifications/cancelled,
// or on 2026-07-28 streamable HTTP the end of the request's stream). A ctx
// from [WithProgress] sends a progress token and receives the server's
// progress; while progress keeps coming, Timeout counts from the last
// report instead of the start, and MaxCallTime bounds the whole call. On
// 2026-07-28 the server may answer with a task, which is then waited out
// as [Conn.CallTask] says (Timeout bounds the tools/call itself).
func (c *Conn) CallTool(ctx context.Context, name string, args any) (json.RawMessage, error) {
	return c.callTool(ctx, nil, name, args, false)
}

// CallToolIn is CallTool within ctx that the caller can end with cancel
// (the CancelFunc of ctx or of a context ctx derives from). When ctx's
// deadline already comes within Timeout, the call runs in ctx itself, and
// the connection ends it through cancel if it dies, instead of deriving a
// context of its own for Timeout and its death: one cancellable context
// less per call. Otherwise (or when cancel is nil) it is CallTool. The
// caller must not rely on ctx surviving the death of the connection.
func (c *Conn) CallToolIn(ctx context.Context, cancel context.CancelFunc, name string, args any) (json.RawMessage, error) {
	return c.callTool(ctx, cancel, name, args, false)
}

// callTool is CallToolIn; task asks for a task (see [Conn.CallTask]).
func (c *Conn) callTool(ctx context.Context, cancel context.CancelFunc, name string, args any, task bool) (json.RawMessage, error) {
	ctx, endAsking := c.beginAsking(ctx)
	defer endAsking()
	raw, err := c.callToolAsking(ctx, cancel, name, args, task)
	if err != nil {
		if qe := questionCause(ctx); qe != nil {
			return nil, c.wrap(string(mcp.MethodToolsCall), qe)
		}
	}
	return raw, err
}

// callToolAsking is callTool within the count of its questions.
func (c *Conn) callToolAsking(ctx context.Context, cancel context.CancelFunc, name string, args any, task bool) (json.RawMessage, error) {
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	w, token, done := c.askProgress(ctx)
	defer done()
	if token != "" {
		req.Params.Meta = &mcp.Meta{ProgressToken: token}
	}
	task = task && c.offersTasks()
	// On 2026-07-28 the server may answer any call with a task.
	mayBeTask := task || IsModern(c.init.ProtocolVersion)
	own := ownCtx{cancel: cancel}
	callCtx, stop := ctx, func() {}
	switch {
	case task:
		// The server keeps the task a while past our own bound, so that
		// its end or its cancellation never races its deletion.
		ttl := (c.spec.maxCallTime() + taskGrace).Milliseconds()
		req.Params.Task = &mcp.TaskParams{TTL: &ttl}
	case w != nil || c.spec.asksHost():
		k := c.keepAlive(ctx, w)
		stop = k.stop
		callCtx, own = k.ctx, ownCtx{cancel: k.end, kept: true}
	}
	raw, err := c.request(callCtx, string(mcp.MethodToolsCall), attribute.String(attrToolName, name), own, func(rctx context.Context) error {
		_, err := c.client.CallTool(rctx, req)
		return err
	})
	stop()
	if err != nil || !mayBeTask {
		return raw, err
	}
	return c.awaitTask(ctx, w, raw)
}

// ReadResource reads one resource and returns the raw ReadResourceResult.
func (c *Conn) ReadResource(ctx context.Context, uri string) (json.RawMessage, error) {
	req := mcp.ReadResourceRequest{}
	req.Params.URI = uri
	return c.request(ctx, string(mcp.MethodResourcesRead), noTarget, ownCtx{}, func(rctx context.Context) error {
		_, err := c.client.ReadResource(rctx, req)
		return err
	})
}

// ownCtx says whether a request runs in its caller's context rather than
// one it derives for Timeout and the connection's death (see
// [Conn.CallToolIn]).
type ownCtx struct {
	// cancel ends the caller's ctx; nil: the request derives its own.
	cancel context.CancelFunc
	// kept: the caller bounds the request itself (progress keeps it
	// alive past Timeout), and cancel ends ctx.
	kept bool
}

// exchange sends one request through send within Timeout and returns its
// raw result. When the server answered, mcp-go's decoding errors are ignored:
// the raw bytes are what counts. own says whether ctx is used as is (see
// [ownCtx]). A JSON-RPC error from the server is an error for which
// IsRejected reports true.
func (c *Conn) exchange(ctx context.Context, method string, own ownCtx, send func(context.Context) error) (json.RawMessage, error) {
	if err := c.unsendable(ctx); err != nil {
		return nil, c.wrap(method, err)
	}
	rctx, cancel := ctx, own.cancel
	if dl, ok := ctx.Deadline(); !own.kept && (cancel == nil || !ok || dl.After(time.Now().Add(c.spec.timeout()))) {
		rctx, cancel = context.WithTimeout(ctx, c.spec.timeout())
		defer cancel()
	}
	// Requests end when the connection dies, not only at their deadline.
	defer c.calls.Remove(c.calls.Add(cancel))
	rctx, cp := withCapture(rctx, method)
	err := send(rctx)
	// A result that still asks for input is not the answer: mcp-go failed
	// to get one (the host's handler failed, too many rounds), and err says
	// why.
	if raw, ok := cp.result(); ok && (err == nil || !asksForInput(raw)) {
		if err := unexpectedTask(method, raw); err != nil {
			return nil, c.wrap(method, err)
		}
		return raw, nil
	}
	if err == nil {
		err = errors.New("no result")
	}
	if dl, ok := rctx.Deadline(); ok && time.Until(dl) < 50*time.Millisecond {
		// A transport's own timer (SSE) may fire just before the deadline:
		// let the context catch up so the error says which limit was hit.
		<-rctx.Done()
	}
	if derr := c.Err(); derr != nil {
		return nil, c.wrap(method, fmt.Errorf("%w (%w)", derr, err))
	}
	if cp.wasRejected() {
		err = rejectedError{err}
	}
	switch {
	case ctx.Err() != nil:
		// Some transports report their own timeout error: keep ctx's
		// (for a call kept alive by progress, why it ended).
		why := ctx.Err()
		if own.kept {
			why = context.Cause(ctx)
		}
		if !errors.Is(err, why) {
			err = fmt.Errorf("%w: %w", why, err)
		}
	case rctx.Err() != nil:
		err = fmt.Errorf("timed out after %v: %w", c.spec.timeout(), err)
	case c.kind != Stdio && lostServer(err):
		c.die(err)
	}
	return nil, c.wrap(method, err)
}

// lostServer reports whether an HTTP request failed because the server is
// gone (refused connection, forgotten session) rather than for this request.
func lostServer(err error) bool {
	var ue *url.Error
	return errors.As(err, &ue) || errors.Is(err, transport.ErrSessionTerminated)
}

func (c *Conn) wrap(method string, err error) error {
	return fmt.Errorf("mcp server %q: %s: %w", c.spec.Name, method, err)
}

// ErrNotSent is wrapped by the error of a request that was never sent
// because the connection was already dead (or closed): the server cannot
// have acted on it, so the caller may send it again on a new connection.
var ErrNotSent = errors.New("request not sent")

// unsendable returns nil when a request may be sent, and otherwise why not,
// wrapping [ErrNotSent]. A stdio server whose stdout has ended or whose
// process has exited is dying even when watchProc has not recorded it yet
// (it waits for the last output); the request waits for that, within
// ctx, so that its error says how the server ended.
func (c *Conn) unsendable(ctx context.Context) error {
	if c.proc != nil && c.Err() == nil && (isClosed(c.proc.outEOF) || isClosed(c.proc.exited)) {
		select {
		case <-c.dead:
		case <-ctx.Done():
		case <-time.After(2 * time.Second):
			c.die(errors.New("server closed its stdout"))
		}
	}
	if err := c.Err(); err != nil {
		return fmt.Errorf("%w: %w", ErrNotSent, err)
	}
	return nil
}

// isClosed reports whether ch is closed.
func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
