package schema

import (
	"encoding/json"
	"unicode/utf8"
)

// maxFastDepth bounds the nesting decodeFast follows; deeper documents
// go to encoding/json, whose own limit (10000) then applies unchanged.
const maxFastDepth = 1000

// decodeFast decodes raw, which must be exactly one JSON value surrounded
// by optional white space, into the generic form that encoding/json with
// UseNumber gives: map[string]any, []any, string, json.Number, bool, nil.
// ok is false for anything else (invalid JSON, trailing data, very deep
// nesting); the caller then decodes with encoding/json, which gives the
// error. Whenever ok is true, the value equals encoding/json's, so the
// fast path changes nothing but the cost: one pass over raw, no copy of
// it, and no reflection.
func decodeFast(raw []byte) (v any, ok bool) {
	d := fastDecoder{data: raw}
	d.space()
	v, ok = d.value(0)
	if !ok {
		return nil, false
	}
	d.space()
	if d.pos != len(d.data) {
		return nil, false
	}
	return v, true
}

// commonStrings holds the strings most schemas repeat (keywords, type
// names, formats), each mapped to itself, so that decoding them shares one
// copy instead of allocating a new one each time.
var commonStrings = func() map[string]string {
	m := map[string]string{}
	for _, s := range []string{
		"type", "properties", "required", "description", "title", "items", "enum", "const",
		"default", "format", "pattern", "minimum", "maximum", "exclusiveMinimum",
		"exclusiveMaximum", "minLength", "maxLength", "minItems", "maxItems", "minProperties",
		"maxProperties", "additionalProperties", "anyOf", "oneOf", "allOf", "not", "$ref",
		"$defs", "definitions", "$schema", "$id", "examples", "example", "nullable",
		"uniqueItems", "multipleOf", "prefixItems", "patternProperties", "propertyNames",
		"deprecated", "readOnly", "writeOnly", "$comment", "contentEncoding",
		"contentMediaType", "propertyOrdering", "const",
		"object", "string", "integer", "number", "boolean", "array", "null",
		"date-time", "date", "time", "uri", "email", "uuid", "enum",
		"http://json-schema.org/draft-07/schema#", "https://json-schema.org/draft/2020-12/schema",
	} {
		m[s] = s
	}
	return m
}()

// fastDecoder is the state of decodeFast: the input and the read offset.
type fastDecoder struct {
	data []byte
	pos  int
}

// space skips JSON white space.
func (d *fastDecoder) space() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

// value decodes the value starting at pos (white space already skipped).
func (d *fastDecoder) value(depth int) (any, bool) {
	if d.pos >= len(d.data) || depth > maxFastDepth {
		return nil, false
	}
	switch c := d.data[d.pos]; {
	case c == '{':
		return d.object(depth + 1)
	case c == '[':
		return d.array(depth + 1)
	case c == '"':
		s, ok := d.str()
		if !ok {
			return nil, false
		}
		return s, true
	case c == 't':
		return true, d.literal("true")
	case c == 'f':
		return false, d.literal("false")
	case c == 'n':
		return nil, d.literal("null")
	case c == '-' || c >= '0' && c <= '9':
		return d.number()
	}
	return nil, false
}

// literal consumes lit.
func (d *fastDecoder) literal(lit string) bool {
	if len(d.data)-d.pos < len(lit) || string(d.data[d.pos:d.pos+len(lit)]) != lit {
		return false
	}
	d.pos += len(lit)
	return true
}

// object decodes an object; pos is at '{'. A repeated key keeps its last
// value, as with encoding/json.
func (d *fastDecoder) object(depth int) (any, bool) {
	d.pos++
	m := map[string]any{}
	d.space()
	if d.pos < len(d.data) && d.data[d.pos] == '}' {
		d.pos++
		return m, true
	}
	for {
		if d.pos >= len(d.data) || d.data[d.pos] != '"' {
			return nil, false
		}
		k, ok := d.str()
		if !ok {
			return nil, false
		}
		d.space()
		if d.pos >= len(d.data) || d.data[d.pos] != ':' {
			return nil, false
		}
		d.pos++
		d.space()
		v, ok := d.value(depth)
		if !ok {
			return nil, false
		}
		m[k] = v
		d.space()
		if d.pos >= len(d.data) {
			return nil, false
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
			d.space()
		case '}':
			d.pos++
			return m, true
		default:
			return nil, false
		}
	}
}

// array decodes an array; pos is at '['.
func (d *fastDecoder) array(depth int) (any, bool) {
	d.pos++
	a := []any{}
	d.space()
	if d.pos < len(d.data) && d.data[d.pos] == ']' {
		d.pos++
		return a, true
	}
	for {
		d.space()
		v, ok := d.value(depth)
		if !ok {
			return nil, false
		}
		a = append(a, v)
		d.space()
		if d.pos >= len(d.data) {
			return nil, false
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
		case ']':
			d.pos++
			return a, true
		default:
			return nil, false
		}
	}
}

// str decodes a string; pos is at its opening quote. A string without
// escapes that is valid UTF-8 is taken as it is; any other string is
// decoded by encoding/json itself, so escapes, surrogates and invalid
// UTF-8 get exactly its treatment.
func (d *fastDecoder) str() (string, bool) {
	start := d.pos
	d.pos++
	plain, ascii := true, true
	for d.pos < len(d.data) {
		c := d.data[d.pos]
		switch {
		case c == '"':
			d.pos++
			body := d.data[start+1 : d.pos-1]
			if plain && ascii {
				if k, ok := commonStrings[string(body)]; ok {
					return k, true // no allocation (the lookup does not copy body)
				}
			}
			if plain && (ascii || utf8.Valid(body)) {
				return string(body), true
			}
			var s string
			if json.Unmarshal(d.data[start:d.pos], &s) != nil {
				return "", false
			}
			return s, true
		case c == '\\':
			plain = false
			d.pos += 2 // the escaped character cannot end the string
			continue
		case c < 0x20:
			return "", false
		case c >= utf8.RuneSelf:
			ascii = false
		}
		d.pos++
	}
	return "", false
}

// number decodes a number as json.Number, checking the JSON grammar
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
func (d *fastDecoder) number() (any, bool) {
	start := d.pos
	if d.data[d.pos] == '-' {
		d.pos++
	}
	switch {
	case d.pos < len(d.data) && d.data[d.pos] == '0':
		d.pos++
	case d.digits() == 0:
		return nil, false
	}
	if d.pos < len(d.data) && d.data[d.pos] == '.' {
		d.pos++
		if d.digits() == 0 {
			return nil, false
		}
	}
	if d.pos < len(d.data) && (d.data[d.pos] == 'e' || d.data[d.pos] == 'E') {
		d.pos++
		if d.pos < len(d.data) && (d.data[d.pos] == '+' || d.data[d.pos] == '-') {
			d.pos++
		}
		if d.digits() == 0 {
			return nil, false
		}
	}
	return json.Number(d.data[start:d.pos]), true
}

// digits consumes a run of decimal digits and returns its length.
func (d *fastDecoder) digits() int {
	start := d.pos
	for d.pos < len(d.data) && d.data[d.pos] >= '0' && d.data[d.pos] <= '9' {
		d.pos++
	}
	return d.pos - start
}
