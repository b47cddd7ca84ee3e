package args

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Encode returns the JSON sent to the server for args and the same JSON as
// the validator reads it (numbers as json.Number), without decoding
// that JSON again when args holds only what a JSON decoder produces (maps,
// slices, strings, json.Number, float64, int, bool, nil): the value is then copied with its
// numbers as the json.Number that decoding would give. Anything else goes
// through an encoding and a decoding. args is not modified.
func Encode(args any) (json.RawMessage, any, error) {
	v, ok := instance(args)
	if !ok {
		return encodeJSON(args)
	}
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, nil, err
	}
	return raw, v, nil
}

// instance returns v as decoding json.Marshal(v) with numbers as
// json.Number would, and true; false when v holds a type it does not
// handle (the caller then encodes and decodes). v is not modified.
func instance(v any) (any, bool) {
	switch v := v.(type) {
	case nil, bool:
		return v, true
	case string:
		// json.Marshal replaces invalid UTF-8: leave that to it.
		return v, utf8.ValidString(v)
	case json.Number:
		// json.Marshal checked the spelling and writes it as is ("" as 0);
		// the restorer gives numbers this way.
		if v == "" {
			return json.Number("0"), true
		}
		return v, true
	case float64:
		n, ok := floatNumber(v)
		return n, ok
	case int:
		return json.Number(strconv.Itoa(v)), true
	case int64:
		return json.Number(strconv.FormatInt(v, 10)), true
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			if !utf8.ValidString(k) {
				return nil, false
			}
			c, ok := instance(e)
			if !ok {
				return nil, false
			}
			out[k] = c
		}
		return out, true
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			c, ok := instance(e)
			if !ok {
				return nil, false
			}
			out[i] = c
		}
		return out, true
	}
	return nil, false
}

// floatNumber spells f as encoding/json does (shortest form, 'e' notation
// below 1e-6 and from 1e21 on, exponent without a leading zero). NaN and
// infinities are not JSON: false.
func floatNumber(f float64) (json.Number, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "", false
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b := strconv.AppendFloat(make([]byte, 0, 24), f, format, -1, 64)
	if format == 'e' {
		// "1e-07" -> "1e-7", as encoding/json writes it.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return json.Number(b), true
}

// encodeJSON returns the JSON that is sent to the server for args, and the
// same JSON decoded as the validator reads it (numbers as json.Number).
func encodeJSON(args any) (json.RawMessage, any, error) {
	b, err := json.Marshal(args)
	if err != nil {
		return nil, nil, err
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return nil, nil, err
	}
	return b, v, nil
}
