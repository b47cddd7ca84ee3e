package mcpbridge

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/mcpbridge/rank"
	"github.com/mcpgenai/bridge/schema"
)

// ToolSearch turns on tool search for a [Selection]: instead of the
// Bridge's tools, a request declares one search function and the tools
// the model found with it so far. The model searches in its own words;
// the answer names the best matching tools (their names, servers, titles
// and descriptions cut short, never their schemas), and those tools are
// declared from the next request on. A search costs the model one more
// turn; a request declares a few tools instead of hundreds.
//
// It keeps no state: what was found is read from the conversation given
// to [Bridge.Declare] (the search function's responses in it, in order),
// so it works the same in the agent package's loops and in a host's own.
// The found tools are declared after the host's functions and the search
// function, in the order they were found, so that a request's function
// declarations are the previous request's with the newly found ones
// appended: Gemini's implicit cache keeps the prefix. When more than
// MaxFound tools have been found, the one found first that the
// conversation never called leaves (one that was called stays, unless
// every found tool was; then the one found first leaves), and so when
// Selection.MaxSize would be passed. Found tools that the Selection no
// longer keeps, or that the API rejected (see [Declarations.Heal]), are
// not declared.
//
// The search ranks the Selection's candidates (after Servers, Names and
// Filter; not the tools of servers the API calls itself) with
// Selection.Ranker, rank.Lexical by default, for the model's query alone.
// It answers only with tools that matched the query, at least 40% as well
// as the best one; when none did, it says so. A call of a Bridge tool that was not found still runs.
//
// A Live session's declarations are fixed when it connects, so what a
// search found could never be declared: leave Search nil for a Live
// session (the agent package's Live does).
type ToolSearch struct {
	// Auto, when true, turns the search on only for the requests whose
	// candidate tools' declarations together pass Share of the model's
	// context window (estimated with [schema.Size.Tokens]); the other
	// requests select tools as without search. When false, every request
	// searches.
	Auto bool
	// Share is the share of ContextWindow past which Auto turns the
	// search on. Zero or a negative value means 0.02: MCP's client best
	// practices advise search past 1 to 5% of the context window.
	Share float64
	// ContextWindow is the model's context window in tokens. Zero or a
	// negative value means 1,048,576 (Gemini 2.5's and 3's).
	ContextWindow int
	// Name is the search function's name. "" means "search_tools". When
	// a host function or a registered Bridge tool has the name, the
	// search function is declared as the name with "_2" (or "_3", ...)
	// appended ([RequestReport.SearchFunction]).
	Name string
	// MaxFound is the most found tools a request declares. Zero or a
	// negative value means 32. Selection.Limit bounds it too (the host's
	// functions and the search function count).
	MaxFound int
	// Results is the most tools one search answers with. Zero or a
	// negative value means 8.
	Results int
}

// Defaults of ToolSearch's fields.
const (
	defaultSearchName    = "search_tools"
	defaultSearchShare   = 0.02
	defaultContextWindow = 1 << 20
	defaultMaxFound      = 32
	defaultSearchResults = 8
	// searchDescriptionRunes is where a found tool's description is cut.
	searchDescriptionRunes = 200
	// searchCut is the least share of the best score a tool of a search
	// answer has: far weaker matches (a tool that only shares the best
	// one's server) would be declared for nothing.
	searchCut = 0.4
	// searchServersListed is the most server names the search function's
	// description lists.
	searchServersListed = 24
)

// on reports whether a request with these candidates searches.
func (s *ToolSearch) on(cands []*Tool) bool {
	if s == nil {
		return false
	}
	if !s.Auto {
		return true
	}
	var total schema.Size
	for _, t := range cands {
		total += t.Size
	}
	share, window := s.Share, s.ContextWindow
	if share <= 0 {
		share = defaultSearchShare
	}
	if window <= 0 {
		window = defaultContextWindow
	}
	return float64(total.Tokens()) > share*float64(window)
}

func (s *ToolSearch) maxFound() int {
	if s.MaxFound <= 0 {
		return defaultMaxFound
	}
	return s.MaxFound
}

func (s *ToolSearch) results() int {
	if s.Results <= 0 {
		return defaultSearchResults
	}
	return s.Results
}

// searchFunc is the search function of one request.
type searchFunc struct {
	b     *Bridge
	name  string // as declared
	sel   *Selection
	cands []*Tool // what it searches, sorted by name
	names map[*Tool]string
	n     int // results
}

// searchAnswer is what the search function answers: the JSON the model
// reads, and the conversation is read back from.
type searchAnswer struct {
	Tools []searchHit `json:"tools"`
	Note  string      `json:"note,omitempty"`
}

