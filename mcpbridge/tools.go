package mcpbridge

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"google.golang.org/genai"

	"github.com/mcpgenai/bridge/confirm"
	"github.com/mcpgenai/bridge/mcpbridge/internal/args"
	"github.com/mcpgenai/bridge/mcpbridge/internal/mcpconn"
	"github.com/mcpgenai/bridge/mcpbridge/internal/result"
	"github.com/mcpgenai/bridge/registry"
	"github.com/mcpgenai/bridge/schema"
)

// Tool is one discovered tool under its registered name. A Tool is an
// immutable snapshot: when a server's tools change or names are
// re-resolved, the Bridge builds new Tools rather than editing old ones.
// Do not modify its fields, its Declaration or its Changes; they may be
// shared with later snapshots.
type Tool struct {
	// Name is the function name the model calls the tool by, unique among
	// the Bridge's tools and a valid function name: ServerTool itself, or
	// a name made from it when that is not possible (see Renamed).
	Name string
	// Server is the configured name of the server offering the tool.
	Server string
	// ServerTool is the tool's name as the server lists it; its calls
	// reach the server under this name.
	ServerTool string
	// Renamed says, for a person (a log, an inspector), why Name is not
	// ServerTool; "" when it is. The forms:
	//
	//	sanitized: "my tool" is not a valid function name
	//	prefixed: "fetch" belongs to server "files"
	//	hashed: "fetch" is taken by server "files"
	//	qualified: Options.ToolNames names every tool after its server
	//
	// A prefixed name is "server__tool" (when a server earlier in the
	// configuration offers the same name); a hashed one ends with a short
	// stable hash (when even that was taken); [Options.ToolNames] decides
	// the scheme.
	Renamed string
	// Title is the tool's display title ("" if the server gave none).
	Title string
	// Description is the server's description of the tool, without
	// terminal escape sequences and control characters other than newline
	// and tab (so is Title).
	Description string
	// Annotations are the server's behaviour hints, unverified.
	Annotations confirm.Annotations
	// Icons are the tool's icons a host may show (see [Icon]); nil when
	// none.
	Icons []Icon
	// Declaration is the function declaration for the Bridge's
	// [Options.Target], named Name, with Description and the converted
	// input schema; for [schema.JSONSchema], a tool's outputSchema,
	// converted the same way, is its ResponseJsonSchema.
	Declaration *genai.FunctionDeclaration
	// Changes lists what the schema conversion rewrote; empty when the
	// schema passed unchanged.
	Changes []schema.Change
	// Size is the size of Declaration as a request carries it (compact
	// JSON: name, description and schemas), for [Selection.MaxSize] and
	// [RequestReport.Size].
	Size schema.Size
	// BudgetCuts counts the parts of the input schema described only as
	// JSON text to keep the declaration within
	// [Options.DeclarationBudget] (see [schema.Result.BudgetCuts]); 0
	// when it fit.
	BudgetCuts int
	// Trust is the server's trust setting: true skips confirmation.
	Trust bool
	// Timeout bounds each call of the tool: the server's
	// [ServerConfig.Timeout], or 10 minutes (600000 ms, as Gemini CLI).
	Timeout time.Duration
	// TaskSupport is the tool's execution.taskSupport: "required" when
	// it runs only as an MCP task (its server says it takes long),
	// "optional" when it may, "" when it never does. A loop may treat a
	// required one as a background call.
	TaskSupport string

	def     *toolDef
	maxCall time.Duration // the server's MaxCallTime, or the default
	lex     *lexicalCache // the tool's words, for lexicalRanker
}

// InputSchema returns a copy of the exact bytes of the tool's inputSchema as
// the server sent it (nil when it sent none), for validating arguments
// against the original schema.
func (t *Tool) InputSchema() json.RawMessage {
	return slices.Clone(t.def.raw.InputSchema)
}

// restorer maps the model's arguments back to the original schema.
func (t *Tool) restorer() *schema.Restorer { return t.def.conv.Restorer }

// maxCallTime bounds a call of t that may outlive Timeout.
func (t *Tool) maxCallTime() time.Duration { return t.maxCall }

