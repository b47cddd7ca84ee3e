package args

import (
	"bytes"
	"encoding/json"
)

// Validating a call's arguments with the full JSON Schema validator costs
// more than anything else the Bridge does per call, mostly because it
// compares numbers as big.Rat through fmt. Most tools' schemas use only a
// few plain keywords, though; for those, quickSchema checks the arguments
// directly and the full validator runs only when the quick check fails (to
// give its message) or cannot tell. quickSchema never accepts what the
// full validator would reject: whatever it is unsure of (a keyword it does
// not know, a number that is not a plain integer) counts as a failure.

// quickSchema is a JSON Schema restricted to type, properties, required,
// additionalProperties, items and enum (of strings, booleans, null and
// plain integers), plus annotations. The zero value accepts anything.
type quickSchema struct {
	types      typeSet
	enum       []any // nil: no enum; else strings, bools, nil, plain-integer json.Numbers
	properties map[string]*quickSchema
	required   []string
	additional *quickSchema // nil: any additional property is allowed
	closed     bool         // additionalProperties: false
	items      *quickSchema // nil: any items
}

// typeSet is a set of JSON types; zero means no type keyword.
type typeSet uint8

const (
	tNull typeSet = 1 << iota
	tBoolean
	tObject
	tArray
	tNumber
	tInteger
	tString
)

var typeNames = map[string]typeSet{
	"null": tNull, "boolean": tBoolean, "object": tObject, "array": tArray,
	"number": tNumber, "integer": tInteger, "string": tString,
}

// quickOf returns the quickSchema of raw, or nil when raw is outside the
// subset or not JSON.
func quickOf(raw json.RawMessage) *quickSchema {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return nil
	}
	if q, ok := quickFrom(v); ok {
		return q
	}
	return nil
}

// annotations are keywords with no effect on validation.
var annotations = map[string]bool{
	"$schema": true, "$comment": true, "title": true, "description": true,
	"default": true, "examples": true, "deprecated": true, "readOnly": true, "writeOnly": true,
}

// quickFrom converts the decoded schema v; false when it is outside the
// subset.
func quickFrom(v any) (*quickSchema, bool) {
	switch v := v.(type) {
	case bool:
		if !v {
			return nil, false // rejects everything: not in the subset
		}
		return &quickSchema{}, true
	case map[string]any:
		q := &quickSchema{}
		for k, kv := range v {
			ok := true
			switch {
			case annotations[k]:
			case k == "type":
				q.types, ok = quickTypes(kv)
			case k == "enum":
				q.enum, ok = quickEnum(kv)
			case k == "required":
				q.required, ok = quickStrings(kv)
			case k == "properties":
				props, isMap := kv.(map[string]any)
				ok = isMap
				q.properties = make(map[string]*quickSchema, len(props))
				for name, ps := range props {
					p, pok := quickFrom(ps)
					if !pok {
						return nil, false
					}
					q.properties[name] = p
				}
			case k == "additionalProperties":
				if b, isBool := kv.(bool); isBool {
					q.closed = !b
				} else {
					q.additional, ok = quickFrom(kv)
				}
			case k == "items":
				if _, isMap := kv.(map[string]any); !isMap {
					return nil, false // tuple form (older drafts) or boolean
				}
				q.items, ok = quickFrom(kv)
			default:
				return nil, false
			}
			if !ok {
				return nil, false
			}
		}
		return q, true
	}
	return nil, false
}

func quickTypes(v any) (typeSet, bool) {
	var names []any
	switch v := v.(type) {
	case string:
		names = []any{v}
	case []any:
		names = v
	default:
		return 0, false
	}
	var s typeSet
	for _, n := range names {
		name, _ := n.(string)
		t, ok := typeNames[name]
		if !ok {
			return 0, false
		}
		s |= t
	}
	return s, s != 0
}

func quickEnum(v any) ([]any, bool) {
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		return nil, false
	}
	for _, e := range list {
		switch e := e.(type) {
		case string, bool, nil:
		case json.Number:
			if !plainInteger(string(e)) {
				return nil, false
			}
		default:
			return nil, false
		}
	}
	return list, true
}

func quickStrings(v any) ([]string, bool) {
	list, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]string, len(list))
	for i, e := range list {
		if out[i], ok = e.(string); !ok {
			return nil, false
		}
	}
	return out, true
}

// plainInteger reports whether s is an integer written in the one way JSON
// allows for it without fraction or exponent: an optional minus and digits
// without a leading zero ("-0" excluded). Two plain integers are equal as
// numbers exactly when they are equal as strings.
func plainInteger(s string) bool {
	if s != "" && s[0] == '-' {
		s = s[1:]
		if s == "0" {
			return false
		}
	}
	if s == "" || (s[0] == '0' && len(s) > 1) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// valid reports whether v (as jsonschema.UnmarshalJSON decodes JSON:
// json.Number for numbers) certainly satisfies q. false means invalid or
// unsure.
func (q *quickSchema) valid(v any) bool {
	if q.types != 0 && !q.types.has(v) {
		return false
	}
	if q.enum != nil && !inEnum(q.enum, v) {
		return false
	}
	switch v := v.(type) {
	case map[string]any:
		for _, r := range q.required {
			if _, ok := v[r]; !ok {
				return false
			}
		}
		for k, e := range v {
			if p, ok := q.properties[k]; ok {
				if !p.valid(e) {
					return false
				}
				continue
			}
			if q.closed || (q.additional != nil && !q.additional.valid(e)) {
				return false
			}
		}
	case []any:
		if q.items != nil {
			for _, e := range v {
				if !q.items.valid(e) {
					return false
				}
			}
		}
	}
	return true
}

// has reports whether v is certainly of a type in s.
func (s typeSet) has(v any) bool {
	switch v := v.(type) {
	case nil:
		return s&tNull != 0
	case bool:
		return s&tBoolean != 0
	case string:
		return s&tString != 0
	case map[string]any:
		return s&tObject != 0
	case []any:
		return s&tArray != 0
	case json.Number:
		// 2.0 and 1e2 are integers too, but not certainly so here.
		return s&tNumber != 0 || (s&tInteger != 0 && plainInteger(string(v)))
	}
	return false
}

// inEnum reports whether v is certainly one of enum's values.
func inEnum(enum []any, v any) bool {
	for _, e := range enum {
		switch e := e.(type) {
		case json.Number:
			if n, ok := v.(json.Number); ok && n == e && plainInteger(string(n)) {
				return true
			}
		default:
			if e == v {
				return true
			}
		}
	}
	return false
}
