// Package jsonc reads JSON with comments, as Gemini CLI's settings files
// are written, without losing track of where anything is: [StripComments]
// blanks comments without moving a byte, [Check] places a syntax error at
// its byte offset, a [Decoder] walks an object member by member with the
// offsets of each key and value, and [Position] turns an offset into a line
// and column. It knows nothing of what the keys mean.
//
//	clean, err := jsonc.StripComments(text)
//	// ...
//	dec := jsonc.NewDecoder(clean, 0)
//	if tok, _ := dec.Token(); tok == json.Delim('{') {
//		for dec.More() {
//			m := dec.Member()
//			line, col := jsonc.Position(text, m.ValueOffset)
//			// ...
//		}
//	}
package jsonc

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"unicode/utf8"
)

// An OffsetError is a problem at byte Offset of a text: bad JSON or an
// unterminated comment.
type OffsetError struct {
	Offset int
	Err    error
}

// Error returns the message of Err.
func (e *OffsetError) Error() string { return e.Err.Error() }

// Unwrap returns Err.
func (e *OffsetError) Unwrap() error { return e.Err }

// StripComments returns a copy of data in which every comment outside
// strings (// to the end of the line, /* to */) is replaced by spaces, line
// breaks kept, so that every offset, line and column stays what it was.
// data is not modified. An unterminated /* comment is an *[OffsetError] at
// its first byte.
func StripComments(data []byte) ([]byte, error) {
	out := bytes.Clone(data)
	inString := false
	for i := 0; i < len(out); i++ {
		c := out[i]
		switch {
		case inString:
			if c == '\\' {
				i++
			} else if c == '"' {
				inString = false
			}
		case c == '"':
			inString = true
		case c == '/' && i+1 < len(out) && out[i+1] == '/':
			for ; i < len(out) && out[i] != '\n'; i++ {
				out[i] = ' '
			}
		case c == '/' && i+1 < len(out) && out[i+1] == '*':
			end := bytes.Index(out[i+2:], []byte("*/"))
			if end < 0 {
				return nil, &OffsetError{Offset: i, Err: errors.New("unterminated /* comment")}
			}
			for j := i; j < i+2+end+2; j++ {
				if out[j] != '\n' && out[j] != '\r' {
					out[j] = ' '
				}
			}
			i += 2 + end + 1
		}
	}
	return out, nil
}

// Check reports whether data, without comments, is one JSON value: nil if
// so, else an *[OffsetError] at the offending byte, or at the end of data
// when it ended too soon. Err is then the *[json.SyntaxError] (or, for an
// error that is not one, that error at offset 0). Empty data is an error,
// as it is for [json.Unmarshal].
func Check(data []byte) error {
	err := json.Unmarshal(data, new(json.RawMessage))
	if err == nil {
		return nil
	}
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return &OffsetError{Err: err}
	}
	off := int(se.Offset) - 1
	if strings.HasPrefix(se.Error(), "unexpected end") {
		off = int(se.Offset)
	}
	return &OffsetError{Offset: off, Err: se}
}

// Position returns the line and column of byte offset off of text, both
// counting from 1; the column counts characters (runes), not bytes. An
// offset outside text is taken as its start or its end.
func Position(text []byte, off int) (line, column int) {
	off = min(max(off, 0), len(text))
	before := text[:off]
	line = 1 + bytes.Count(before, []byte("\n"))
	column = 1 + utf8.RuneCount(before[bytes.LastIndexByte(before, '\n')+1:])
	return line, column
}

// SkipSpace returns the offset of the first byte of data at or after off
// that is not JSON white space; len(data) if there is none.
func SkipSpace(data []byte, off int) int {
	return skip(data, off, "")
}

// skip returns the offset of the first byte at or after off that is
// neither white space nor one of the separators in seps.
func skip(data []byte, off int, seps string) int {
	i := off
	for i < len(data) && strings.IndexByte(" \t\r\n"+seps, data[i]) >= 0 {
		i++
	}
	return i
}
