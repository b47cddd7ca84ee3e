package schema

import (
	"strconv"
	"strings"

	"google.golang.org/genai"
)

// A Mismatch is a string argument outside an enum that the converted
// schema shows the model as strings in place of other values (an enum of
// 1, 2, 3 shown as "1", "2", "3"). Restore leaves such a string as it is,
// so a validator of the original schema sees a string where it wants a
// number, and says so in terms the model was never shown; a Mismatch says
// it in the model's terms.
type Mismatch struct {
	// Path locates the value in the arguments as [Restorer.Restore]
	// returns them: property names and array indexes from the root, so it
	// is the instance location a validator of the original schema reports.
	// It is empty for the root itself.
	Path []string
	// Value is the string the model sent.
	Value string
	// Allowed lists the enum's members as the model saw them, in order.
	Allowed []string
}

// String formats m as `priority: "7" is not one of "1", "2", "3"`, the path
// dotted, the root shown as "(root)".
func (m Mismatch) String() string {
	p := strings.Join(m.Path, ".")
	if p == "" {
		p = "(root)"
	}
	return p + ": " + m.Detail()
}

// Detail formats m without its path: `"7" is not one of "1", "2", "3"`.
func (m Mismatch) Detail() string {
	quoted := make([]string, len(m.Allowed))
	for i, a := range m.Allowed {
		quoted[i] = strconv.Quote(a)
	}
	return strconv.Quote(m.Value) + " is not one of " + strings.Join(quoted, ", ")
}

// Mismatches returns the strings in restored, arguments as Restore
// returned them, that match no member of an enum the model was shown as
// strings in place of other values, in the order of a walk with sorted
// property names. Enums that were strings already are not checked (a
// validator of the original schema names their members as the model saw
// them). For an anyOf, a string is reported only when every branch is
// such an enum and none lists it. restored is not modified. A nil r, or
// one that restores no enum, returns nil. Mismatches is safe for
// concurrent use.
func (r *Restorer) Mismatches(restored any) []Mismatch {
	if r == nil || r.root == nil {
		return nil
	}
	var out []Mismatch
	mismatches(r.root, restored, nil, &out)
	return out
}

// mismatches appends to out the mismatches of v against p, v found at
// path.
func mismatches(p *plan, v any, path []string, out *[]Mismatch) {
	if p == nil || v == nil {
		return
	}
	if len(p.anyOf) > 0 {
		if s, ok := v.(string); ok {
			if allowed, ok := anyOfMembers(p.anyOf, s); !ok {
				*out = append(*out, Mismatch{Path: clonePath(path), Value: s, Allowed: allowed})
			}
			return
		}
		mismatches(chooseBranch(p.anyOf, v), v, path, out)
		return
	}
	switch v := v.(type) {
	case string:
		if p.members != nil && !containsStr(p.members, v) {
			*out = append(*out, Mismatch{Path: clonePath(path), Value: v, Allowed: append([]string(nil), p.members...)})
		}
	case map[string]any:
		for _, k := range sortedKeys(p.props) {
			if e, ok := v[k]; ok {
				mismatches(p.props[k], e, append(path, k), out)
			}
		}
	case []any:
		for i, e := range v {
			mismatches(p.items, e, append(path, strconv.Itoa(i)), out)
		}
	}
}

// anyOfMembers reports whether the string s may be valid for one of the
// anyOf branches; when it is not, allowed lists the members of every
// branch. A branch that is not an enum shown as strings (a plain STRING,
// an any value) may take s.
func anyOfMembers(branches []*plan, s string) (allowed []string, ok bool) {
	for _, b := range branches {
		switch {
		case b == nil:
		case len(b.anyOf) > 0:
			inner, fits := anyOfMembers(b.anyOf, s)
			if fits {
				return nil, true
			}
			allowed = appendNew(allowed, inner...)
		case b.members != nil:
			if containsStr(b.members, s) {
				return nil, true
			}
			allowed = appendNew(allowed, b.members...)
		case b.kind == genai.TypeString || b.anyJSON:
			return nil, true // a string without a restored enum
		}
		// Any other branch (a number, an object) takes no string.
	}
	return allowed, len(allowed) == 0
}

// appendNew appends the elements of add not yet in l.
func appendNew(l []string, add ...string) []string {
	for _, s := range add {
		if !containsStr(l, s) {
			l = append(l, s)
		}
	}
	return l
}

func clonePath(p []string) []string {
	return append([]string{}, p...)
}
