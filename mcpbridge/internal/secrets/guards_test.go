package secrets

import (
	"strings"
	"testing"
)

// proseByPatterns and textByPatterns are Text's rules applied without the
// guards that skip a pattern: what the guarded Text must equal.
func proseByPatterns(s string) string {
	s = schemePattern.ReplaceAllString(s, "$1 "+Redacted)
	s = dsnPattern.ReplaceAllString(s, "$1:"+Redacted+"@$3")
	s = jsonPattern.ReplaceAllStringFunc(s, func(m string) string {
		sub := jsonPattern.FindStringSubmatch(m)
		name, sep, q := sub[1], sub[2], `"`
		if sub[4] != "" {
			name, sep, q = sub[4], sub[5], "'"
		}
		if secretName(name) || secretHeader(name) {
			return q + name + q + sep + q + Redacted + q
		}
		return m
	})
	s = quotedPattern.ReplaceAllStringFunc(s, func(m string) string {
		name, rest, _ := strings.Cut(m, "=")
		if secretName(name) {
			return name + "=" + rest[:1] + Redacted + rest[:1]
		}
		return m
	})
	s = assignPattern.ReplaceAllStringFunc(s, func(m string) string {
		name, _, _ := strings.Cut(m, "=")
		if secretName(name) {
			return name + "=" + Redacted
		}
		return m
	})
	return colonPattern.ReplaceAllStringFunc(s, func(m string) string {
		sub := colonPattern.FindStringSubmatch(m)
		name, value := sub[1], sub[2]
		if colonName(name) && !authSchemes[strings.ToLower(value)] {
			return m[:len(m)-len(value)] + Redacted
		}
		return m
	})
}

func textByPatterns(s string) string {
	var b strings.Builder
	last := 0
	for _, loc := range urlPattern.FindAllStringIndex(s, -1) {
		b.WriteString(proseByPatterns(s[last:loc[0]]))
		b.WriteString(redactURL(s[loc[0]:loc[1]]))
		last = loc[1]
	}
	b.WriteString(proseByPatterns(s[last:]))
	out := jwtPattern.ReplaceAllString(b.String(), Redacted)
	return wordPattern.ReplaceAllStringFunc(out, func(w string) string {
		if secretValue(w) {
			return Redacted
		}
		return w
	})
}

var guardSeeds = []string{
	"",
	"plain words and numbers 12345, nothing secret",
	`{"name": "value", "password": "hunter2hunter2", "items": ["a", "b"]}`,
	"Authorization: Bearer abcdefghijklmnop and BASIC dXNlcjpwYXNz",
	"baſic dXNlcjpwYXNzd29yZA== and bearer\ttok",
	"api_key=abc123&token='quoted value' secret=\"x y\" PASSWORD: swordfish",
	"user:pa55word@tcp(db:3306)/x and bob:pw@host.example:5432",
	"see https://user:pass@example.com/p?token=abc#frag then ghp_0123456789abcdefghijklmnopqrstuvwxyz",
	"jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c end",
	"sk_live_0123456789abcdef AKIAABCDEFGHIJKLMNOP x-api-key: 0123456789abcdef",
}

// TestGuardsChangeNothing: Text with its guards equals the patterns applied
// everywhere, on texts that hold and lack each guard's literal.
func TestGuardsChangeNothing(t *testing.T) {
	r := New(Config{})
	for _, s := range guardSeeds {
		if got, want := r.Text(s), textByPatterns(s); got != want {
			t.Errorf("Text(%q) = %q, want %q (the unguarded patterns)", s, got, want)
		}
	}
}

func FuzzTextGuards(f *testing.F) {
	for _, s := range guardSeeds {
		f.Add(s)
	}
	r := New(Config{})
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := r.Text(s), textByPatterns(s); got != want {
			t.Fatalf("Text(%q) = %q, want %q (the unguarded patterns)", s, got, want)
		}
	})
}

// BenchmarkTextGuards: Text against the same rules without guards
// (textByPatterns), on 1 KiB of prose without secrets and on 1 KiB of JSON.
func BenchmarkTextGuards(b *testing.B) {
	r := New(Config{})
	inputs := []struct{ name, text string }{
		{"prose", strings.Repeat("some ordinary tool output with words and numbers 12345, ", 18)},
		{"json", strings.Repeat(`{"name": "value", "count": 12, "items": ["a", "b"]}, `, 19)},
	}
	for _, in := range inputs {
		b.Run(in.name+"/guarded", func(b *testing.B) {
			for b.Loop() {
				r.Text(in.text)
			}
		})
		b.Run(in.name+"/unguarded", func(b *testing.B) {
			for b.Loop() {
				textByPatterns(in.text)
			}
		})
	}
}
