package registry

import "strings"

// MaxNameLen is the length of the longest name [SanitizeName] returns.
// Gemini accepts 64 characters; 63 follows Gemini CLI, which truncates
// longer names to 28 + "___" + 32 characters.
const MaxNameLen = 63

const (
	truncHead = 28 // characters kept from the start of a long name
	truncTail = 32 // characters kept from the end of a long name
	truncSep  = "___"
)

// SanitizeName returns s as a valid Gemini function name, following Gemini
// CLI's algorithm exactly:
//
//  1. every character outside [A-Za-z0-9_.-] becomes "_", one "_" per
//     character (a multi-byte UTF-8 character is one character; so is each
//     byte of invalid UTF-8);
//  2. if the first character (after step 1) is not a letter or "_", "_" is
//     prefixed: "1abc" becomes "_1abc", ".x" becomes "_.x", "!x" becomes
//     "_x" by step 1 alone; the empty string becomes "_";
//  3. a result longer than 63 characters keeps its first 28 and last 32
//     characters joined by "___", 63 in total.
//
// The result always satisfies [ValidName], is at most 63 characters long, and
// SanitizeName(SanitizeName(s)) == SanitizeName(s). A name that is already
// valid and at most 63 characters long is returned unchanged.
func SanitizeName(s string) string {
	if len(s) <= MaxNameLen && ValidName(s) {
		return s // fast path: nothing to do, no allocation
	}
	var b strings.Builder
	b.Grow(len(s) + 1)
	first := true
	for _, r := range s { // an invalid byte arrives as one utf8.RuneError
		if first {
			first = false
			// Checked after replacing: "!x" becomes "_x", "1x" becomes "_1x".
			if isNameChar(r) && !isLetter(r) && r != '_' {
				b.WriteByte('_')
			}
		}
		if isNameChar(r) {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	if first { // s was empty
		return "_"
	}
	out := b.String() // ASCII only: bytes are characters
	if len(out) > MaxNameLen {
		out = out[:truncHead] + truncSep + out[len(out)-truncTail:]
	}
	return out
}

// ValidName reports whether s is a valid Gemini function name: a letter or
// "_" first, then only letters, digits, "_", "." and "-", at most 64
// characters in total.
func ValidName(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	if !isLetter(rune(s[0])) && s[0] != '_' {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isNameChar(rune(s[i])) {
			return false
		}
	}
	return true
}

func isLetter(r rune) bool {
	return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z'
}

func isNameChar(r rune) bool {
	return isLetter(r) || '0' <= r && r <= '9' || r == '_' || r == '.' || r == '-'
}
