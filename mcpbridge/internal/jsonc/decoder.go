package jsonc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// A Decoder reads one JSON value, token by token, as a [json.Decoder]
// does with [json.Decoder.UseNumber], and places each member of an object
// it reads with [Decoder.Member] in the whole text the value came from.
type Decoder struct {
	value []byte
	base  int
	dec   *json.Decoder
	err   error // the first error of Token or Member
}

// NewDecoder returns a Decoder of value, JSON without comments (see
// [StripComments]; [Check] it first to report its syntax errors with their
// offsets) whose first byte is at offset base of the whole text; base is 0
// for the whole text itself. value is read, never modified; the Decoder
// keeps it.
func NewDecoder(value []byte, base int) *Decoder {
	dec := json.NewDecoder(bytes.NewReader(value))
	dec.UseNumber()
	return &Decoder{value: value, base: base, dec: dec}
}

// Token returns the next token, as [json.Decoder.Token] does; numbers are
// [json.Number]s.
func (d *Decoder) Token() (json.Token, error) {
	tok, err := d.dec.Token()
	d.fail(err)
	return tok, err
}

// More reports whether the array or object being read has another element.
// After an error of [Decoder.Token] or [Decoder.Member] it reports false,
// so a loop over the members of bad JSON ends; [Decoder.Err] says why.
func (d *Decoder) More() bool { return d.err == nil && d.dec.More() }

// Err returns the first error met reading the value, nil if none.
func (d *Decoder) Err() error { return d.err }

func (d *Decoder) fail(err error) {
	if d.err == nil && err != nil && err != io.EOF {
		d.err = err
	}
}

// A Member is one "key": value pair of an object, placed in the whole text.
type Member struct {
	Key string
	// KeyOffset and ValueOffset are the offsets, in the whole text, of the
	// key's opening quote and of the value's first byte.
	KeyOffset, ValueOffset int
	// Value is the member's value as written; it is the caller's.
	Value json.RawMessage
}

// Member reads the next member of the object being read; call it after
// the object's opening token while [Decoder.More] reports true. On input
// that is not valid JSON the Member may be partial, and [Decoder.Err] says
// what was wrong.
func (d *Decoder) Member() Member {
	var m Member
	m.KeyOffset = d.base + skip(d.value, int(d.dec.InputOffset()), ",")
	tok, err := d.dec.Token()
	d.fail(err)
	m.Key, _ = tok.(string)
	m.ValueOffset = d.base + skip(d.value, int(d.dec.InputOffset()), ":")
	d.fail(d.dec.Decode(&m.Value))
	return m
}

// Decode returns the value of raw, valid JSON, decoded as [json.Unmarshal]
// decodes into an any, except that numbers are [json.Number]s.
func Decode(raw []byte) (any, error) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	err := dec.Decode(&v)
	return v, err
}

// TokenKind names the JSON type that tok, a token of a [Decoder], begins:
// "object", "array", "string", "number", "boolean" or "null".
func TokenKind(tok json.Token) string {
	switch tok {
	case json.Delim('{'):
		return "object"
	case json.Delim('['):
		return "array"
	}
	return Kind(tok)
}

// Kind names the JSON type of v, a value decoded by [Decode]: "object",
// "array", "string", "number", "boolean" or "null". Any other Go value is
// named by its Go type.
func Kind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case json.Number, float64:
		return "number"
	case bool:
		return "boolean"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}
