package jsonc

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDecoderMembers(t *testing.T) {
	text := []byte(`{ "a" : 1 ,
  "b":{"c" :  "x"} , "a":[true, null]
}`)
	dec := NewDecoder(text, 0)
	if tok, err := dec.Token(); tok != json.Delim('{') || err != nil {
		t.Fatalf("Token() = %v, %v, want {", tok, err)
	}
	var got []Member
	for dec.More() {
		got = append(got, dec.Member())
	}
	want := []Member{
		{Key: "a", KeyOffset: 2, ValueOffset: 8, Value: json.RawMessage(`1`)},
		{Key: "b", KeyOffset: 14, ValueOffset: 18, Value: json.RawMessage(`{"c" :  "x"}`)},
		{Key: "a", KeyOffset: 33, ValueOffset: 37, Value: json.RawMessage(`[true, null]`)},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("members (-want +got):\n%s", diff)
	}

	// A nested object is placed in the whole text through its base.
	inner := NewDecoder(got[1].Value, got[1].ValueOffset)
	if tok, _ := inner.Token(); tok != json.Delim('{') {
		t.Fatalf("inner Token() = %v, want {", tok)
	}
	m := inner.Member()
	if m.Key != "c" || string(text[m.KeyOffset:m.KeyOffset+3]) != `"c"` || string(text[m.ValueOffset:m.ValueOffset+3]) != `"x"` {
		t.Errorf("inner member = %+v, want c at %q, x at %q", m, text[m.KeyOffset:], text[m.ValueOffset:])
	}
	if inner.More() {
		t.Errorf("inner More() = true after its only member")
	}
}

func TestDecodeKinds(t *testing.T) {
	tests := []struct {
		raw, kind string
	}{
		{`null`, "null"},
		{`"s"`, "string"},
		{`12345678901234567890`, "number"},
		{`true`, "boolean"},
		{`[1]`, "array"},
		{`{"a":1}`, "object"},
	}
	for _, tt := range tests {
		v, err := Decode([]byte(tt.raw))
		if err != nil {
			t.Fatalf("Decode(%s) error = %v", tt.raw, err)
		}
		if got := Kind(v); got != tt.kind {
			t.Errorf("Kind(Decode(%s)) = %q, want %q", tt.raw, got, tt.kind)
		}
		tok, _ := NewDecoder([]byte(tt.raw), 0).Token()
		if got := TokenKind(tok); got != tt.kind {
			t.Errorf("TokenKind(first token of %s) = %q, want %q", tt.raw, got, tt.kind)
		}
	}
	if n, _ := Decode([]byte(`12345678901234567890`)); n != json.Number("12345678901234567890") {
		t.Errorf("Decode kept the number as %#v, want the json.Number as written", n)
	}
	if got := Kind(3); got != "int" {
		t.Errorf("Kind(3) = %q, want the Go type int", got)
	}
}

// FuzzMembers: for any text, StripComments keeps every byte's place (same
// length, same line breaks) and is idempotent; when the text is a valid
// object, every member the Decoder reads, at any depth, is where it says:
// the key's quote at KeyOffset and the value's text at ValueOffset; and
// when it is not valid JSON, a walk over its members ends.
func FuzzMembers(f *testing.F) {
	f.Add([]byte(`{"a": 1, "b": {"c": [1, {"d": null}]}}`))
	f.Add([]byte("// c\n{ /* x */ \"a\" : \"//\" , \"b\":{}}"))
	f.Add([]byte("{\"é\":\n\t\"\\\"x\"}"))
	f.Add([]byte(`/* open`))
	f.Fuzz(func(t *testing.T, data []byte) {
		clean, err := StripComments(data)
		if err != nil {
			return
		}
		if len(clean) != len(data) || bytes.Count(clean, []byte("\n")) != bytes.Count(data, []byte("\n")) {
			t.Fatalf("StripComments(%q) = %q: moved bytes or line breaks", data, clean)
		}
		if again, err := StripComments(clean); err != nil || !bytes.Equal(again, clean) {
			t.Fatalf("StripComments twice = %q, %v; once = %q", again, err, clean)
		}
		if Check(clean) != nil {
			// Bad JSON: a walk over its members still ends.
			dec := NewDecoder(clean, 0)
			if tok, _ := dec.Token(); tok == json.Delim('{') {
				for n := 0; dec.More(); n++ {
					if n > len(clean) {
						t.Fatalf("members of %q: More still true after %d members", clean, n)
					}
					dec.Member()
				}
			}
			return
		}
		var walk func(value []byte, base, depth int)
		walk = func(value []byte, base, depth int) {
			if depth > 20 {
				return
			}
			dec := NewDecoder(value, base)
			if tok, _ := dec.Token(); tok != json.Delim('{') {
				return
			}
			for dec.More() {
				m := dec.Member()
				if clean[m.KeyOffset] != '"' {
					t.Fatalf("member %q of %q: KeyOffset %d is not at its quote", m.Key, clean, m.KeyOffset)
				}
				if !bytes.HasPrefix(clean[m.ValueOffset:], m.Value) || len(m.Value) == 0 {
					t.Fatalf("member %q of %q: value %q is not at ValueOffset %d", m.Key, clean, m.Value, m.ValueOffset)
				}
				walk(m.Value, m.ValueOffset, depth+1)
			}
		}
		walk(clean, 0, 0)
	})
}

// TestDecoderBadJSONEnds: a loop over the members of text that is not
// valid JSON ends, and Err says why, instead of spinning on the same byte.
func TestDecoderBadJSONEnds(t *testing.T) {
	for _, in := range []string{`{"a" x`, `{"a": 1 "b": 2}`, `{"a": }`, `{1: 2}`, `{"a": [1,}`} {
		dec := NewDecoder([]byte(in), 0)
		if tok, _ := dec.Token(); tok != json.Delim('{') {
			t.Fatalf("Token(%s) = %v, want {", in, tok)
		}
		n := 0
		for dec.More() {
			dec.Member()
			if n++; n > 10 {
				t.Fatalf("members of %s: still More after %d members", in, n)
			}
		}
		if dec.Err() == nil {
			t.Errorf("Err() after the members of %s = nil, want the syntax error", in)
		}
	}
	// Valid input leaves no error, even at its end.
	dec := NewDecoder([]byte(`{"a": 1}`), 0)
	for tok, err := dec.Token(); err == nil && tok != nil; tok, err = dec.Token() {
	}
	if err := dec.Err(); err != nil {
		t.Errorf("Err() after reading valid JSON to its end = %v, want nil", err)
	}
}
