package schema

import (
	"encoding/json"
	"unicode/utf8"

	"google.golang.org/genai"
)

// The budget needs the size of the input and of every attempt's output.
// json.Marshal walks maps by reflection and allocates for every entry;
// counting the bytes it would write needs no allocation for the values a
// conversion holds. The counts below follow encoding/json's rules (HTML
// escaping on, struct fields with omitempty); any value they do not know
// makes them report failure, and the caller then measures by json.Marshal,
// so the size is always the length json.Marshal gives.

// jsonLen returns the length of the compact json.Marshal encoding of v, a
// value in the generic JSON form, or false for a value it does not count.
func jsonLen(v any, depth int) (int, bool) {
	if depth > 4*DefaultMaxDepth+64 {
		return 0, false
	}
	switch v := v.(type) {
	case nil:
		return 4, true
	case bool:
		if v {
			return 4, true
		}
		return 5, true
	case string:
		return quotedLen(v), true
	case json.Number:
		if v == "" || !validNumber(string(v)) {
			return 0, false
		}
		return len(v), true
	case map[string]any:
		if v == nil {
			return 4, true // null
		}
		n := 2 + max(len(v)-1, 0) // braces and commas
		for k, e := range v {
			l, ok := jsonLen(e, depth+1)
			if !ok {
				return 0, false
			}
			n += quotedLen(k) + 1 + l
		}
		return n, true
	case []any:
		if v == nil {
			return 4, true
		}
		n := 2 + max(len(v)-1, 0)
		for _, e := range v {
			l, ok := jsonLen(e, depth+1)
			if !ok {
				return 0, false
			}
			n += l
		}
		return n, true
	case float64:
		b, err := json.Marshal(v) // rare: encoding/json's own float format
		return len(b), err == nil
	}
	return 0, false
}

// intLen is the number of bytes of i in decimal.
func intLen(i int64) int {
	n := 1
	if i < 0 {
		n++
		if i == -1<<63 {
			return 20
		}
		i = -i
	}
	for ; i >= 10; i /= 10 {
		n++
	}
	return n
}

// quotedLen is the length of s as a JSON string written by encoding/json.
func quotedLen(s string) int {
	n := 2
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			switch {
			case b == '"' || b == '\\' || b == '\b' || b == '\f' || b == '\n' || b == '\r' || b == '\t':
				n += 2
			case b < 0x20 || b == '<' || b == '>' || b == '&':
				n += 6
			default:
				n++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			n += 6 // \ufffd
		case r == '\u2028' || r == '\u2029':
			n += 6
		default:
			n += size
		}
		i += size
	}
	return n
}

// validNumber reports whether s is a JSON number literal, as json.Marshal
// requires of a json.Number.
func validNumber(s string) bool {
	if s == "" {
		return false
	}
	if s[0] == '-' {
		s = s[1:]
		if s == "" {
			return false
		}
	}
	switch {
	case s[0] == '0':
		s = s[1:]
	case '1' <= s[0] && s[0] <= '9':
		s = s[1:]
		for len(s) > 0 && '0' <= s[0] && s[0] <= '9' {
			s = s[1:]
		}
	default:
		return false
	}
	if len(s) >= 2 && s[0] == '.' && '0' <= s[1] && s[1] <= '9' {
		s = s[2:]
		for len(s) > 0 && '0' <= s[0] && s[0] <= '9' {
			s = s[1:]
		}
	}
	if len(s) >= 2 && (s[0] == 'e' || s[0] == 'E') {
		s = s[1:]
		if s[0] == '+' || s[0] == '-' {
			s = s[1:]
			if s == "" {
				return false
			}
		}
		for len(s) > 0 && '0' <= s[0] && s[0] <= '9' {
			s = s[1:]
		}
	}
	return s == ""
}

// genaiLen returns the length of the compact json.Marshal encoding of s,
// or false for a value it does not count.
func genaiLen(s *genai.Schema, depth int) (int, bool) {
	if s == nil {
		return 4, true
	}
	if depth > 4*DefaultMaxDepth+64 {
		return 0, false
	}
	n, fields := 2, 0
	field := func(name string, l int) {
		n += len(name) + 3 + l // "name":value
		fields++
	}
	strs := func(l []string) int {
		t := 2 + max(len(l)-1, 0)
		for _, e := range l {
			t += quotedLen(e)
		}
		return t
	}
	if len(s.AnyOf) > 0 {
		t := 2 + len(s.AnyOf) - 1
		for _, b := range s.AnyOf {
			l, ok := genaiLen(b, depth+1)
			if !ok {
				return 0, false
			}
			t += l
		}
		field("anyOf", t)
	}
	if s.Default != nil {
		l, ok := jsonLen(s.Default, depth+1)
		if !ok {
			return 0, false
		}
		field("default", l)
	}
	if s.Description != "" {
		field("description", quotedLen(s.Description))
	}
	if len(s.Enum) > 0 {
		field("enum", strs(s.Enum))
	}
	if s.Example != nil {
		l, ok := jsonLen(s.Example, depth+1)
		if !ok {
			return 0, false
		}
		field("example", l)
	}
	if s.Format != "" {
		field("format", quotedLen(s.Format))
	}
	if s.Items != nil {
		l, ok := genaiLen(s.Items, depth+1)
		if !ok {
			return 0, false
		}
		field("items", l)
	}
	intField := func(name string, p *int64) {
		if p != nil {
			field(name, intLen(*p))
		}
	}
	intField("maxItems", s.MaxItems)
	intField("maxLength", s.MaxLength)
	intField("maxProperties", s.MaxProperties)
	if s.Maximum != nil {
		l, ok := jsonLen(*s.Maximum, depth+1)
		if !ok {
			return 0, false
		}
		field("maximum", l)
	}
	intField("minItems", s.MinItems)
	intField("minLength", s.MinLength)
	intField("minProperties", s.MinProperties)
	if s.Minimum != nil {
		l, ok := jsonLen(*s.Minimum, depth+1)
		if !ok {
			return 0, false
		}
		field("minimum", l)
	}
	if s.Nullable != nil {
		if *s.Nullable {
			field("nullable", 4)
		} else {
			field("nullable", 5)
		}
	}
	if s.Pattern != "" {
		field("pattern", quotedLen(s.Pattern))
	}
	if len(s.Properties) > 0 {
		t := 2 + len(s.Properties) - 1
		for k, p := range s.Properties {
			l, ok := genaiLen(p, depth+1)
			if !ok {
				return 0, false
			}
			t += quotedLen(k) + 1 + l
		}
		field("properties", t)
	}
	if len(s.PropertyOrdering) > 0 {
		field("propertyOrdering", strs(s.PropertyOrdering))
	}
	if len(s.Required) > 0 {
		field("required", strs(s.Required))
	}
	if s.Title != "" {
		field("title", quotedLen(s.Title))
	}
	if s.Type != "" {
		field("type", quotedLen(string(s.Type)))
	}
	return n + max(fields-1, 0), true
}
