package schema

import (
	"encoding/json"
	"strconv"
	"strings"

	"google.golang.org/genai"
)

// enumMember is one enum value and the string the model sees for it.
type enumMember struct {
	text string
	orig any
}

// stringifyEnum turns the enum members vals (at origin) into strings the API
// accepts: strings stay as they are, other values become their JSON text
// (5 -> "5", true -> "true", {"a":1} -> `{"a":1}`). null members are dropped
// and reported through hadNull; "" members and duplicates are dropped. A
// non-string whose text equals a string member gets a kind suffix
// ("5 (number)") so every member stays distinguishable and restorable.
func (c *converter) stringifyEnum(origin string, vals []any) (members []enumMember, hadNull bool) {
	texts := make([]string, len(vals))
	keep := make([]bool, len(vals))
	taken := make(map[string]any, len(vals))
	for i, v := range vals {
		s, ok := v.(string)
		if !ok {
			continue
		}
		switch _, dup := taken[s]; {
		case s == "":
			c.log.add(origin, "enum", "empty string member dropped")
		case dup:
			c.log.add(origin, "enum", "duplicate member "+strconv.Quote(s)+" dropped")
		default:
			taken[s], texts[i], keep[i] = v, s, true // v: s, already boxed
		}
	}
	stringified := false
	for i, v := range vals {
		if _, ok := v.(string); ok {
			continue
		}
		if v == nil {
			hadNull = true
			continue
		}
		b, err := json.Marshal(v)
		if err != nil {
			c.log.add(origin, "enum", "member that is not JSON dropped")
			continue
		}
		s := string(b)
		if prev, ok := taken[s]; ok {
			if equalJSON(prev, v) {
				c.log.add(origin, "enum", "duplicate member "+s+" dropped")
				continue
			}
			s += " (" + jsonKind(v) + ")"
			if _, ok := taken[s]; ok {
				c.log.add(origin, "enum", "member "+s+" collides with another: dropped")
				continue
			}
		}
		taken[s], texts[i], keep[i] = v, s, true
		stringified = true
	}
	if stringified {
		c.log.add(origin, "enum", "non-string members written as strings (restored in the arguments)")
	}
	if hadNull {
		c.log.add(origin, "enum", "null member dropped: nullable instead")
	}
	kept := 0
	for _, k := range keep {
		if k {
			kept++
		}
	}
	if kept > 0 {
		members = make([]enumMember, 0, kept)
	}
	for i := range vals {
		if keep[i] {
			members = append(members, enumMember{text: texts[i], orig: vals[i]})
		}
	}
	return members, hadNull
}

// enumText returns the string standing for v among members: the member
// equal to v, or v itself when it is a string; ok is false otherwise.
func enumText(members []enumMember, v any) (string, bool) {
	for _, m := range members {
		if equalJSON(m.orig, v) {
			return m.text, true
		}
	}
	s, ok := v.(string)
	return s, ok && s != ""
}

// enumPlan returns the restore mapping of members, or nil when every
// member is already the string the model sends.
func enumPlan(members []enumMember) map[string]any {
	var m map[string]any
	for _, e := range members {
		if s, ok := e.orig.(string); ok && s == e.text {
			continue
		}
		if m == nil {
			m = map[string]any{}
		}
		m[e.text] = e.orig
	}
	return m
}

// enumSchema converts a node with an enum: a STRING node listing the
// members as strings, with a restore mapping for those that were not.
func (c *converter) enumSchema(n *node, vals []any, types []string, nullable bool, depth int) (*genai.Schema, *plan) {
	members, hadNull := c.stringifyEnum(n.origin, vals)
	nullable = nullable || hadNull
	if len(members) == 0 {
		if hadNull {
			return c.nullSchema(n)
		}
		c.log.add(n.origin, "enum", "no usable member: dropped")
		m := n.without("enum")
		if nullable {
			m.kw["nullable"] = true
		}
		return c.schema(m, depth)
	}
	isString := len(types) == 1 && types[0] == "string"
	switch {
	case len(types) == 0:
		c.log.add(n.origin, "type", "STRING set for the enum")
	case !isString:
		c.log.add(n.origin, "type", strings.Join(types, ", ")+" enum written as STRING (restored in the arguments)")
	}
	s := &genai.Schema{Type: genai.TypeString}
	for _, m := range members {
		s.Enum = append(s.Enum, m.text)
	}
	used := map[string]bool{"type": true, "nullable": true, "enum": true}
	var notes []string
	c.annotate(n, s, used)
	for _, f := range []*any{&s.Default, &s.Example} {
		if *f == nil {
			continue
		}
		if t, ok := enumText(members, *f); ok {
			*f = t
		} else {
			*f = nil
			c.log.add(n.origin, "default", "not an enum member: dropped")
		}
	}
	if nullable {
		s.Nullable = ptr(true)
	}
	t := "enum"
	if isString || len(types) == 0 {
		t = "string"
		c.stringKeys(n, s, used, &notes)
	}
	c.dropRest(n, t, used, &notes)
	s.Description = withNotes(s.Description, notes)
	return s, enumNodePlan(members)
}

// enumNodePlan is the plan of an enum node: the restore mapping, and the
// members as the model sees them when some must be restored.
func enumNodePlan(members []enumMember) *plan {
	p := &plan{kind: genai.TypeString, enum: enumPlan(members)}
	if p.enum != nil {
		for _, m := range members {
			p.members = append(p.members, m.text)
		}
	}
	return p
}
