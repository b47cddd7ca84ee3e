package egress

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseChallenges(t *testing.T) {
	tests := []struct {
		name   string
		values []string
		want   []Challenge
	}{
		{"bearer with params", []string{`Bearer resource_metadata="https://x/.well-known/oauth-protected-resource", scope="a b"`},
			[]Challenge{{Scheme: "Bearer", Params: map[string]string{"resource_metadata": "https://x/.well-known/oauth-protected-resource", "scope": "a b"}}}},
		{"two challenges in one value", []string{`Basic realm="r", Bearer scope=openid, error="invalid_token"`},
			[]Challenge{{Scheme: "Basic", Params: map[string]string{"realm": "r"}}, {Scheme: "Bearer", Params: map[string]string{"scope": "openid", "error": "invalid_token"}}}},
		{"token68", []string{`Negotiate abc+/=, Bearer`},
			[]Challenge{{Scheme: "Negotiate", Token68: "abc+/="}, {Scheme: "Bearer", Params: map[string]string{}}}},
		{"escapes and case", []string{`bearer SCOPE="a \"b\"", scope="ignored"`},
			[]Challenge{{Scheme: "bearer", Params: map[string]string{"scope": `a "b"`}}}},
		{"unterminated quote keeps what came before", []string{`Bearer realm="r", scope="a b`},
			[]Challenge{{Scheme: "Bearer", Params: map[string]string{"realm": "r"}}}},
		{"two values", []string{`Basic realm=x`, `Bearer scope="s"`},
			[]Challenge{{Scheme: "Basic", Params: map[string]string{"realm": "x"}}, {Scheme: "Bearer", Params: map[string]string{"scope": "s"}}}},
		{"junk", []string{`"quoted first"`, ``, `,,, ,`}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseChallenges(http.Header{"Www-Authenticate": tt.values})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseChallenges(%q) (-want +got):\n%s", tt.values, diff)
			}
		})
	}
}

func TestScopesBounds(t *testing.T) {
	challenge := func(n int) http.Header {
		s := make([]string, n)
		for i := range s {
			s[i] = fmt.Sprintf("s%d", i)
		}
		return http.Header{"Www-Authenticate": {fmt.Sprintf(`Basic realm="x", Bearer scope=%q`, strings.Join(s, " "))}}
	}
	if got, err := Scopes(challenge(MaxScopes)); err != nil || len(got) != MaxScopes {
		t.Errorf("Scopes(%d scopes) = %d, %v; want all of them", MaxScopes, len(got), err)
	}
	if _, err := Scopes(challenge(MaxScopes + 1)); !errors.Is(err, ErrChallengeTooLarge) {
		t.Errorf("Scopes(%d scopes) = %v, want ErrChallengeTooLarge", MaxScopes+1, err)
	}
	if _, err := Scopes(challenge(5000)); !errors.Is(err, ErrChallengeTooLarge) || !strings.Contains(err.Error(), "bytes") {
		t.Errorf("Scopes(5000 scopes) = %v, want ErrChallengeTooLarge for the size", err)
	}
	if got, err := Scopes(http.Header{"Www-Authenticate": {`Bearer realm="x"`}}); err != nil || got != nil {
		t.Errorf("Scopes(no scope) = %v, %v; want nil, nil", got, err)
	}
}

// FuzzParseChallenges: no panic, the bounds hold, parsing is
// deterministic, and scopes written as a quoted scope parameter are read
// back.
func FuzzParseChallenges(f *testing.F) {
	f.Add(`Bearer resource_metadata="https://x/y", scope="a b"`, "read write")
	f.Add(`Basic realm="r", Bearer scope=openid`, "openid")
	f.Add(`Negotiate abc==, Bearer error="invalid_token"`, "")
	f.Add(`Bearer scope="a \"b\"\\"`, "x")
	f.Fuzz(func(t *testing.T, value, scopes string) {
		h := http.Header{"Www-Authenticate": {value}}
		got, err := ParseChallenges(h)
		if len(value) > MaxChallenge {
			if !errors.Is(err, ErrChallengeTooLarge) {
				t.Fatalf("ParseChallenges(%d bytes) = %v, want ErrChallengeTooLarge", len(value), err)
			}
			return
		}
		if err != nil {
			t.Fatalf("ParseChallenges(%q) = %v", value, err)
		}
		again, _ := ParseChallenges(h)
		if !cmp.Equal(got, again) {
			t.Fatalf("ParseChallenges(%q) not deterministic", value)
		}
		for _, c := range got {
			if c.Scheme == "" {
				t.Fatalf("ParseChallenges(%q) gave an empty scheme", value)
			}
		}
		if s, err := Scopes(h); err == nil && len(s) > MaxScopes {
			t.Fatalf("Scopes(%q) = %d scopes", value, len(s))
		}
		// Round trip: a scope list written as a quoted-string.
		want := strings.Fields(scopes)
		if len(want) == 0 || len(want) > MaxScopes || len(scopes) > 1000 {
			return
		}
		q := strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(strings.Join(want, " "))
		s, err := Scopes(http.Header{"Www-Authenticate": {`Basic realm="r", Bearer error="x", scope="` + q + `"`}})
		if err != nil || !cmp.Equal(s, want) {
			t.Fatalf("Scopes(scope=%q) = %q, %v; want %q", q, s, err, want)
		}
	})
}
