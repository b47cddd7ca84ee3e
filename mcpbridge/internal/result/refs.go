package result

import "strings"

// EscapeRefs returns a copy of the decoded JSON v in which every object key
// made of zero or more "_" followed by "$ref" gets one more leading "_", at
// any depth, so that the Gemini API, which reads a "$ref" key in a function
// response as a reference to an attached part, sees none; the escape is
// reversible and never makes two keys collide. v is not modified; values
// other than maps and slices are shared.
func EscapeRefs(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			if isRefKey(k) {
				k = "_" + k
			}
			out[k] = EscapeRefs(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = EscapeRefs(e)
		}
		return out
	}
	return v
}

// isRefKey reports whether k is "$ref" after zero or more leading "_".
func isRefKey(k string) bool { return strings.TrimLeft(k, "_") == "$ref" }
