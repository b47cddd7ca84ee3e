package secrets

import (
	"fmt"
	"strings"
	"testing"
)

// replaceEach is ReplaceConfigured without the one-pass probe: the
// baseline of BenchmarkReplaceConfigured.
func (r *Redactor) replaceEach(s string) string {
	for _, p := range r.each() {
		for _, secret := range p.secrets {
			if len(secret) >= minSecretLen {
				s = strings.ReplaceAll(s, secret, Redacted)
			}
		}
	}
	return s
}

// BenchmarkReplaceConfigured: a 64 KiB tool output redacted by a Keyring
// that learned n credentials (a login, then refreshes: each credential in
// its encoded forms), without a secret in it (the usual case) and with
// one; "each" is the baseline without the probe.
func BenchmarkReplaceConfigured(b *testing.B) {
	for _, n := range []int{4, 64, 256} {
		k := NewKeyring(New(Config{Env: map[string]string{"API_TOKEN": "configured-token-1"}}))
		for i := range n {
			k.Learn(fmt.Sprintf("eyJhbGciOiJSUzI1NiJ9.access+token/%d==", i))
		}
		r := k.Redactor()
		clean := strings.Repeat("ordinary tool output, line after line of it. ", 64<<10/46)
		dirty := clean[:len(clean)/2] + "eyJhbGciOiJSUzI1NiJ9.access+token/3==" + clean[len(clean)/2:]
		for _, tc := range []struct {
			name, text string
		}{{"clean", clean}, {"secret", dirty}} {
			b.Run(fmt.Sprintf("learned=%d/%s/each", n, tc.name), func(b *testing.B) {
				b.SetBytes(int64(len(tc.text)))
				for b.Loop() {
					_ = r.replaceEach(tc.text)
				}
			})
			b.Run(fmt.Sprintf("learned=%d/%s/probe", n, tc.name), func(b *testing.B) {
				b.SetBytes(int64(len(tc.text)))
				for b.Loop() {
					_ = r.ReplaceConfigured(tc.text)
				}
			})
		}
	}
}

// BenchmarkKeyringUsers: a Keyring holding the tokens of 100 to 5,000
// users (see learnToken: 7 credentials each, JWT-shaped access tokens
// sharing a long prefix). "refresh" is one user's refresh learned and
// the snapshot built again (what each login or refresh costs the next
// output); "clean" and "secret" redact a 64 KiB tool output without and
// with one user's access token.
func BenchmarkKeyringUsers(b *testing.B) {
	clean := strings.Repeat("ordinary tool output, line after line of it. ", 64<<10/46)
	for _, users := range []int{100, 1000, 5000} {
		k := NewKeyring(New(Config{Env: map[string]string{"API_TOKEN": "configured-token-1"}}))
		for u := range users {
			learnToken(k, u, 0)
		}
		r := k.Redactor()
		access, _, _, _, _ := userToken(users/2, 0)
		dirty := clean[:len(clean)/2] + access + clean[len(clean)/2:]
		b.Run(fmt.Sprintf("users=%d/refresh", users), func(b *testing.B) {
			i := 1
			for b.Loop() {
				learnToken(k, i%users, i)
				i++
				_ = k.Redactor()
			}
		})
		b.Run(fmt.Sprintf("users=%d/clean", users), func(b *testing.B) {
			b.SetBytes(int64(len(clean)))
			for b.Loop() {
				_ = r.ReplaceConfigured(clean)
			}
		})
		b.Run(fmt.Sprintf("users=%d/secret", users), func(b *testing.B) {
			b.SetBytes(int64(len(dirty)))
			for b.Loop() {
				if r.ReplaceConfigured(dirty) == dirty {
					b.Fatal("the token was not hidden")
				}
			}
		})
	}
}

// BenchmarkLearnKnown: what each request costs the keyring, its
// Authorization value learned again for its owner, with 1,000 users'
// tokens known.
func BenchmarkLearnKnown(b *testing.B) {
	k := NewKeyring(nil)
	for u := range 1000 {
		learnToken(k, u, 0)
	}
	access, _, _, _, _ := userToken(500, 0)
	o := Owner{User: "user-500", Name: "auth https://mcp.example.com"}
	k.LearnFor(o, access)
	for b.Loop() {
		k.LearnFor(o, access)
	}
}