// toolDef is one tool as a server listed it, converted once per listing.
type toolDef struct {
	raw  mcpconn.Tool
	conv *schema.Result
	// args validates arguments against the original input schema.
	args *args.Schema
	// out is the tool's outputSchema; nil when it has none.
	out *outputDef
	// builtin marks a built-in resource tool, answered by the Bridge.
	builtin bool
}

// convertTools filters listed by the server's include and exclude lists and
// converts each remaining tool's raw schema with opts. A schema that cannot
// be converted (it is never the case for JSON that parsed) drops its tool
// with a warning; one cut to its size budget is logged at Warn. The result
// keeps the server's order.
func convertTools(cfg *ServerConfig, listed []mcpconn.Tool, opts schema.Options, log *slog.Logger) []*toolDef {
	target := opts.Target
	defs := make([]*toolDef, 0, len(listed))
	for _, t := range listed {
		if !cfg.allowsTool(t.Name) {
			log.Debug("mcp tool filtered out by includeTools/excludeTools", "server", cfg.Name, "tool", t.Name)
			continue
		}
		res, err := schema.Convert(t.InputSchema, &opts)
		if err != nil {
			log.Warn("mcp tool dropped: its input schema cannot be converted", "server", cfg.Name, "tool", t.Name, "err", err)
			continue
		}
		if res.BudgetCuts > 0 {
			log.Warn("mcp tool schema cut to its size budget: some nested parts are described as JSON text",
				"server", cfg.Name, "tool", t.Name, "cuts", res.BudgetCuts, "bytes", int(res.Size), "inputBytes", len(t.InputSchema))
		}
		if len(res.Changes) > 0 && log.Enabled(context.Background(), slog.LevelDebug) {
			changes := make([]string, len(res.Changes))
			for i, c := range res.Changes {
				changes[i] = c.String()
			}
			log.Debug("mcp tool schema converted", "server", cfg.Name, "tool", t.Name, "target", target, "changes", changes)
		}
		// The whole tool object is not used after listing, and the output
		// schema is kept in out: dropping them keeps a tool's retained
		// memory to what calls need.
		out := newOutputDef(cfg, t.Name, t.OutputSchema, target, log)
		t.Raw, t.OutputSchema = nil, nil
		name := t.Name
		disabled := func(err error) {
			log.Warn("mcp tool arguments will not be validated: its input schema does not compile",
				"server", cfg.Name, "tool", name, "err", err)
		}
		defs = append(defs, &toolDef{raw: t, conv: res, out: out, args: args.NewSchema(t.InputSchema, res.Restorer, disabled)})
	}
	warnUnmatchedIncludes(cfg, listed, log)
	return defs
}

// toolNames returns the original names of defs, in order.
func toolNames(defs []*toolDef) []string {
	names := make([]string, len(defs))
	for i, d := range defs {
		names[i] = d.raw.Name
	}
	return names
}

// renamed is Tool.Renamed for e.
func renamed(e registry.Entry) string {
	switch e.Reason {
	case registry.Unchanged:
		return ""
	case registry.Sanitized:
		return fmt.Sprintf("sanitized: %q is not a valid function name", e.ServerTool)
	case registry.Prefixed:
		return fmt.Sprintf("prefixed: %q belongs to server %q", e.Wanted, e.Holder)
	case registry.Hashed:
		return fmt.Sprintf("hashed: %q is taken by server %q", e.Wanted, e.Holder)
	case registry.Qualified:
		return "qualified: Options.ToolNames names every tool after its server"
	}
	return e.Reason.String()
}

// registeredAs reports whether t is the tool registered as e.
func (t *Tool) registeredAs(e registry.Entry) bool {
	return t.Name == e.Name && t.Server == e.Server && t.ServerTool == e.ServerTool && t.Renamed == renamed(e)
}

// newTool builds the registered view of def under e.
func newTool(e registry.Entry, def *toolDef, cfg *ServerConfig) *Tool {
	a := def.raw.Annotations
	a.Title = result.CleanText(a.Title, -1)
	decl := def.conv.Declaration(e.Name, result.CleanText(def.raw.Description, -1))
	def.out.declare(decl)
	return &Tool{
		Name:        e.Name,
		Server:      e.Server,
		ServerTool:  e.ServerTool,
		Renamed:     renamed(e),
		Title:       result.CleanText(def.raw.Title, -1),
		Description: result.CleanText(def.raw.Description, -1),
		Annotations: a,
		Icons:       iconsOf(def.raw.Icons),
		Declaration: decl,
		Changes:     def.conv.Changes,
		Size:        declarationSize(decl),
		BudgetCuts:  def.conv.BudgetCuts,
		Trust:       cfg.Trust,
		Timeout:     cfg.effectiveTimeout(),
		TaskSupport: def.raw.TaskSupport,
		maxCall:     cfg.effectiveMaxCallTime(),
		def:         def,
		lex:         &lexicalCache{},
	}
}

