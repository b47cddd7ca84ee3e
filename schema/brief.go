package schema

import (
	"strconv"
	"strings"

	"google.golang.org/genai"
)

// Limits of a brief description of a schema.
const (
	briefMembers = 8   // enum members listed before "…"
	briefLen     = 160 // bytes of the whole description
)

// brief describes the converted schema s, restored by p, in a few words
// for a description: `integer`, `"1", "-1", "asc" or "desc"`, `array of
// string`, `string or null`, `{name, arguments}` (an object and its
// property names). When inText is set, the model writes the value inside
// JSON text, so enum members that are restored to other values are written
// as those values in JSON (1 rather than "1").
func brief(s *genai.Schema, p *plan, inText bool) string {
	out := briefAt(s, p, 0, inText)
	if len(out) > briefLen {
		cut := briefLen
		for cut > 0 && !isRuneStart(out[cut]) {
			cut--
		}
		out = out[:cut] + "…"
	}
	return out
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

func briefAt(s *genai.Schema, p *plan, depth int, inText bool) string {
	if s == nil {
		return "any value"
	}
	var out string
	switch {
	case len(s.AnyOf) > 0:
		var parts []string
		for i, b := range s.AnyOf {
			var bp *plan
			if p != nil && len(p.anyOf) == len(s.AnyOf) {
				bp = p.anyOf[i]
			}
			parts = appendNew(parts, briefAt(b, bp, depth+1, inText))
		}
		return orList(parts)
	case len(s.Enum) > 0:
		var parts []string
		for i, text := range s.Enum {
			if i == briefMembers {
				parts = append(parts, "…")
				break
			}
			if o, ok := p.enumValue(text); ok && inText {
				parts = append(parts, jsonText(o))
			} else {
				parts = append(parts, strconv.Quote(text))
			}
		}
		out = orList(parts)
	case s.Type == genai.TypeString && p != nil && p.anyJSON:
		out = "any value"
		if p.jsonObject {
			out = "object"
		}
	case s.Type == genai.TypeObject && len(s.Properties) > 0 && depth < 2:
		names := sortedKeys(s.Properties)
		if len(names) > briefMembers {
			names = append(names[:briefMembers], "…")
		}
		out = "{" + strings.Join(names, ", ") + "}"
	case s.Type == genai.TypeArray && depth < 2:
		var ip *plan
		if p != nil {
			ip = p.items
		}
		out = "array of " + briefAt(s.Items, ip, depth+1, inText)
	default:
		out = strings.ToLower(string(s.Type))
		if out == "" || out == "type_unspecified" {
			out = "any value"
		}
	}
	if s.Nullable != nil && *s.Nullable {
		out += " or null"
	}
	return out
}

// orList joins parts as `a, b or c`.
func orList(parts []string) string {
	switch len(parts) {
	case 0:
		return ""
	case 1:
		return parts[0]
	}
	if parts[len(parts)-1] == "…" {
		return strings.Join(parts, ", ")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " or " + parts[len(parts)-1]
}

// quietly runs f, a conversion whose output is not part of the result
// (it only yields a plan or a brief description), and forgets the changes
// it reported and the depth it reached. The nodes it emitted still count
// against the output budget, which bounds the extra work.
func (c *converter) quietly(f func()) {
	n, capHit, deepest, shown := len(c.log.list), c.capHit, c.deepest, c.shown
	f()
	c.shown = shown
	for _, ch := range c.log.list[n:] {
		delete(c.log.seen, ch)
	}
	c.log.list = c.log.list[:n]
	c.capHit, c.deepest = capHit, deepest
}
