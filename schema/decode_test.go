package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// decodeSlow is what Convert did before decodeFast: encoding/json with
// UseNumber, one value, nothing after it.
func decodeSlow(raw []byte) (any, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil, false
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, false
	}
	return v, true
}

// checkDecodeFast fails t when decodeFast accepts raw but disagrees with
// encoding/json, or accepts what encoding/json rejects.
func checkDecodeFast(t *testing.T, raw []byte) (ok bool) {
	t.Helper()
	got, ok := decodeFast(raw)
	if !ok {
		return false
	}
	want, wantOK := decodeSlow(raw)
	if !wantOK {
		t.Errorf("decodeFast(%q) accepted input that encoding/json rejects", raw)
		return true
	}
	if !reflect.DeepEqual(want, got) { // cmp.Diff only on failure: it is slow on deep input
		t.Errorf("decodeFast(%q) (-want +got):\n%s", raw, cmp.Diff(want, got))
	}
	return true
}

func TestDecodeFast(t *testing.T) {
	tests := []struct {
		name, in string
		ok       bool // decodeFast handles it itself
	}{
		{"object", `{"type":"object","properties":{"a":{"type":"string"}}}`, true},
		{"white space", " \t\r\n{ \"a\" : [ 1 , 2 ] }\n ", true},
		{"scalars", `[true,false,null,"s",0,-0,1.5,-2e10,3E+2,4e-1,12345678901234567890]`, true},
		{"empty containers", `[{},[],""]`, true},
		{"duplicate key keeps last", `{"a":1,"a":2}`, true},
		{"escapes", `{"\u00e9\n":"a\"b\\c\/\ud83d\ude00"}`, true},
		{"lone surrogate", `"\ud800x"`, true},
		{"utf-8", `{"café":"日本"}`, true},
		{"invalid utf-8", "\"a\xffb\"", true},
		{"number exactly as written", `[1.50,1e3,-0.0]`, true},
		{"trailing data", `{} {}`, false},
		{"trailing comma", `[1,]`, false},
		{"object trailing comma", `{"a":1,}`, false},
		{"leading zero", `01`, false},
		{"bare minus", `-`, false},
		{"fraction without digits", `1.`, false},
		{"exponent without digits", `1e+`, false},
		{"control character", "\"a\tb\"", false},
		{"bad escape", `"\x"`, false},
		{"unterminated string", `"abc`, false},
		{"unterminated escape", `"\`, false},
		{"unterminated object", `{"a":1`, false},
		{"missing colon", `{"a" 1}`, false},
		{"non-string key", `{1:2}`, false},
		{"truncated literal", `tru`, false},
		{"byte order mark", "\ufeff{}", false},
		{"vertical tab", "\v{}", false},
		{"too deep", strings.Repeat("[", maxFastDepth+2) + strings.Repeat("]", maxFastDepth+2), false},
		{"deep but within", strings.Repeat("[", maxFastDepth) + strings.Repeat("]", maxFastDepth), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := checkDecodeFast(t, []byte(tt.in)); got != tt.ok {
				t.Errorf("decodeFast(%q) ok = %v, want %v", tt.in, got, tt.ok)
			}
		})
	}
}

// TestDecodeFastNoRetain checks that decoded strings and numbers do not
// alias the input.
func TestDecodeFastNoRetain(t *testing.T) {
	raw := []byte(`{"k":["v",12]}`)
	v, ok := decodeFast(raw)
	if !ok {
		t.Fatalf("decodeFast(%s) failed", raw)
	}
	for i := range raw {
		raw[i] = 'x'
	}
	want := map[string]any{"k": []any{"v", json.Number("12")}}
	if diff := cmp.Diff(want, v); diff != "" {
		t.Errorf("decodeFast result changed with its input (-want +got):\n%s", diff)
	}
}

// FuzzDecodeFast compares decodeFast with encoding/json on arbitrary bytes.
func FuzzDecodeFast(f *testing.F) {
	fuzzSeeds(f, false)
	for _, s := range []string{`"\ud800"`, "\"\xed\xa0\x80\"", `[1e5,-0.5]`, `{"a":{"a":1},"a":2}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		checkDecodeFast(t, raw)
	})
}
