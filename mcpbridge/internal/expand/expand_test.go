package expand

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// testEnv is a hermetic environment: A=a, EMPTY="", SPACE="x y".
func testEnv(name string) (string, bool) {
	v, ok := map[string]string{"A": "a", "EMPTY": "", "SPACE": "x y", "DOLLAR": "$A"}[name]
	return v, ok
}

func TestExpand(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    string
		missing []string
	}{
		{"no references", "plain text", "plain text", nil},
		{"bare", "$A", "a", nil},
		{"braced", "${A}", "a", nil},
		{"inside text", "x${A}y", "xay", nil},
		{"bare name ends at non-name byte", "$A-b/$A.c", "a-b/a.c", nil},
		{"bare name is greedy", "$AB", "", []string{"AB"}},
		{"missing bare", "[$NOPE]", "[]", []string{"NOPE"}},
		{"missing braced", "[${NOPE}]", "[]", []string{"NOPE"}},
		{"missing named once", "$NOPE ${NOPE} $OTHER", "  ", []string{"NOPE", "OTHER"}},
		{"set but empty is not missing", "[${EMPTY}]", "[]", nil},
		{"default when unset", "${NOPE:-def}", "def", nil},
		{"default when empty", "${EMPTY:-def}", "def", nil},
		{"default not used when set", "${A:-def}", "a", nil},
		{"empty default", "[${NOPE:-}]", "[]", nil},
		{"default is expanded", "${NOPE:-$A/x}", "a/x", nil},
		{"nested braced default", "${NOPE:-${A}}", "a", nil},
		{"nested missing default", "${NOPE:-${GONE}}", "", []string{"GONE"}},
		{"value is not re-expanded", "$DOLLAR", "$A", nil},
		{"value with space", "${SPACE}", "x y", nil},
		{"double dollar", "$$", "$", nil},
		{"escaped reference", "$$A", "$A", nil},
		{"escaped braces", "$${A}", "${A}", nil},
		{"lone dollar", "$", "$", nil},
		{"trailing dollar", "cost 5$", "cost 5$", nil},
		{"dollar digit", "$1", "$1", nil},
		{"dollar space", "$ 5", "$ 5", nil},
		{"unterminated brace", "${A", "${A", nil},
		{"unterminated brace keeps the rest", "x ${A $A", "x ${A $A", nil},
		{"empty braces", "${}", "${}", nil},
		{"invalid braced name", "${A B}", "${A B}", nil},
		{"braced digit", "${1}", "${1}", nil},
		{"non-ASCII around", "é$A€", "éa€", nil},
		{"seed: PWD in docker volume", "${A}:/workspace", "a:/workspace", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, missing := String(tt.in, testEnv)
			if got != tt.want {
				t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if diff := cmp.Diff(tt.missing, missing); diff != "" {
				t.Errorf("String(%q) missing (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func FuzzExpand(f *testing.F) {
	for _, s := range []string{"$A", "${A}", "${A:-x}", "$$", "${", "${A:-${B:-$C}}", "a$", "${A B}", "$é"} {
		f.Add(s)
	}
	unset := func(string) (string, bool) { return "", false }
	f.Fuzz(func(t *testing.T, in string) {
		got, missing := String(in, unset)
		if !strings.Contains(in, "$") && got != in {
			t.Fatalf("String(%q) = %q, want the input unchanged", in, got)
		}
		// With nothing set every reference shrinks or stays.
		if len(got) > len(in) {
			t.Fatalf("String(%q) = %q, longer than the input", in, got)
		}
		for _, name := range missing {
			if !ValidName(name) {
				t.Fatalf("String(%q) reports missing %q, not a valid name", in, name)
			}
		}
		// Expanding with the environment that maps every name to itself
		// never panics and is deterministic.
		self := func(n string) (string, bool) { return n, true }
		a, _ := String(in, self)
		b, _ := String(in, self)
		if a != b {
			t.Fatalf("String(%q) not deterministic: %q then %q", in, a, b)
		}
	})
}
