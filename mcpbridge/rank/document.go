package rank

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/mcpgenai/bridge/mcpbridge/internal/lexical"
)

// Tool is what a ranker reads of one tool: its names and its own words.
type Tool struct {
	// Name is the name the model calls the tool by. Words in it count
	// most: "get_weather" is about the weather.
	Name string
	// Server is the name of the server that offers the tool; "" for a
	// tool of no server (a host's function). The tools of one server are
	// ranked together too: when one of them fits a request well, the
	// others gain a little.
	Server string
	// Title is the tool's display title, "" for none (its annotations'
	// title too, if it differs).
	Title string
	// Description is what the tool says it does.
	Description string
	// InputSchema is the JSON Schema of the tool's arguments, nil for
	// none. The names, titles, descriptions and enum values of its
	// properties, nested ones too, are read; what is not valid JSON is
	// ignored.
	InputSchema json.RawMessage
	// ReadOnly and Destructive are the tool's annotations' hints, as its
	// server gives them (unverified): a read-only tool answers requests to
	// look, a destructive one requests to delete or overwrite.
	ReadOnly, Destructive bool
}

// Document is a tool analyzed for ranking. It is immutable and safe for
// concurrent use; build it once per tool (with [NewDocument]) and keep it
// as long as the tool does not change.
type Document struct {
	name, server string
	text         string // what an embedding ranker embeds
	doc          *lexical.Doc
}

// Limits on the input schema a Document reads: a schema is read down to
// maxSchemaDepth nested properties, and up to maxSchemaText bytes of its
// words, so that a huge schema costs no more than a long description.
const (
	maxSchemaDepth = 6
	maxSchemaText  = 16 << 10
)

// NewDocument analyzes t. It does not retain t's InputSchema.
func NewDocument(t Tool) *Document {
	var b lexical.Builder
	b.Add(lexical.Name, t.Name)
	b.Add(lexical.Name, t.Title)
	b.Add(lexical.Description, t.Description)
	b.Add(lexical.Server, t.Server)
	if t.ReadOnly {
		b.Add(lexical.Description, "reads")
	}
	if t.Destructive {
		b.Add(lexical.Description, "deletes")
	}
	params, required := schemaText(t.InputSchema)
	for _, r := range required {
		b.Need(r)
	}
	for _, p := range params {
		b.Add(lexical.Parameter, p)
	}
	text := t.Name
	if t.Title != "" {
		text += " (" + t.Title + ")"
	}
	if t.Description != "" {
		text += ": " + t.Description
	}
	if len(params) > 0 {
		text += "\nParameters: " + strings.Join(params, "; ")
	}
	return &Document{name: t.Name, server: t.Server, text: text, doc: b.Doc()}
}

// Name returns the name of the tool d was built from.
func (d *Document) Name() string { return d.name }

// Server returns the server of the tool d was built from.
func (d *Document) Server() string { return d.server }

// Text returns the text of the tool as one string: its name, title,
// description and parameters (what an embedding model is given).
func (d *Document) Text() string { return d.text }

// schemaText returns the words of a JSON Schema's properties: each
// property's name, title and description, and its string enum values, in
// a stable order (properties sorted by name, depth first); and the names
// of the top-level required properties.
func schemaText(raw json.RawMessage) (text, required []string) {
	if len(raw) == 0 {
		return nil, nil
	}
	var root any
	if json.Unmarshal(raw, &root) != nil {
		return nil, nil
	}
	if m, ok := root.(map[string]any); ok {
		if req, ok := m["required"].([]any); ok {
			for _, r := range req {
				if s, ok := r.(string); ok {
					required = append(required, s)
				}
			}
		}
	}
	var out []string
	size := 0
	add := func(s string) {
		s = strings.TrimSpace(s)
		if s == "" || size >= maxSchemaText {
			return
		}
		if size+len(s) > maxSchemaText {
			s = s[:maxSchemaText-size]
		}
		size += len(s)
		out = append(out, s)
	}
	var walk func(schema any, depth int)
	walk = func(schema any, depth int) {
		m, ok := schema.(map[string]any)
		if !ok || depth > maxSchemaDepth {
			return
		}
		if e, ok := m["enum"].([]any); ok {
			var vals []string
			for _, v := range e {
				if s, ok := v.(string); ok {
					vals = append(vals, s)
				}
			}
			add(strings.Join(vals, " "))
		}
		if props, ok := m["properties"].(map[string]any); ok {
			for _, name := range slices.Sorted(maps.Keys(props)) {
				add(name)
				if p, ok := props[name].(map[string]any); ok {
					if s, ok := p["title"].(string); ok {
						add(s)
					}
					if s, ok := p["description"].(string); ok {
						add(s)
					}
				}
				walk(props[name], depth+1)
			}
		}
		for _, k := range []string{"items", "additionalProperties"} {
			walk(m[k], depth+1)
		}
		for _, k := range []string{"anyOf", "oneOf", "allOf"} {
			if list, ok := m[k].([]any); ok {
				for _, s := range list {
					walk(s, depth+1)
				}
			}
		}
	}
	walk(root, 0)
	return out, required
}
