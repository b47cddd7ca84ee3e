package secrets

import (
	"fmt"
	"strings"
	"testing"
)

// plainSecret reports whether s is a secret whose absence from output can
// be checked by substring: long enough to be replaced inside text, and
// without the characters that display quoting or the redaction marker
// would change.
func plainSecret(s string) bool {
	return len(s) >= minSecretLen && !strings.ContainsAny(s, " \t\n\r\"'\\*`") && strings.TrimFunc(s, func(r rune) bool { return r < 0x20 || r > 0x7e }) == s
}

// FuzzCommandLine: the command line never panics, is deterministic, and
// never shows a secret the command-line rules found in the arguments.
func FuzzCommandLine(f *testing.F) {
	for _, s := range [][4]string{
		{"redis-cli", "-a", "hunter22", "-h"}, {"mysql", "-phunter22", "-uroot", "db"}, {"curl", "--user=me:pa55word", "-ume:pa55word", "x"},
		{"srv", "--pwd", "hunter22", "sk-abc123def4"}, {"srv", "--db", "postgres://u:pa#ss9@h/x", "-p"}, {"x", "--token", "--", "-a"},
	} {
		f.Add(s[0], s[1], s[2], s[3])
	}
	f.Fuzz(func(t *testing.T, command, a, b, c string) {
		args := []string{a, b, c}
		r := New(Config{Command: command, Args: args})
		got := r.CommandLine(command, args)
		if again := r.CommandLine(command, args); again != got {
			t.Fatalf("CommandLine not deterministic: %q then %q", got, again)
		}
		for i, arg := range args {
			var secret string
			if _, s, ok := argValue(command, arg); ok {
				secret = s
			} else if i+1 < len(args) {
				if _, s, ok := flagValue(command, arg, args[i+1]); ok {
					secret = s
				}
			}
			if plainSecret(secret) && strings.Contains(got, secret) {
				t.Fatalf("CommandLine(%q, %q) = %q shows the secret %q", command, args, got, secret)
			}
		}
	})
}

// FuzzRedactorURL: URL never panics, is idempotent, and never shows the
// password of the URL it was configured with.
func FuzzRedactorURL(f *testing.F) {
	for _, s := range []string{"https://u:p@h/x?token=1#code=2", "https://user:pa#ss@host/x", "https://user:pa?ss@h?a=1",
		"https://host?x=a@b/c", "http://@", "https://h?=&==", "redis://:w0?rd1@cache:6379", "https://h/x?jwt=a.b.c&sid=1&authkey=2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		r := New(Config{URLs: []string{raw}})
		once := r.URL(raw)
		if twice := r.URL(once); twice != once {
			t.Fatalf("URL not idempotent: %q -> %q -> %q", raw, once, twice)
		}
		for _, s := range urlSecrets(raw) {
			if plainSecret(s) && strings.Contains(once, s) {
				t.Fatalf("URL(%q) = %q shows the secret %q", raw, once, s)
			}
		}
		text := r.Text("error: " + raw)
		if again := r.Text(text); again != text {
			t.Fatalf("Text not idempotent: %q -> %q", text, again)
		}
	})
}

// FuzzKeyring: a learned credential, in every form of Forms, is gone from
// the text it is written into, and redaction stays idempotent.
func FuzzKeyring(f *testing.F) {
	for _, s := range [][3]string{{"tok+en/==", "Bearer ", " failed"}, {"a&b c", "x=", "&y"}, {"eyJ.abc.def", "", ""}, {"<s3cr3t>", "{\"t\":\"", "\"}"}} {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, secret, before, after string) {
		k := NewKeyring(nil)
		k.LearnClient("client", secret)
		k.Learn(secret)
		for _, form := range append(Forms(secret), BasicForms("client", secret)...) {
			text := before + form + after
			got := k.ReplaceConfigured(text)
			if plainSecret(secret) && len(form) >= minSecretLen && strings.Contains(got, form) {
				t.Fatalf("ReplaceConfigured(%q) = %q still holds %q", text, got, form)
			}
			once := k.Text(text)
			if twice := k.Text(once); twice != once {
				t.Fatalf("Text not idempotent: %q -> %q -> %q", text, once, twice)
			}
		}
	})
}

// FuzzKeyringMany: a Keyring of many credentials (found by anchors, in
// stacked parts) hides every credential a text holds, overlapping ones
// included, holds none afterwards, and stays idempotent.
func FuzzKeyringMany(f *testing.F) {
	for _, s := range [][4]string{
		{"xabc", "abcdefgh", "xabcdefgh", "q***"}, {"eyJhbGciOiJFUzI1NiJ9.fill", "filler-01", "[eyJhbGciOiJFUzI1NiJ9.filler-01]", "aaaa"},
		{"tok+en/==", "en/=", "Bearer tok+en/== and en/=", "****"}, {"ab\u00e9cd", "\u00e9cd\u00e9", "ab\u00e9cd\u00e9", "xyzw"},
	} {
		f.Add(s[0], s[1], s[2], s[3])
	}
	f.Fuzz(func(t *testing.T, a, b, text, c string) {
		k := NewKeyring(New(Config{Secrets: []string{c}}))
		for i := range 40 {
			k.LearnFor(Owner{User: "u", Name: string(rune('a' + i%8))}, fmt.Sprintf("eyJhbGciOiJFUzI1NiJ9.filler-%02d", i))
		}
		_ = k.Redactor() // the fillers settle; a and b come in a part of their own
		k.LearnFor(Owner{User: "v", Name: "token"}, a)
		k.Learn(b)
		for _, in := range []string{text, text + a + text, b + text + a} {
			got := k.ReplaceConfigured(in)
			for _, s := range append(append(Forms(a), Forms(b)...), c, "eyJhbGciOiJFUzI1NiJ9.filler-07") {
				if len(s) >= minSecretLen && strings.Contains(got, s) {
					t.Fatalf("ReplaceConfigured(%q) = %q still holds %q", in, got, s)
				}
			}
			if again := k.ReplaceConfigured(got); again != got {
				t.Fatalf("ReplaceConfigured not idempotent: %q -> %q -> %q", in, got, again)
			}
		}
	})
}

// FuzzHolds: the probe that tells whether a text holds a secret without
// building the replaced text says exactly what building it would: a
// difference, however the secrets and the text overlap (a secret of
// stars, one inside another, one at the text's very end).
func FuzzHolds(f *testing.F) {
	for _, s := range [][3]string{{"****", "x***", "a****b"}, {"abcd", "bcde", "xabcdex"}, {"tok+en/==", "en/=", "Bearer tok+en/=="}, {"\u00e9cd\u00e9", "aaaa", "aaa"}} {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, a, b, text string) {
		r := newRedactor([]string{a, b})
		want := r.probe != nil && r.probe.Replace(text) != text
		if got := r.holds(text); got != want {
			t.Fatalf("holds(%q) with secrets %q, %q = %v, the probe's replacement says %v", text, a, b, got, want)
		}
	})
}
