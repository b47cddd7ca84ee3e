package mcpbridge

import (
	"cmp"
	"context"
	"fmt"
	"hash/fnv"
	"slices"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/internal/genaitool"
	"github.com/mcpgenai/bridge/mcpbridge/internal/clone"
	"github.com/mcpgenai/bridge/registry"
	"github.com/mcpgenai/bridge/schema"
)

// Selection chooses which of the Bridge's tools each request carries
// (see [Bridge.Declare]). The zero value carries every tool, up to the
// limit.
//
// A tool is a candidate when it passes every criterion that is set:
// Servers, Names and Filter. When the host's functions and the candidates
// together are more than Limit, the candidates are ranked against the
// conversation so far and the best ones fill what the host's functions
// leave; the others are left out of that request (and reported in
// [RequestReport.Omitted]). The host's own functions are always sent. A
// tool that the model calls although it was not sent still runs.
type Selection struct {
	// Servers, if not empty, keeps only the tools of these servers
	// (configured names).
	Servers []string
	// Names, if not empty, keeps only the tools registered under these
	// names.
	Names []string
	// Filter, if not nil, keeps only the tools for which it returns true.
	// It is called once per tool and request, from the goroutine calling
	// Declare; it must not modify the Tool.
	Filter func(t *Tool) bool
	// Limit is the most function declarations one request carries, the
	// host's own included. Zero or a negative value means the API's
	// limit, [schema.Target.MaxDeclarations] of the Bridge's target (512,
	// or 128 for Vertex AI); a limit above the API's is lowered to it.
	Limit int
	// MaxSize is the most bytes of function declarations one request
	// carries (compact JSON, the host's own included; see [Tool.Size] and
	// [schema.Tokens] for a size in tokens). When the candidates do not
	// fit, they are ranked as for Limit and taken best first while they
	// fit; a tool too large for what is left does not keep a smaller,
	// lower ranked one out. The host's functions are sent even when they
	// alone are larger. Zero or a negative value means no size limit.
	MaxSize schema.Size
	// Ranker orders the candidates when they do not all fit. nil means
	// the built-in lexical ranker, which works offline and without a
	// model: Okapi BM25 over the words of each tool's name, description
	// and parameter names (names split at "_", ".", "-" and camelCase;
	// case and a plural "s" ignored; common English words skipped). The
	// latest user message counts three times as much as earlier text; the
	// names of functions already called count too.
	Ranker Ranker
}

// Ranker scores tools against a conversation, for choosing which ones a
// request carries when there are more than it may hold. The built-in
// lexical one (see [Selection.Ranker]) matches words; a ranker built on
// embeddings (genai's EmbedContent, for
// example) can do better.
type Ranker interface {
	// Rank returns one score per tool, in the order of tools: higher
	// means more useful for the conversation's next step. conversation
	// and tools must not be modified. An error makes Declare fall back
	// to the built-in lexical ranker for that request (the error is
	// logged).
	Rank(ctx context.Context, conversation []*genai.Content, tools []*Tool) ([]float64, error)
}

// RequestReport says what one request carried ([Declarations.Report]).
type RequestReport struct {
	// Declared is how many function declarations it carried, the host's
	// included.
	Declared int
	// Size is the size of those declarations together (compact JSON
	// bytes, as in [Tool.Size]).
	Size schema.Size
	// Omitted are the registered names of the candidate tools (see
	// [Selection]) that the limit left out, best ranked first.
	Omitted []string
	// Renamed maps a declared name to the registered name of a Bridge
	// tool that a host function's name displaced for this request.
	Renamed map[string]string
	// Rejected are the tools that the API refused in this request; the
	// request was sent again without them (see [DroppedTool]). Declare
	// leaves it empty: the loop that healed the request (see
	// [Declarations.Heal]) fills it in the report of the request it sent
	// again, as the agent package does.
	Rejected []DroppedTool
	// ServerSide are the servers the request let the Gemini API call
	// itself (see [Options.ServerSideMCP]), in configuration order.
	ServerSide []string
}

