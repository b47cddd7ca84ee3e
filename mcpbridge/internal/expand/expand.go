// Package expand replaces environment references ($NAME, ${NAME},
// ${NAME:-default}) in the values of a settings file. It only rewrites
// text: it knows nothing of which values are secret or where they go.
package expand

import "strings"

// String replaces environment references in s using lookup (which reports
// a variable's value and whether it is set, like [os.LookupEnv]) and returns the
// result together with the names of referenced variables that were not set
// (each name once, in order of first use). The forms are:
//
//	$NAME            the value of NAME; NAME is [A-Za-z_][A-Za-z0-9_]*
//	${NAME}          the same, delimited
//	${NAME:-default} the value of NAME, or default (itself expanded) when NAME
//	                 is unset or empty
//	$$               a literal $
//
// An unset variable without a default becomes the empty string. Anything else
// is copied unchanged: a lone $, a $ before a character that cannot start a
// name (so "$1" and "$ 5" stay as written), an unterminated "${" together
// with the rest of s, and a brace form whose name is not a valid name
// ("${A B}"). String never fails and does not retain lookup.
func String(s string, lookup func(name string) (value string, ok bool)) (string, []string) {
	if !strings.Contains(s, "$") {
		return s, nil
	}
	var b strings.Builder
	var missing []string
	note := func(name string) {
		for _, m := range missing {
			if m == name {
				return
			}
		}
		missing = append(missing, name)
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c != '$' || i+1 >= len(s) {
			b.WriteByte(c)
			i++
			continue
		}
		next := s[i+1]
		switch {
		case next == '$':
			b.WriteByte('$')
			i += 2
		case isNameStart(next):
			j := i + 1
			for j < len(s) && isNameByte(s[j]) {
				j++
			}
			name := s[i+1 : j]
			v, ok := lookup(name)
			if !ok {
				note(name)
			}
			b.WriteString(v)
			i = j
		case next == '{':
			end := closingBrace(s, i+2)
			if end < 0 {
				b.WriteString(s[i:])
				i = len(s)
				continue
			}
			inner := s[i+2 : end]
			name, def, hasDefault := strings.Cut(inner, ":-")
			if !ValidName(name) {
				b.WriteString(s[i : end+1])
				i = end + 1
				continue
			}
			v, ok := lookup(name)
			switch {
			case hasDefault && v == "":
				d, m := String(def, lookup)
				for _, n := range m {
					note(n)
				}
				b.WriteString(d)
			case !ok:
				note(name)
			default:
				b.WriteString(v)
			}
			i = end + 1
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String(), missing
}

// closingBrace returns the index of the '}' closing a "${" whose body starts
// at from, counting nested "${...}" pairs, or -1 if there is none.
func closingBrace(s string, from int) int {
	depth := 0
	for j := from; j < len(s); j++ {
		switch {
		case s[j] == '$' && j+1 < len(s) && s[j+1] == '{':
			depth++
			j++
		case s[j] == '}':
			if depth == 0 {
				return j
			}
			depth--
		}
	}
	return -1
}

func isNameStart(c byte) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func isNameByte(c byte) bool {
	return isNameStart(c) || '0' <= c && c <= '9'
}

// ValidName reports whether s is a valid variable name:
// [A-Za-z_][A-Za-z0-9_]*.
func ValidName(s string) bool {
	if s == "" || !isNameStart(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isNameByte(s[i]) {
			return false
		}
	}
	return true
}
