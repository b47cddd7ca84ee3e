package registry

import "strings"

// Scheme is how tools are named: the rule a [Registry] applies before
// settling conflicts.
type Scheme int

const (
	// BareNames registers each tool under its own (sanitized) name; a later
	// server's tool whose name an earlier server holds becomes
	// "server__tool". This is the zero value.
	BareNames Scheme = iota
	// QualifiedNames registers every tool as "mcp_<server>_<tool>", the names
	// Gemini CLI gives MCP tools from its 0.56 releases on (and that its
	// policies and saved allow-lists use); see [QualifiedName]. Two tools
	// whose qualified names coincide are settled with a short stable hash,
	// as under BareNames.
	QualifiedNames
)

// String returns "bare" or "qualified".
func (s Scheme) String() string {
	if s == QualifiedNames {
		return "qualified"
	}
	return "bare"
}

// Options configure a [Registry]. A nil *Options means the zero value of
// every field.
type Options struct {
	// Scheme is the naming rule. The zero value is [BareNames].
	Scheme Scheme
}

// Lengths of the parts of a qualified name that is cut to fit.
const (
	qualifiedHead = 30 // characters kept from the start
	qualifiedTail = 30 // characters kept from the end
	qualifiedSep  = "..."
	mcpPrefix     = "mcp_"
)

// QualifiedName returns the name the [QualifiedNames] scheme wants for server's
// tool, the way Gemini CLI forms it: server + "_" + tool, with "mcp_" put in
// front unless that already starts with it; every character outside
// [A-Za-z0-9_.-] becomes "_" (Gemini CLI keeps ":", which the Gemini API's
// documented name rule does not list); a result longer than 63 characters
// keeps its first 30 and last 30 joined by "...". The result always
// satisfies [ValidName].
func QualifiedName(server, tool string) string {
	joined := server + "_" + tool
	if !strings.HasPrefix(joined, mcpPrefix) {
		joined = mcpPrefix + joined
	}
	var b strings.Builder
	b.Grow(len(joined))
	for _, r := range joined { // an invalid byte arrives as one utf8.RuneError
		if isNameChar(r) {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	out := b.String() // ASCII only, starting with "mcp_"
	if len(out) > MaxNameLen {
		out = out[:qualifiedHead] + qualifiedSep + out[len(out)-qualifiedTail:]
	}
	return out
}