// searchHit is one tool of an answer.
type searchHit struct {
	Name        string `json:"name"`
	Server      string `json:"server,omitempty"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
}

// searchName returns the name the search function is declared under: s's
// Name, or, when it is taken, the name with "_2", "_3" ... appended.
func (b *Bridge) searchName(s *ToolSearch, h *hostSet) string {
	name := s.Name
	if name == "" {
		name = defaultSearchName
	}
	taken := func(n string) bool {
		if h.has(n) {
			return true
		}
		_, ok := b.Tool(n)
		return ok
	}
	if !taken(name) {
		return name
	}
	for i := 2; ; i++ {
		n := fmt.Sprintf("%s_%d", name, i)
		if !taken(n) {
			return n
		}
	}
}

// declaration returns the search function's declaration: what it finds
// among, and its one argument.
func (f *searchFunc) declaration() *genai.FunctionDeclaration {
	var servers []string
	for _, t := range f.cands {
		if t.Server != "" && !slices.Contains(servers, t.Server) {
			servers = append(servers, t.Server)
		}
	}
	slices.Sort(servers)
	list := strings.Join(servers[:min(len(servers), searchServersListed)], ", ")
	if len(servers) > searchServersListed {
		list += fmt.Sprintf(" and %d more", len(servers)-searchServersListed)
	}
	desc := "Finds tools for a task among the tools of the connected MCP servers that are not declared yet"
	if list != "" {
		desc += " (servers: " + list + ")"
	}
	desc += ". Describe what you need to do in your own words. The answer names the best matching tools, " +
		"with what each does; they are declared, ready to call, from your next turn on."
	return &genai.FunctionDeclaration{
		Name:        f.name,
		Description: desc,
		Parameters: &genai.Schema{
			Type: genai.TypeObject,
			Properties: map[string]*genai.Schema{
				"query": {Type: genai.TypeString, Description: "What you need a tool for: the task or action, in your own words."},
			},
			Required: []string{"query"},
		},
	}
}

// run answers one call of the search function.
func (f *searchFunc) run(ctx context.Context, call *genai.FunctionCall) *CallResult {
	name, id := call.Name, call.ID
	if err := ctx.Err(); err != nil {
		return errorResult(name, id, cancelled(name, ctx))
	}
	query, _ := call.Args["query"].(string)
	if strings.TrimSpace(query) == "" {
		return errorResult(name, id, fmt.Errorf("function %q needs a query: what you need a tool for, in words", name))
	}
	ranking := f.b.ranking(ctx, f.sel, rank.Query{Text: query}, f.cands)
	var ans searchAnswer
	for _, e := range ranking.Entries[:min(ranking.Matched, f.n)] {
		if e.Score < searchCut*ranking.Entries[0].Score {
			break
		}
		t := f.cands[e.Index]
		ans.Tools = append(ans.Tools, searchHit{Name: f.names[t], Server: t.Server, Title: t.Title, Description: cut(t.Description, searchDescriptionRunes)})
	}
	if len(ans.Tools) == 0 {
		ans.Tools = []searchHit{}
		ans.Note = "No tool matched the query; try other words."
	}
	return hostResult(name, id, ans, nil, f.b.textLimit)
}

// cut returns s cut to at most n runes at a word's end, with "…" when it
// was cut, its spaces and newlines folded.
func cut(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)[:n]
	if i := strings.LastIndexByte(string(r), ' '); i > len(string(r))/2 {
		return string(r)[:i] + "…"
	}
	return string(r) + "…"
}

// foundNames reads the names a search function's response carries, in
// order: what [searchFunc.run] answered, as the conversation holds it
// (genai's types, or decoded from JSON).
func foundNames(resp map[string]any) []string {
	out, ok := resp["output"]
	if !ok {
		return nil
	}
	raw, err := json.Marshal(out)
	if err != nil {
		return nil
	}
	var ans searchAnswer
	if json.Unmarshal(raw, &ans) != nil {
		return nil
	}
	names := make([]string, 0, len(ans.Tools))
	for _, h := range ans.Tools {
		if h.Name != "" {
			names = append(names, h.Name)
		}
	}
	return names
}

// foundTools returns the tools the conversation found with the search
// function named name, as a request declares them (in the order found,
// the bound applied), and the names of those the bound evicted. byName
// maps a declared name to its tool; a name it lacks is not declared. A
// found tool leaves when more than bound were found, or when their sizes
// together pass size (if > 0): the first found that was not called
// before, else the first found; the tools of the answer just read stay,
// unless they alone are over (then its last leave first).
func foundTools(conversation []*genai.Content, name string, byName map[string]*Tool, bound int, size schema.Size) (found []string, evicted []string) {
	called := map[string]bool{}
	var total schema.Size
	over := func() bool { return len(found) > 0 && (len(found) > bound || size > 0 && total > size) }
	for _, c := range conversation {
		if c == nil {
			continue
		}
		for _, p := range c.Parts {
			switch {
			case p == nil:
			case p.FunctionCall != nil:
				called[p.FunctionCall.Name] = true
			case p.FunctionResponse != nil && p.FunctionResponse.Name == name:
				// The answer's new tools are appended; while over the
				// bound, the first found before it that was not called
				// leaves, else the first found before it, else the
				// answer's last (its worst ranked).
				old := len(found)
				for _, n := range foundNames(p.FunctionResponse.Response) {
					if t := byName[n]; t != nil && !slices.Contains(found, n) {
						found = append(found, n)
						total += t.Size
						evicted = slices.DeleteFunc(evicted, func(e string) bool { return e == n })
					}
				}
				for over() {
					i := slices.IndexFunc(found[:old], func(f string) bool { return !called[f] })
					switch {
					case i >= 0:
					case old > 0:
						i = 0
					default:
						i = len(found) - 1
					}
					total -= byName[found[i]].Size
					evicted = append(evicted, found[i])
					found = slices.Delete(found, i, i+1)
					if i < old {
						old--
					}
				}
			}
		}
	}
	return found, evicted
}