// warnUnmatchedIncludes logs every includeTools entry that names no tool
// the server listed (a typo there silently hides a tool otherwise).
func warnUnmatchedIncludes(cfg *ServerConfig, listed []mcpconn.Tool, log *slog.Logger) {
	for _, inc := range cfg.IncludeTools {
		name, _, _ := strings.Cut(inc, "(")
		if !slices.ContainsFunc(listed, func(t mcpconn.Tool) bool { return t.Name == inc || t.Name == name }) {
			log.Warn("mcp server includeTools entry matches no tool the server offers", "server", cfg.Name, "entry", inc)
		}
	}
}

// Tools returns every registered tool, sorted by registered name. The slice
// is the caller's; the Tools are shared snapshots (see [Tool]).
func (b *Bridge) Tools() []*Tool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.sorted)
}

// Tool returns the tool registered under name, and whether there is one.
func (b *Bridge) Tool(name string) (*Tool, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	t, ok := b.tools[name]
	return t, ok
}

// setToolsLocked registers defs as the tools of s (nil unregisters them),
// rebuilds the tool views, logs every rename and emits EventToolsChanged
// when anything changed. For a user's instance, the interned l holds
// defs and the user's catalog is built again when next used; the event
// names the user, and its Update is empty.
func (b *Bridge) setToolsLocked(s *server, defs []*toolDef, l *listing) {
	if s.base != nil {
		was := s.listing
		b.setListingLocked(s, l)
		if was != l {
			b.emitLocked(Event{Kind: EventToolsChanged, Server: s.cfg.Name, User: s.user})
		}
		return
	}
	if s != b.builtins && !s.perUser {
		b.dropCatalogsLocked() // every user's catalog holds these tools
	}
	s.defs = defs
	u := b.reg.SetTools(s.cfg.Name, toolNames(defs))
	b.rebuildLocked()
	for _, d := range u.Duplicates {
		b.log.Warn("mcp server listed a tool twice; first kept", "server", s.cfg.Name, "tool", d)
	}
	for _, e := range u.Added {
		if e.Renamed() {
			b.log.Info("mcp tool renamed", "server", e.Server, "tool", e.ServerTool, "name", e.Name, "reason", e.String())
		}
	}
	for _, c := range u.Changed {
		b.log.Info("mcp tool renamed", "server", c.New.Server, "tool", c.New.ServerTool, "name", c.New.Name, "was", c.Old.Name, "reason", c.New.String())
	}
	if !u.Empty() {
		b.emitLocked(Event{Kind: EventToolsChanged, Server: s.cfg.Name, Update: u})
	}
}

// rebuildLocked rebuilds the Tool views from the registry, reusing the
// Tools whose entry and definition did not change.
func (b *Bridge) rebuildLocked() {
	entries := b.reg.Entries()
	defs := make(map[*server]map[string]*toolDef)
	tools := make(map[string]*Tool, len(entries))
	sorted := make([]*Tool, 0, len(entries))
	for _, e := range entries {
		s := b.byName[e.Server]
		if s == nil {
			s = b.builtins // the only tools of no configured server
		}
		m, ok := defs[s]
		if !ok {
			m = make(map[string]*toolDef, len(s.defs))
			for _, d := range s.defs {
				if _, dup := m[d.raw.Name]; !dup {
					m[d.raw.Name] = d
				}
			}
			defs[s] = m
		}
		d := m[e.ServerTool]
		if d == nil {
			continue // cannot happen: the registry holds what defs listed
		}
		t := b.tools[e.Name]
		if t == nil || t.def != d || !t.registeredAs(e) {
			t = newTool(e, d, &s.cfg)
		}
		tools[e.Name] = t
		sorted = append(sorted, t)
	}
	b.tools, b.sorted = tools, sorted
}
