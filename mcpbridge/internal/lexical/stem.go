package lexical

import "strings"

// stem reduces an English word to a stem shared by its inflections and a
// few derivations, so that "searching", "searches" and "searcher" meet
// "search", and "create", "created", "creating" and "creation" meet. It is
// deliberately light (no rule removes more than one suffix of each kind,
// and short words are left alone) and its stems are not always words:
// "file" and "files" become "fil". Only words of ASCII letters are
// stemmed; other words are returned as they are.
func stem(w string) string {
	for i := 0; i < len(w); i++ {
		if c := w[i]; c < 'a' || c > 'z' {
			return w
		}
	}
	if len(w) <= 3 || unchanged[w] {
		return w
	}
	// Plurals and third persons.
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "ches") || strings.HasSuffix(w, "shes") || strings.HasSuffix(w, "xes") || strings.HasSuffix(w, "zes"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		w = w[:len(w)-1]
	}
	// Verb endings, when a stem with a vowel is left.
	switch {
	case strings.HasSuffix(w, "ing") && hasVowel(w[:len(w)-3]) && len(w) >= 6:
		w = undouble(w[:len(w)-3])
	case strings.HasSuffix(w, "ied") && len(w) > 4:
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "ed") && hasVowel(w[:len(w)-2]) && len(w) >= 5:
		w = undouble(w[:len(w)-2])
	}
	// Derivations that name the action or its doer.
	switch {
	case strings.HasSuffix(w, "ation") && len(w) >= 8:
		w = w[:len(w)-5] + "ate"
	case strings.HasSuffix(w, "ion") && len(w) >= 8 && (w[len(w)-4] == 't' || w[len(w)-4] == 's'):
		w = w[:len(w)-3]
	case strings.HasSuffix(w, "er") && len(w) >= 7:
		w = undouble(w[:len(w)-2])
	}
	if strings.HasSuffix(w, "y") && len(w) > 3 {
		w = w[:len(w)-1] + "i"
	}
	if strings.HasSuffix(w, "e") && len(w) > 3 {
		w = w[:len(w)-1]
	}
	return w
}

// unchanged are words the rules would wrongly take for inflections.
var unchanged = map[string]bool{"news": true, "series": true, "species": true}

// hasVowel reports whether s has a vowel (or a y after its first letter).
func hasVowel(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case 'a', 'e', 'i', 'o', 'u':
			return true
		case 'y':
			if i > 0 {
				return true
			}
		}
	}
	return false
}

// undouble removes the second of a doubled final consonant ("runn" ->
// "run"), except l, s and z, which English doubles in stems too ("call",
// "pass", "buzz").
func undouble(s string) string {
	n := len(s)
	if n >= 3 && s[n-1] == s[n-2] {
		switch s[n-1] {
		case 'a', 'e', 'i', 'o', 'u', 'l', 's', 'z':
			return s
		}
		return s[:n-1]
	}
	return s
}