// limit returns the effective declaration limit of sel for the Bridge.
func (b *Bridge) limit(sel *Selection) int {
	api := b.target.MaxDeclarations()
	if sel == nil || sel.Limit <= 0 || sel.Limit > api {
		return api
	}
	return sel.Limit
}

// declare chooses and declares the tools of one request (see
// [Bridge.Declare]): the host's declarations first, in their order, then
// the chosen Bridge tools sorted by name, all in one genai.Tool after the
// host's other tools. Every declaration is a copy. serverSide false
// bridges every server, whatever Options.ServerSideMCP says (for Live
// sessions). It fails when the host's own declarations are more than the
// limit.
func (b *Bridge) declare(ctx context.Context, history []*genai.Content, tools []*genai.Tool,
	h *hostSet, sel *Selection, serverSide bool) (*Declarations, error) {
	limit := b.limit(sel)
	if len(h.decls) > limit {
		return nil, fmt.Errorf("%w: the host declares %d functions, at most %d fit in one request", ErrTooManyTools, len(h.decls), limit)
	}
	var remote map[string]bool
	var remoteTool *genai.Tool
	if serverSide {
		remote, remoteTool = b.serverSideTools()
	}
	cands := b.candidates(ctx, sel)
	if len(remote) > 0 {
		cands = slices.DeleteFunc(cands, func(t *Tool) bool { return remote[t.Server] })
	}
	room := limit - len(h.decls)
	var hostSize schema.Size
	for _, d := range h.decls {
		hostSize += declarationSize(d)
	}
	req := &Declarations{b: b, hosts: h, mcp: make(map[string]*Tool, min(len(cands), room))}
	if len(cands) > room || overSize(sel, hostSize, cands) {
		chosen, omitted := b.rank(ctx, history, cands, room, max(sel.maxSize()-hostSize, 0), sel)
		cands = chosen
		req.Report.Omitted = omitted
		slices.SortFunc(cands, func(a, b *Tool) int { return cmp.Compare(a.Name, b.Name) })
	}
	req.Report.Size = hostSize
	for _, t := range cands {
		req.Report.Size += t.Size
	}

	decls := make([]*genai.FunctionDeclaration, 0, len(h.decls)+len(cands))
	for _, d := range h.decls {
		decls = append(decls, clone.Declaration(d))
	}
	var taken map[string]bool // every name in use, built on the first conflict
	for _, t := range cands {
		name := t.Name
		if h.has(name) {
			if taken == nil {
				taken = b.namesInUse(ctx, h)
			}
			name = aliasFor(t, taken)
			taken[name] = true
			if req.Report.Renamed == nil {
				req.Report.Renamed = map[string]string{}
			}
			req.Report.Renamed[name] = t.Name
		}
		d := clone.Declaration(t.Declaration)
		d.Name = name
		decls = append(decls, d)
		req.mcp[name] = t
	}
	for _, t := range tools {
		if t == nil {
			continue
		}
		if len(t.FunctionDeclarations) == 0 {
			req.Tools = append(req.Tools, t)
			continue
		}
		if !genaitool.OnlyFunctions(t) {
			rest := *t
			rest.FunctionDeclarations = nil
			req.Tools = append(req.Tools, &rest)
		}
	}
	if len(decls) > 0 {
		req.Tools = append(req.Tools, &genai.Tool{FunctionDeclarations: decls})
	}
	if remoteTool != nil {
		req.Tools = append(req.Tools, remoteTool)
		for _, m := range remoteTool.MCPServers {
			req.Report.ServerSide = append(req.Report.ServerSide, m.Name)
		}
	}
	req.Report.Declared = len(decls)
	return req, nil
}

