package mcpbridge

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"

	"google.golang.org/genai"
)

// rejectKey identifies a rejected tool across renames.
type rejectKey struct{ server, tool string }

// declarationRef matches the API's path of one function declaration, as in
// "tools[0].function_declarations[3].parameters" or, in JSON payload
// errors, "tools[0].functionDeclarations[3]".
var declarationRef = regexp.MustCompile(`tools\[(\d+)\]\.function_?[dD]eclarations\[(\d+)\]`)

// declarationName matches a function declaration named in a message:
// `function declaration "x"`, `function declaration 'x'` or
// "function declaration `x`".
var declarationName = regexp.MustCompile("[Ff]unction declaration (?:named )?[\"'`]([A-Za-z_][A-Za-z0-9_.:-]*)[\"'`]")

// badRequest returns the API error of err when it is a 400.
func badRequest(err error) (genai.APIError, bool) {
	var v genai.APIError
	if errors.As(err, &v) && v.Code == http.StatusBadRequest {
		return v, true
	}
	var p *genai.APIError
	if errors.As(err, &p) && p != nil && p.Code == http.StatusBadRequest {
		return *p, true
	}
	return genai.APIError{}, false
}

// blamedDeclarations returns the names of the declarations of tools that
// the message of a 400 points at, by index path or by name, in the order
// they are named and without repeats. tools are the request's tools, as
// sent.
func blamedDeclarations(msg string, tools []*genai.Tool) []string {
	var names []string
	add := func(n string) {
		if n != "" && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	for _, m := range declarationRef.FindAllStringSubmatch(msg, -1) {
		t, err1 := strconv.Atoi(m[1])
		d, err2 := strconv.Atoi(m[2])
		if err1 != nil || err2 != nil || t >= len(tools) || tools[t] == nil || d >= len(tools[t].FunctionDeclarations) {
			continue
		}
		if decl := tools[t].FunctionDeclarations[d]; decl != nil {
			add(decl.Name)
		}
	}
	for _, m := range declarationName.FindAllStringSubmatch(msg, -1) {
		for _, tool := range tools {
			if tool == nil {
				continue
			}
			for _, decl := range tool.FunctionDeclarations {
				if decl != nil && decl.Name == m[1] {
					add(decl.Name)
				}
			}
		}
	}
	return names
}

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

// generate makes one request of Run: it builds the request's declarations,
// sends it, and when the API rejects declarations of Bridge tools, drops
// them and sends it once more.
func (b *Bridge) generate(ctx context.Context, gen ContentGenerator, model string, history []*genai.Content,
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
		resp, err := gen.GenerateContent(ctx, model, history, cfg)
		if err == nil {
			return resp, req, nil
		}
		apiErr, ok := badRequest(err)
		if !ok || attempt > 0 {
			return nil, req, err
		}
		blamed := b.reject(req, blamedDeclarations(apiErr.Message, req.tools), apiErr)
		if len(blamed) == 0 {
			return nil, req, err
		}
		rejected = blamed
	}
}
