package mcpbridge

import (
	"context"
	"encoding/json"
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
	// Entry says how the tool is registered: Name is the function name the
	// model calls it by (sanitized and, when a server earlier in the
	// configuration offers the same name, prefixed), Server the configured
	// server name, ServerTool the tool's name as the server lists it (used
	// when calling the server), and Reason why Name is what it is (see
	// [registry.Entry.Renamed]).
	registry.Entry
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
	// [ServerConfig.Timeout], or [DefaultTimeout].
	Timeout time.Duration

	def     *toolDef
	maxCall time.Duration // the server's MaxCallTime; 0 = the default
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
func (t *Tool) maxCallTime() time.Duration {
	if t.maxCall > 0 {
		return t.maxCall
	}
	return DefaultMaxCallTime
}

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

// newTool builds the registered view of def under e.
func newTool(e registry.Entry, def *toolDef, cfg *ServerConfig) *Tool {
	a := def.raw.Annotations
	a.Title = result.CleanText(a.Title, -1)
	decl := def.conv.Declaration(e.Name, result.CleanText(def.raw.Description, -1))
	def.out.declare(decl)
	return &Tool{
		Entry:       e,
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
		maxCall:     cfg.MaxCallTime,
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
