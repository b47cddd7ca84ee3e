package registry

import (
	"regexp"
	"strings"
	"testing"
)

// pattern returns an n-character valid name whose characters differ by
// position, so a wrong cut shows in the output.
func pattern(n int) string {
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[i%len(alphabet)]
	}
	return string(b)
}

func TestSanitizeName(t *testing.T) {
	p64, p80 := pattern(64), pattern(80)
	tests := []struct {
		name, in, want string
	}{
		{"valid camel case", "myFunction", "myFunction"},
		{"spaces", "invalid-name with spaces", "invalid-name_with_spaces"},
		{"only symbols", "!@#$%^&*()", "__________"},
		{"colon", "namespace:tool", "namespace_tool"},
		{"digits dot and dash kept", "alsoValid-123.name", "alsoValid-123.name"},
		{"leading digit", "1abc", "_1abc"},
		{"leading dot", ".hidden", "_.hidden"},
		{"leading dash", "-x", "_-x"},
		{"leading underscore kept", "_x", "_x"},
		{"empty", "", "_"},
		{"non-ASCII two bytes", "café", "caf_"},
		{"non-ASCII three bytes", "日本語", "___"},
		{"emoji four bytes", "🙂tool", "_tool"},
		{"invalid UTF-8 bytes", "a\xff\xfeb", "a__b"},
		{"63 characters kept", pattern(63), pattern(63)},
		{"64 characters truncated", p64, p64[:28] + "___" + p64[64-32:]},
		{"80 characters truncated", p80, p80[:28] + "___" + p80[80-32:]},
		{"prefix then truncate", "1" + pattern(63), "_1" + pattern(26) + "___" + pattern(63)[31:]},
		{"long non-ASCII", strings.Repeat("é", 70), strings.Repeat("_", 63)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := SanitizeName(tt.in)
			if got != tt.want {
				t.Errorf("SanitizeName(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if !ValidName(got) || len(got) > MaxNameLen {
				t.Errorf("SanitizeName(%q) = %q (%d chars), not a valid name", tt.in, got, len(got))
			}
			if again := SanitizeName(got); again != got {
				t.Errorf("SanitizeName(%q) = %q, want %q (idempotent)", got, again, got)
			}
		})
	}
}

func TestValidName(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"a", true},
		{"_", true},
		{"myFunction", true},
		{"a.b-c_d9", true},
		{pattern(64), true},
		{pattern(65), false},
		{"", false},
		{"1abc", false},
		{".a", false},
		{"-a", false},
		{"a b", false},
		{"a:b", false},
		{"café", false},
		{"a\x00", false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := ValidName(tt.in); got != tt.want {
				t.Errorf("ValidName(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

// referenceSanitize is Gemini CLI's name algorithm, as SanitizeName's doc
// comment states it, written as directly as possible, to check
// SanitizeName against.
func referenceSanitize(s string) string {
	out := regexp.MustCompile(`[^A-Za-z0-9_.-]`).ReplaceAllString(s, "_")
	if !regexp.MustCompile(`^[A-Za-z_]`).MatchString(out) {
		out = "_" + out
	}
	if len(out) > 63 {
		out = out[:28] + "___" + out[len(out)-32:]
	}
	return out
}

func FuzzSanitizeName(f *testing.F) {
	for _, s := range []string{"", "myFunction", "invalid-name with spaces", "!@#$%^&*()",
		"namespace:tool", "1abc", "日本語", "a\xffb", pattern(63), pattern(64), pattern(80),
		"1" + pattern(63), strings.Repeat("é", 70)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := SanitizeName(s)
		if !ValidName(got) || len(got) > MaxNameLen {
			t.Fatalf("SanitizeName(%q) = %q, not a valid name of at most 63 characters", s, got)
		}
		if again := SanitizeName(got); again != got {
			t.Fatalf("SanitizeName(%q) = %q, want %q (idempotent)", got, again, got)
		}
		if want := referenceSanitize(s); got != want {
			t.Fatalf("SanitizeName(%q) = %q, want %q (reference)", s, got, want)
		}
		if ValidName(s) && len(s) <= MaxNameLen && got != s {
			t.Fatalf("SanitizeName(%q) = %q, want it unchanged", s, got)
		}
	})
}
