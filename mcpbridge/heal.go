package mcpbridge

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/mcpbridge/internal/blame"
)

// rejectKey identifies a rejected tool across renames.
type rejectKey struct{ server, tool string }

// reject drops the tools among names that req declared for MCP tools, for
// the Bridge's lifetime, and reports each one. It returns the rejected
// tools; none means the 400 blamed only the host's declarations (or
// nothing the Bridge sent), which cannot be healed.
func (b *Bridge) reject(req *request, names []string, apiErr genai.APIError) []DroppedTool {
	var out []DroppedTool
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, n := range names {
		t := req.mcp[n]
		if t == nil {
			continue
		}
		k := rejectKey{t.Server, t.ServerTool}
		if b.rejected == nil {
			b.rejected = map[rejectKey]DroppedTool{}
		}
		if _, dup := b.rejected[k]; dup {
			continue
		}
		rt := DroppedTool{Server: t.Server, ServerTool: t.ServerTool, Name: n, Reason: apiErr.Message}
		b.rejected[k] = rt
		out = append(out, rt)
		b.log.Warn("mcp tool dropped: the Gemini API rejected its declaration",
			"server", t.Server, "tool", t.ServerTool, "name", n, "err", apiErr.Message)
		b.emitLocked(Event{Kind: EventToolDropped, Server: t.Server, ServerTool: t.ServerTool,
			Err: fmt.Errorf("the Gemini API rejected the declaration of %q: %w", n, apiErr)})
	}
	return out
}

// isRejected reports whether t was rejected by the API. The caller holds
// b.mu.
func (b *Bridge) isRejectedLocked(t *Tool) bool {
	_, ok := b.rejected[rejectKey{t.Server, t.ServerTool}]
	return ok
}

// rejectedOf returns the rejected tools of server, sorted by tool. The
// caller holds b.mu.
func (b *Bridge) rejectedLocked(server string) []DroppedTool {
	var out []DroppedTool
	for k, rt := range b.rejected {
		if k.server == server {
			out = append(out, rt)
		}
	}
	slices.SortFunc(out, func(a, b DroppedTool) int {
		switch {
		case a.ServerTool < b.ServerTool:
			return -1
		case a.ServerTool > b.ServerTool:
			return 1
		}
		return 0
	})
	return out
}

// sendRequest sends one request with config (its Tools already chosen)
// and returns the model's answer: GenerateContent for Run, a stream for
// RunStream.
type sendRequest func(ctx context.Context, config *genai.GenerateContentConfig) (*genai.GenerateContentResponse, error)

// midStreamError is an error of a stream that already delivered chunks: it
// is never healed, since the caller has seen part of the answer.
type midStreamError struct{ err error }

func (e *midStreamError) Error() string { return e.err.Error() }
func (e *midStreamError) Unwrap() error { return e.err }

// generate makes one request of Run or RunStream: it builds the request's
// declarations, sends it, and when the API rejects declarations of Bridge
// tools, drops them and sends it once more.
func (b *Bridge) generate(ctx context.Context, send sendRequest, history []*genai.Content,
	config *genai.GenerateContentConfig, h *hostSet, sel *Selection, turn int) (*genai.GenerateContentResponse, *request, error) {
	var rejected []DroppedTool
	for attempt := 0; ; attempt++ {
		req, err := b.buildRequest(ctx, history, config, h, sel)
		if err != nil {
			return nil, nil, err
		}
		req.report.Turn, req.report.Rejected = turn, rejected
		cfg := &genai.GenerateContentConfig{}
		if config != nil {
			*cfg = *config
		}
		cfg.Tools = req.tools
		resp, err := send(ctx, cfg)
		if err == nil {
			return resp, req, nil
		}
		var mid *midStreamError
		apiErr, ok := blame.BadRequest(err)
		if !ok || attempt > 0 || errors.As(err, &mid) {
			return nil, req, err
		}
		blamed := b.reject(req, blame.Declarations(apiErr.Message, req.tools), apiErr)
		if len(blamed) == 0 {
			return nil, req, err
		}
		rejected = blamed
	}
}