// aliasFor returns the name t is declared under when a host function has
// its registered name: "server__tool" sanitized, or, when that is taken
// too, a name with a short stable hash of the server and tool.
func aliasFor(t *Tool, taken map[string]bool) string {
	name := registry.SanitizeName(t.Server + "__" + t.ServerTool)
	if !taken[name] {
		return name
	}
	h := fnv.New32a()
	h.Write([]byte(t.Server + "\x00" + t.ServerTool))
	suffix := fmt.Sprintf("_%08x", h.Sum32())
	base := name
	if len(base)+len(suffix) > registry.MaxNameLen {
		base = base[:registry.MaxNameLen-len(suffix)]
	}
	name = base + suffix
	for i := 2; taken[name]; i++ {
		name = fmt.Sprintf("%s%d", base[:len(base)-len(fmt.Sprint(i))], i) + suffix
	}
	return name
}

// namesInUse returns the host's names and every registered name, so that
// an alias never hides another tool.
func (b *Bridge) namesInUse(ctx context.Context, h *hostSet) map[string]bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	tools := b.viewLocked(b.users[UserOf(ctx)]).tools
	taken := make(map[string]bool, len(h.decls)+len(tools))
	for _, d := range h.decls {
		taken[d.Name] = true
	}
	for n := range tools {
		taken[n] = true
	}
	return taken
}

// candidates returns the registered tools that sel keeps and the API has
// not rejected, sorted by name.
func (b *Bridge) candidates(ctx context.Context, sel *Selection) []*Tool {
	b.mu.Lock()
	all := slices.Clone(b.viewLocked(b.users[UserOf(ctx)]).sorted)
	var out []*Tool
	for _, t := range all {
		if b.isRejectedLocked(t) {
			continue
		}
		out = append(out, t)
	}
	b.mu.Unlock()
	if sel == nil || (len(sel.Servers) == 0 && len(sel.Names) == 0 && sel.Filter == nil) {
		return out
	}
	kept := out[:0]
	for _, t := range out {
		if len(sel.Servers) > 0 && !slices.Contains(sel.Servers, t.Server) {
			continue
		}
		if len(sel.Names) > 0 && !slices.Contains(sel.Names, t.Name) {
			continue
		}
		if sel.Filter != nil && !sel.Filter(t) {
			continue
		}
		kept = append(kept, t)
	}
	return kept
}

// maxSize is sel's MaxSize, 0 for none.
func (sel *Selection) maxSize() schema.Size {
	if sel == nil || sel.MaxSize <= 0 {
		return 0
	}
	return sel.MaxSize
}

// overSize reports whether the host's declarations (hostSize) and every
// candidate's together pass sel's MaxSize.
func overSize(sel *Selection, hostSize schema.Size, cands []*Tool) bool {
	limit := sel.maxSize()
	if limit == 0 {
		return false
	}
	total := hostSize
	for _, t := range cands {
		total += t.Size
	}
	return total > limit
}

// rank returns the n best of cands for history and the names of the rest,
// best first; with size > 0 (Selection.MaxSize less the host's share), of
// those n the best ones whose declarations fit in size. Ties keep the
// order of cands.
func (b *Bridge) rank(ctx context.Context, history []*genai.Content, cands []*Tool, n int, size schema.Size, sel *Selection) (chosen []*Tool, omitted []string) {
	var r Ranker = lexicalRanker{}
	if sel != nil && sel.Ranker != nil {
		r = sel.Ranker
	}
	scores, err := r.Rank(ctx, history, cands)
	if err == nil && len(scores) != len(cands) {
		err = fmt.Errorf("%d scores for %d tools", len(scores), len(cands))
	}
	if err != nil {
		b.log.Warn("tool ranker failed; ranking lexically", "err", err)
		scores, _ = lexicalRanker{}.Rank(ctx, history, cands)
	}
	order := make([]int, len(cands))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int { return cmp.Compare(scores[j], scores[i]) })
	n = min(n, len(order))
	kept := order[:n]
	if sel.maxSize() > 0 {
		kept, _ = fitSize(cands, kept, size)
	}
	in := make(map[int]bool, len(kept))
	chosen = make([]*Tool, 0, len(kept))
	for _, i := range kept {
		chosen = append(chosen, cands[i])
		in[i] = true
	}
	omitted = make([]string, 0, len(cands)-len(kept))
	for _, i := range order {
		if !in[i] {
			omitted = append(omitted, cands[i].Name)
		}
	}
	return chosen, omitted
}
