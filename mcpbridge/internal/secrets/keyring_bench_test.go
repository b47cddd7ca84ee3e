package secrets

import (
	"fmt"
	"strings"
	"testing"
)

// replaceEach is ReplaceConfigured without the one-pass probe: the
// baseline of BenchmarkReplaceConfigured.
func (r *Redactor) replaceEach(s string) string {
	for _, secret := range r.secrets {
		if len(secret) >= minSecretLen {
			s = strings.ReplaceAll(s, secret, Redacted)
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
