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
	"github.com/mcpgenai/bridge/mcpbridge/rank"
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
	// Ranker orders the candidates when they do not all fit, ranking
	// each tool's [Tool.RankDocument] for the conversation's
	// [rank.ConversationQuery] (and, in tool search, the model's query:
	// see [ToolSearch]). nil means the built-in [rank.Lexical], which works
	// offline and without a model. An error, or a ranking of another
	// length, makes Declare rank with rank.Lexical for that request (the
	// error is logged).
	Ranker rank.Ranker
	// Search, if not nil, turns on tool search (see [ToolSearch]): the
	// requests declare a search function and the tools the model found
	// with it, instead of the candidates; the Ranker ranks them for the
	// model's queries. nil means no search.
	Search *ToolSearch
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
	// Ranked are the Bridge tools the request carries, when the
	// candidates were ranked because they did not all fit (nil when they
	// all did): best first, each with its registered name, its score and
	// its place in the ranking of every candidate (tied tools share a
	// Place; Index is the tool's position among the candidates sorted by
	// name). A Score of 0 means the tool matched nothing in the
	// conversation: it only filled the room left, in the order of names.
	Ranked []rank.Entry
	// SearchFunction is the name the request declares the search function
	// under (see [ToolSearch]), "" when it has no tool search.
	SearchFunction string
	// Found are the declared names of the tools the conversation found
	// with the search function that the request declares, in the order
	// they were found (and declared).
	Found []string
	// Evicted are the declared names of the tools the conversation found
	// that the request no longer declares because more were found since
	// (see [ToolSearch.MaxFound]), in the order they left.
	Evicted []string
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
// the chosen Bridge tools sorted by name (or, with tool search, the search
// function and the tools found), all in one genai.Tool after the host's
// other tools. Every declaration is a copy. serverSide false
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
	decls := make([]*genai.FunctionDeclaration, 0, len(h.decls)+min(len(cands), room))
	for _, d := range h.decls {
		decls = append(decls, clone.Declaration(d))
	}
	req.Report.Size = hostSize
	declared := func(name string, t *Tool) {
		d := clone.Declaration(t.Declaration)
		d.Name = name
		decls = append(decls, d)
		req.mcp[name] = t
		req.Report.Size += t.Size
	}
	if s := sel.search(); s.on(cands) && room > 0 {
		// Tool search: the search function, then what the conversation
		// found, in the order found.
		f := &searchFunc{b: b, name: b.searchName(s, h), sel: sel, cands: cands, n: s.results()}
		f.names = b.declaredNames(ctx, h, cands, f.name)
		byName := make(map[string]*Tool, len(cands))
		for t, n := range f.names {
			byName[n] = t
		}
		sd := f.declaration()
		decls = append(decls, sd)
		req.Report.Size += declarationSize(sd)
		var sizeRoom schema.Size
		if sel.maxSize() > 0 {
			sizeRoom = max(sel.maxSize()-req.Report.Size, 1)
		}
		found, evicted := foundTools(history, f.name, byName, min(s.maxFound(), room-1), sizeRoom)
		for _, n := range found {
			declared(n, byName[n])
		}
		req.search = f
		req.Report.SearchFunction, req.Report.Found, req.Report.Evicted = f.name, found, evicted
	} else {
		if len(cands) > room || overSize(sel, hostSize, cands) {
			chosen, omitted := b.rank(ctx, history, cands, room, max(sel.maxSize()-hostSize, 0), sel)
			kept := make([]*Tool, len(chosen))
			for i, e := range chosen {
				kept[i] = cands[e.Index]
			}
			cands = kept
			req.Report.Omitted, req.Report.Ranked = omitted, chosen
			slices.SortFunc(cands, func(a, b *Tool) int { return cmp.Compare(a.Name, b.Name) })
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
			declared(name, t)
		}
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

// declaredNames returns the name each of cands is declared under: its
// registered name, or an alias when a host function has that name (as a
// request without search declares it, but for every candidate, in the
// order of names, and never search, the search function's name).
func (b *Bridge) declaredNames(ctx context.Context, h *hostSet, cands []*Tool, search string) map[*Tool]string {
	names := make(map[*Tool]string, len(cands))
	var taken map[string]bool
	for _, t := range cands {
		if !h.has(t.Name) {
			names[t] = t.Name
			continue
		}
		if taken == nil {
			taken = b.namesInUse(ctx, h)
			taken[search] = true
		}
		names[t] = aliasFor(t, taken)
		taken[names[t]] = true
	}
	return names
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

// search is sel's Search, nil for none.
func (sel *Selection) search() *ToolSearch {
	if sel == nil {
		return nil
	}
	return sel.Search
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

// rank returns the n best of cands for history, as ranked entries, and
// the names of the rest, best first; with size > 0 (Selection.MaxSize less
// the host's share), of those n the best ones whose declarations fit in
// size. Ties keep the order of cands.
func (b *Bridge) rank(ctx context.Context, history []*genai.Content, cands []*Tool, n int, size schema.Size, sel *Selection) (chosen []rank.Entry, omitted []string) {
	ranking := b.ranking(ctx, sel, rank.ConversationQuery(history), cands)
	order := make([]int, len(ranking.Entries))
	for i, e := range ranking.Entries {
		order[i] = e.Index
	}
	n = min(n, len(order))
	kept := order[:n]
	if sel.maxSize() > 0 {
		kept, _ = fitSize(cands, kept, size)
	}
	in := make(map[int]bool, len(kept))
	for _, i := range kept {
		in[i] = true
	}
	chosen = make([]rank.Entry, 0, len(kept))
	omitted = make([]string, 0, len(cands)-len(kept))
	for _, e := range ranking.Entries {
		if in[e.Index] {
			chosen = append(chosen, e)
		} else {
			omitted = append(omitted, cands[e.Index].Name)
		}
	}
	return chosen, omitted
}

// ranking ranks cands for q with sel's ranker, or rank.Lexical when sel
// has none or its ranker fails. Every entry's Index is a valid index of
// cands and its Name the tool's registered name.
func (b *Bridge) ranking(ctx context.Context, sel *Selection, q rank.Query, cands []*Tool) *rank.Ranking {
	var r rank.Ranker = rank.Lexical{}
	if sel != nil && sel.Ranker != nil {
		r = sel.Ranker
	}
	ranking, err := rankTools(ctx, r, q, cands)
	if err == nil {
		err = checkRanking(ranking, len(cands))
	}
	if err != nil {
		b.log.Warn("tool ranker failed; ranking lexically", "err", err)
		ranking, _ = rankTools(ctx, rank.Lexical{}, q, cands)
	}
	for i := range ranking.Entries {
		ranking.Entries[i].Name = cands[ranking.Entries[i].Index].Name
	}
	return ranking
}

// checkRanking reports an error unless r ranks each of n documents once.
func checkRanking(r *rank.Ranking, n int) error {
	if r == nil || len(r.Entries) != n {
		got := 0
		if r != nil {
			got = len(r.Entries)
		}
		return fmt.Errorf("a ranking of %d entries for %d tools", got, n)
	}
	seen := make([]bool, n)
	for _, e := range r.Entries {
		if e.Index < 0 || e.Index >= n || seen[e.Index] {
			return fmt.Errorf("a ranking with index %d twice or out of range for %d tools", e.Index, n)
		}
		seen[e.Index] = true
	}
	return nil
}
