package completion

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode"

	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	var many []string
	for i := range 150 {
		many = append(many, fmt.Sprint("v", i))
	}
	manyJSON, _ := json.Marshal(many)
	tests := []struct {
		name, raw string
		want      Result
	}{
		{"plain", `{"completion":{"values":["blue","brown"],"total":2}}`, Result{Values: []string{"blue", "brown"}, Total: 2}},
		{"cleaned", `{"completion":{"values":["a\nb\u202ec","","  "],"hasMore":true}}`, Result{Values: []string{"a b c"}, HasMore: true}},
		{"bad total", `{"completion":{"values":[],"total":-3}}`, Result{Values: []string{}}},
		{"too many", `{"completion":{"values":` + string(manyJSON) + `}}`, Result{Values: many[:MaxValues], HasMore: true}},
	}
	for _, tc := range tests {
		got, err := Parse(json.RawMessage(tc.raw))
		if err != nil {
			t.Errorf("Parse(%s) = %v", tc.name, err)
			continue
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("Parse(%s) (-want +got):\n%s", tc.name, diff)
		}
	}
	for _, bad := range []string{`{}`, `{"completion":{}}`, `{"completion":{"values":[1]}}`, `[`, `null`} {
		if _, err := Parse(json.RawMessage(bad)); !errors.Is(err, ErrBadResult) {
			t.Errorf("Parse(%s) = %v, want ErrBadResult", bad, err)
		}
	}
}

// FuzzParse: no panic; at most MaxValues values, each a non-empty clean
// line.
func FuzzParse(f *testing.F) {
	f.Add(`{"completion":{"values":["a","b"],"total":2,"hasMore":false}}`)
	f.Add(`{"completion":{"values":["\u0000x\u202e"],"total":1e300}}`)
	f.Fuzz(func(t *testing.T, raw string) {
		r, err := Parse(json.RawMessage(raw))
		if err != nil {
			return
		}
		if len(r.Values) > MaxValues || r.Total < 0 {
			t.Fatalf("Parse(%q) = %+v", raw, r)
		}
		for _, v := range r.Values {
			if v == "" || strings.IndexFunc(v, func(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) }) >= 0 {
				t.Fatalf("Parse(%q) value %q", raw, v)
			}
		}
	})
}
