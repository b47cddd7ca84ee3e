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
//
// A Mismatch with Branches says instead that the value fitted several
// anyOf branches equally well and that they would restore it differently:
// Restore used the first, which may not be the one the model meant.
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
	// Branches, when not empty, lists the indexes of the anyOf branches
	// of the converted schema that the value fitted equally well, in
	// order; Restore used the first. Value is then the value when it is a
	// string and "" otherwise, and Allowed is empty.
	Branches []int
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

// Detail formats m without its path: `"7" is not one of "1", "2", "3"`,
// or for an ambiguous branch choice `fits anyOf[0] and anyOf[2] equally,
// which restore it differently: restored by anyOf[0]`.
func (m Mismatch) Detail() string {
	if len(m.Branches) > 0 {
		return "fits " + branchList(m.Branches) + " equally, which restore it differently: restored by " +
			branchList(m.Branches[:1])
	}
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
// such an enum and none lists it. A value that fitted several anyOf
// branches equally well, where the choice changed the restored value, is
// reported with the branches (see [Mismatch]). restored is not modified.
// A nil r, or one that restores nothing, returns nil. Mismatches is safe
// for concurrent use.
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
		if amb := ambiguous(p, v); amb != nil {
			s, _ := v.(string)
			*out = append(*out, Mismatch{Path: clonePath(path), Value: s, Branches: amb})
		}
		if s, ok := v.(string); ok {
			if allowed, ok := anyOfMembers(p.anyOf, s); !ok {
				*out = append(*out, Mismatch{Path: clonePath(path), Value: s, Allowed: allowed})
			}
			return
		}
		i := chosenIndex(p, v)
		if i < 0 {
			return
		}
		mismatches(p.anyOf[i], v, path, out)
		if m, ok := v.(map[string]any); ok && p.others != nil {
			for _, k := range sortedKeys(p.others.props) {
				if e, ok := m[k]; ok && !p.declares(i, k) {
					mismatches(p.others.props[k], e, append(path, k), out)
				}
			}
		}
		return
	}
	switch v := v.(type) {
	case string:
		if p.members != nil && !containsStr(p.members, v) {
			*out = append(*out, Mismatch{Path: clonePath(path), Value: v, Allowed: append([]string(nil), p.members...)})
		}
	case map[string]any:
		if p.anyJSON {
			for _, k := range sortedKeys(v) {
				mismatches(p.values, v[k], append(path, k), out)
			}
			return
		}
		for _, k := range sortedKeys(p.props) {
			if e, ok := v[k]; ok {
				mismatches(p.props[k], e, append(path, k), out)
			}
		}
	case []any:
		for i, e := range v {
			mismatches(p.itemPlan(i), e, append(path, strconv.Itoa(i)), out)
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
