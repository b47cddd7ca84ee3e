package result

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// The result of every call is split into its fields and content blocks.
// encoding/json does that through reflection, scanning the bytes once to
// check them and again per level; objectFields and arrayElems split valid
// JSON in one pass and fall back to encoding/json for anything unusual
// (escaped or invalid UTF-8 keys), giving the same result.

// objectFields returns the members of the JSON object raw, as
// json.Unmarshal into a map[string]json.RawMessage does (a key given twice
// keeps its last value); the values share raw's bytes. An error or a
// non-object is reported as Unmarshal reports it.
func objectFields(raw []byte) (map[string]json.RawMessage, error) {
	if !json.Valid(raw) {
		var f map[string]json.RawMessage
		return f, json.Unmarshal(raw, &f)
	}
	return validFields(raw)
}

// validFields is objectFields for raw that is known to be valid JSON: a
// value split out of a document that was checked whole, which need not be
// checked again.
func validFields(raw []byte) (map[string]json.RawMessage, error) {
	if f, ok := splitObject(raw); ok {
		return f, nil
	}
	var f map[string]json.RawMessage
	err := json.Unmarshal(raw, &f)
	return f, err
}

// arrayElems returns the elements of the JSON array raw, as json.Unmarshal
// into a []json.RawMessage does; the elements share raw's bytes.
func arrayElems(raw []byte) ([]json.RawMessage, error) {
	if !json.Valid(raw) {
		var a []json.RawMessage
		return a, json.Unmarshal(raw, &a)
	}
	return validElems(raw)
}

// validElems is arrayElems for raw that is known to be valid JSON (see
// validFields).
func validElems(raw []byte) ([]json.RawMessage, error) {
	if a, ok := splitArray(raw); ok {
		return a, nil
	}
	var a []json.RawMessage
	err := json.Unmarshal(raw, &a)
	return a, err
}

// splitObject splits raw, which must be valid JSON; false when raw is not
// an object or a key needs decoding.
func splitObject(raw []byte) (map[string]json.RawMessage, bool) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return nil, false
	}
	f := map[string]json.RawMessage{}
	i = skipSpace(raw, i+1)
	if raw[i] == '}' {
		return f, true
	}
	for {
		end := skipValue(raw, i) // the key
		key := raw[i+1 : end-1]
		if bytes.IndexByte(key, '\\') >= 0 || !utf8.Valid(key) {
			return nil, false
		}
		i = skipSpace(raw, end)
		i = skipSpace(raw, i+1) // past ':'
		end = skipValue(raw, i)
		f[string(key)] = json.RawMessage(raw[i:end:end])
		i = skipSpace(raw, end)
		if raw[i] == '}' {
			return f, true
		}
		i = skipSpace(raw, i+1) // past ','
	}
}

// splitArray splits raw, which must be valid JSON; false when raw is not
// an array.
func splitArray(raw []byte) ([]json.RawMessage, bool) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '[' {
		return nil, false
	}
	a := []json.RawMessage{}
	i = skipSpace(raw, i+1)
	if raw[i] == ']' {
		return a, true
	}
	for {
		end := skipValue(raw, i)
		a = append(a, json.RawMessage(raw[i:end:end]))
		i = skipSpace(raw, end)
		if raw[i] == ']' {
			return a, true
		}
		i = skipSpace(raw, i+1) // past ','
	}
}

// skipSpace returns the index of the first non-space byte of raw from i.
func skipSpace(raw []byte, i int) int {
	for i < len(raw) {
		switch raw[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// skipValue returns the index just past the valid JSON value that starts at
// raw[i].
func skipValue(raw []byte, i int) int {
	depth := 0
	for ; i < len(raw); i++ {
		switch c := raw[i]; c {
		case '"':
			i++
			for raw[i] != '"' {
				if raw[i] == '\\' {
					i++
				}
				i++
			}
			if depth == 0 {
				return i + 1
			}
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1
			}
		default:
			if depth == 0 { // a number or a literal
				for i < len(raw) && !isDelim(raw[i]) {
					i++
				}
				return i
			}
		}
	}
	return i
}

func isDelim(c byte) bool {
	switch c {
	case ',', '}', ']', ' ', '\t', '\n', '\r':
		return true
	}
	return false
}
