package schema

import (
	"strconv"
	"strings"

	"google.golang.org/genai"
)

// Inlining a definition copies its description to every use, and servers
// that inline their own schemas repeat long descriptions just the same.
// The model reads the whole declaration, so a long description met again
// later in the output is written as a pointer to its first use: "same as
// for body.attendees[].emailAddress", when that is shorter.

// minRepeated is the shortest description that is replaced when repeated.
const minRepeated = 64

// sameAsPrefix starts a description that points to an earlier one. A
// description starting with it is never replaced, so that converting the
// output again changes nothing.
const sameAsPrefix = "same as for "

// repeats tracks the long descriptions met so far in one output.
type repeats struct {
	first    map[string]string // description -> label of its first use
	replaced int
}

// replace returns the description to write at label for d.
func (r *repeats) replace(d, label string) string {
	if len(d) < minRepeated || strings.HasPrefix(d, sameAsPrefix) || strings.Contains(d, "any value") {
		return d // placeholders keep their own text: it says how to write the value
	}
	if at, seen := r.first[d]; seen {
		if short := sameAsPrefix + at; len(short) < len(d) {
			r.replaced++
			return short
		}
		return d
	}
	if label != "" {
		r.first[d] = label
	}
	return d
}

// report records the replacements as one Change at the root.
func (r *repeats) report(c *converter) {
	if r.replaced > 0 {
		c.log.add("", "description", strconv.Itoa(r.replaced)+" repeated descriptions written as \""+sameAsPrefix+"<first use>\"")
	}
}

// labelJoin extends the label of a value's place by a property name.
func labelJoin(label, name string) string {
	if label == "" {
		return name
	}
	return label + "." + name
}

// shortenRepeatsGenai returns s with repeated long descriptions replaced,
// as a copy: s is not modified (its nodes may be shared).
func (c *converter) shortenRepeatsGenai(s *genai.Schema) *genai.Schema {
	r := &repeats{first: map[string]string{}}
	out := r.genai(s, "", 0)
	r.report(c)
	return out
}

func (r *repeats) genai(s *genai.Schema, label string, depth int) *genai.Schema {
	if s == nil || depth > checkMaxDepth+2 {
		return s
	}
	cp := *s
	cp.Description = r.replace(s.Description, label)
	if s.AnyOf != nil {
		cp.AnyOf = make([]*genai.Schema, len(s.AnyOf))
		for i, b := range s.AnyOf {
			cp.AnyOf[i] = r.genai(b, label, depth+1)
		}
	}
	if s.Items != nil {
		cp.Items = r.genai(s.Items, label+"[]", depth+1)
	}
	if s.Properties != nil {
		cp.Properties = make(map[string]*genai.Schema, len(s.Properties))
		for _, name := range sortedKeys(s.Properties) {
			cp.Properties[name] = r.genai(s.Properties[name], labelJoin(label, name), depth+1)
		}
	}
	return &cp
}

// overAfterShortening reports whether s, once shortenRepeatsGenai has
// shortened it, is surely larger than limit, without building the copy:
// the same walk, counting the bytes each replaced description saves.
func (c *converter) overAfterShortening(s *genai.Schema, limit Size) bool {
	n, ok := genaiLen(s, 0)
	if !ok || Size(n) <= limit {
		return false
	}
	r := &repeats{first: map[string]string{}}
	return Size(n-r.genaiSaved(s, "", 0)) > limit
}

// genaiSaved is what r.genai(s, label, depth) saves in the encoding.
func (r *repeats) genaiSaved(s *genai.Schema, label string, depth int) int {
	if s == nil || depth > checkMaxDepth+2 {
		return 0
	}
	saved := 0
	if d := r.replace(s.Description, label); d != s.Description {
		saved += quotedLen(s.Description) - quotedLen(d)
	}
	for _, b := range s.AnyOf {
		saved += r.genaiSaved(b, label, depth+1)
	}
	if s.Items != nil {
		saved += r.genaiSaved(s.Items, label+"[]", depth+1)
	}
	for _, name := range sortedKeys(s.Properties) {
		saved += r.genaiSaved(s.Properties[name], labelJoin(label, name), depth+1)
	}
	return saved
}

// shortenRepeatsJSON replaces repeated long descriptions in m, the
// JSONSchema output, in place (its maps are its own).
func (c *converter) shortenRepeatsJSON(m map[string]any) {
	r := &repeats{first: map[string]string{}}
	r.json(m, "", 0)
	r.report(c)
}

func (r *repeats) json(v any, label string, depth int) {
	m, ok := v.(map[string]any)
	if !ok || depth > 4*DefaultMaxDepth+16 {
		return
	}
	if d, ok := m["description"].(string); ok {
		m["description"] = r.replace(d, label)
	}
	for _, k := range sortedKeys(m) {
		sub := m[k]
		switch {
		case k == "$defs" || mapSchemaKeys[k]:
			sm, _ := sub.(map[string]any)
			for _, name := range sortedKeys(sm) {
				l := labelJoin(label, name)
				if k == "$defs" {
					l = "$defs." + name
				}
				r.json(sm[name], l, depth+1)
			}
		case k == "items" || k == "prefixItems" || k == "additionalItems" || k == "unevaluatedItems":
			if l, isList := sub.([]any); isList {
				for _, e := range l {
					r.json(e, label+"[]", depth+1)
				}
			} else {
				r.json(sub, label+"[]", depth+1)
			}
		case listSchemaKeys[k]:
			l, _ := sub.([]any)
			for _, e := range l {
				r.json(e, label, depth+1)
			}
		case singleSchemaKeys[k]:
			r.json(sub, label, depth+1)
		}
	}
}
